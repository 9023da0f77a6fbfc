"""``harness audit``: the contest's rules, one verdict each with its evidence (docs/audit.md).

One room per phase, each with its sender, its records and its rules: ``timed/`` (the
grader's repeated prompt against its controls, in rounds), ``probes/`` (one prompt in the
graders' two body shapes, then streamed), ``paraphrases/`` (benchmark_detection's quality
half) and ``continuations/`` (complete_outputs). What the phases share stays here: the
config and workload, the core that runs the phases in turn, the report and its records,
the answered requests, resume, evidence, views, console, hooks, the gate's rules and the
kind's record.
"""
