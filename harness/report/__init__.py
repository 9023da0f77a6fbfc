"""The ledger of runs and ``harness report`` (docs/report.md).

- :mod:`folder`   — read a run folder's reports as plain JSON, defensively
- :mod:`entry`    — ``LedgerEntry``: one run folder summarised
- :mod:`ledger`   — ``ledger.jsonl``: append, read, ``record_run``, indexing
- :mod:`frontier` — best run, frontier, waterfall (pure)
- :mod:`plots`    — the ledger's own plots (score over runs, waterfall) as chart specs
- :mod:`sections` — one run's sections: its summary and each report's own views
- :mod:`html`, :mod:`pages` — the self-contained ``report.html`` pages (view models as HTML)
- :mod:`table`, :mod:`render` — the ledger table (one view model) and the console output
"""
