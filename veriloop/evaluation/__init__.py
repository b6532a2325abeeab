"""Evaluation: dataset loaders into one item schema, metrics, and the benchmark harness."""
