"""Judge data: the labelled sets the judges are trained on and measured on.

The judge-training scripts in `benchmarks/` (`train_*_judge.py`, `fit_decision.py`,
`mismatch_rules.py`, `polarity_probes.py`) build their training pools from these modules,
and the support-judge benchmark (`benchmarks/support_judges.py`) measures on the held-out
sets they define:

- `support_sets`: supported / unsupported (claim, evidence) pairs from HaluEval QA,
  HealthVer, Citation-Integrity and PubMedQA, their swapped and perturbed copies, split
  by item;
- `nli_sets`: three-way NLI pairs for the three-way judge, minus the held-out sets (every
  held-out set of the support-judge benchmark: `all_held_out_sets`);
- `relevance_sets`: question-answer relevance pairs (MedQuAD, MEDIQA, RQE);
- `minimal_pairs` and `claim_edits`: MedQuAD minimal pairs, entailed claims beside their
  one-edit contradicted twins, split by page focus.
"""
