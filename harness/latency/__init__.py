"""Latency buckets: the grader's official procedure and a strict mode beside it."""
