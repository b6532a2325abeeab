"""Factual Evidence's own agents' shapes and steps (graphs/factual_evidence.py runs them).

- `rationale`: the reply shapes of the rationale generator, verifier, refiner and the
  one-step ablation, the statement labels, and the trace candidate of each version;
- `retrieval`: the context units, with triplets extracted on the fly when the index has none;
- `answer`: the cited answer's citations, the rationale as output, and why the loop
  stopped.
"""
