"""The verify engine: check many answers against their sources, resumably, with a report.

`veriloop verify`, `veriloop.check` and `assert_grounded` run it:

- `rows`: reading rows (JSON lines, JSON, CSV, Parquet, DataFrames; veriloop, RAGAS and
  DeepEval column names) into `Row`s, a bad row into a `RowError` that names its field;
- `claims`: one row's claims, judged by Factored Verification's claim-support judges
  through the one claim check (`nodes.judges.claim_check`), as a result record;
- `run`: the run folder (results.jsonl, manifest, lock, fingerprints, resume);
- `report`: report.md and report.html of a run.
"""
