"""Quality gates the way the grader runs them: lm-eval 0.4.11, one ``simple_evaluate`` per benchmark.

Modules: ``config`` (the typed run config), ``core`` (the one core: preflight, readiness
and the offline environment, once each, then the benchmarks), ``preflight`` (data,
punkt, the grader's ping), ``runner`` (the benchmarks), ``cache`` (answers kept across a
killed run), ``transport`` (requests with the grader's retries, progress and timings),
``grader_lm`` / ``chat_lm`` (the two lm-eval models), ``stats`` (pure scoring and
statistics), ``decide`` / ``decide_stats`` / ``decide_exact`` (``--decide``: rounds, and
the pure tests that settle a gate early), ``report`` (quality.json), ``render``. The benchmarks
themselves are registered by exact lm-eval task name in ``harness.data.benchmarks``.
"""
