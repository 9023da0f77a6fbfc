"""What a tune records: statuses, a trial's outcome, ``tune.json``, the trial's record on
its Optuna trial, the score's name (harness/tune/__init__.py: the rooms)."""
