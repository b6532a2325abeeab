"""Factored Verification's chat-model agents (graphs/factored_verification.py runs them).

- `chat_agents`: the paper's chat-model claim check (P(Yes) from log-probs, or a
  chain-of-thought Yes/No) and the claim-wise critique;
- `revision`: the revision feedback built from the critiques, and the final verdict with
  the reason the revision loop stopped.

The claim tasks and the judge verifiers, which the batch engine shares with the graph, are
`nodes/claim_tasks.py`.
"""
