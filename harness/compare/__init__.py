"""``harness compare``: paired A/B verdicts between two run folders of one profile.

load (the only module that reads files) → comparable (refuse what differs) →
latency / quality / throughput / vlm (pure, per kind) → model (typed records) →
core (the one entry point) → views (the sections: tables, plots, flips) → render
(console). report.html draws the same sections from compare.json. See docs/compare.md.
"""
