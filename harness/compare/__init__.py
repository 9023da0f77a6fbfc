"""``harness compare``: paired A/B verdicts between two run folders of one profile.

load (the only module that reads files) → comparable (refuse what differs) →
latency / quality / throughput (pure, per kind) → model (typed records) →
render (console) / section (report.html). See docs/compare.md.
"""
