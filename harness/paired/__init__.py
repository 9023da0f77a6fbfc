"""Paired A/B statistics that every kind's comparison shares (pure, no file access).

``stats`` (bootstrap intervals, McNemar, the verdict rule), ``drift`` (a run's own
drift), ``side`` (what a comparison holds of one run), ``comparable`` (what makes two
runs incomparable, in words), ``model`` (the verdict words, a score's difference, the
base of a kind's section) and ``views`` (the cells and lines every section draws).
Each kind's comparison lives in its own package (``harness/<pkg>/compare.py``); the
engine that iterates them is ``harness/compare/``. See docs/compare.md.
"""
