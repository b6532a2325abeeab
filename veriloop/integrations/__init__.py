"""veriloop inside the evaluation tools people already run.

- `veriloop.integrations.ragas.VeriloopGrounding`: a RAGAS single-turn metric
  (`pip install 'veriloop[ragas]'`);
- `veriloop.integrations.deepeval.VeriloopGroundingMetric`: a DeepEval metric
  (`pip install 'veriloop[deepeval]'`);
- `veriloop.integrations.grounding.GroundingChecker`: the check both run, for any other
  tool (one answer, its contexts -> score, verdict, claims, reason).

Each imports its tool only when used; without the tool installed, importing its module
raises an error that says which extra to install.
"""
