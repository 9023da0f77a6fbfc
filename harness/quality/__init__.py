"""Quality gates the way the grader runs them: lm-eval 0.4.11, one ``simple_evaluate`` per benchmark.

Modules: ``config`` (the overrides record and the typed run config), ``core`` (the one
core: preflight, readiness and the offline environment, once each, then the benchmarks),
``hooks`` (what a run reports as it goes), ``preflight`` (data, punkt, the grader's ping),
``suite`` (the benchmarks in order), ``runner`` (one benchmark's lm-eval call), ``cache`` (answers kept across a
killed run), ``transport`` (requests with the grader's retries, progress and timings),
``grader_lm`` / ``chat_lm`` (the two lm-eval models), ``stats`` (pure scoring and
statistics), ``decide`` / ``decide_stats`` / ``decide_exact`` (``--decide``: rounds, and
the pure tests that settle a gate early), ``report`` (quality.json), ``views`` / ``render`` /
``console``, ``gate_rules``, ``kind`` (the registry's record). The benchmarks
themselves are registered by exact lm-eval task name in ``harness.data.benchmarks``.
"""
