"""``harness tune``: the competitor's loop, automated (docs/tune.md).

space.py reads SPACE.toml; template.py fills a candidate's command; candidate.py starts
and stops one server; trial.py measures one candidate into its run folder; search.py
drives the Optuna study (tune_folder.py makes, unmakes and reads back the tune folder;
trial_store.py keeps a trial's record on its Optuna trial), samplers.py says which candidate it asks for next (sampling.py:
TPE's settings); confirm.py re-measures its winner against the runner-up and the
baseline (confirm_leg.py one leg, confirm_stats.py the pure statistics, confirm_record.py
its record, confirm_view.py its console lines); report.py is ``tune.json``; score.py its score's name and unit
(the speed kind's record); status.py a trial's
statuses and what each means; render.py the console.
"""
