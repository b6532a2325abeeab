"""Self-Reflection's own helpers (graphs/self_reflection.py is the graph that runs them).

- `loops`: closing a generate -> score -> refine loop (which candidate to keep, and why);
- `rounds`: the candidates of a round, the one each loop kept, the prompts of each turn;
- `sources`: grounded Self-Reflection's settings and retrieval (ours, not the paper's).
"""
