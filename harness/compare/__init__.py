"""``harness compare``: paired A/B verdicts between two run folders of one profile.

The engine over the registry: load (the only module that reads files) → core (refuse
what differs, then each kind's comparison, ``harness/<pkg>/compare.py``, returns its
section) → model (the report: one section per kind) → views (what ran, each kind's
section drawn by its ``<pkg>/compare_views.py``, notes) → render (console). The paired
statistics every kind shares are in ``harness/paired/``. report.html draws the same
sections from compare.json. See docs/compare.md.
"""
