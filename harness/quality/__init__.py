"""Quality gates the way the grader runs them: lm-eval 0.4.11, one ``simple_evaluate`` per benchmark.

Modules: ``config`` (the typed run config), ``cache`` (answers kept across a killed
run), ``transport`` (requests with the grader's retries, progress and timings),
``grader_lm`` / ``chat_lm`` (the two lm-eval models), ``stats`` (pure scoring and
statistics), ``runner`` (one benchmark), ``report`` (quality.json), ``render``.
"""
