"""``harness compare``: paired A/B verdicts between two run folders of one profile.

load (the only module that reads files) → comparable (refuse what differs) →
latency / quality / throughput / vlm (pure, per kind) → model (typed records) →
core (the one entry point) → render (console). report.html's section is
harness/report/compare_section.py. See docs/compare.md.
"""
