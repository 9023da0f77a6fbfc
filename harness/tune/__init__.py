"""``harness tune``: the competitor's loop, automated (docs/tune.md).

space.py reads SPACE.toml; template.py fills a candidate's command; candidate.py starts
and stops one server; trial.py measures one candidate into its run folder; search.py
drives the Optuna study; report.py is ``tune.json``; render.py the console.
"""
