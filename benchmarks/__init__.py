"""Performance benchmarks; each writes its numbers to docs/benchmarks/."""
