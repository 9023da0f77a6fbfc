"""The ledger of runs and ``harness report`` (docs/report.md).

- :mod:`folder`   — read a run folder's reports as plain JSON, defensively
- :mod:`entry`    — ``LedgerEntry``: one run folder summarised
- :mod:`ledger`   — ``ledger.jsonl``: append, read, ``record_run``, indexing
- :mod:`frontier` — best run, frontier, waterfall (pure)
- :mod:`plots`    — matplotlib (Agg) figures as base64 PNG
- :mod:`html`, :mod:`pages` — the self-contained ``report.html`` pages
- :mod:`table`, :mod:`render` — the console tables
"""
