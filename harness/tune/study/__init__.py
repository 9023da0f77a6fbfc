"""The search: the Optuna study, its samplers, its storage, the tune folder
(harness/tune/__init__.py: the rooms)."""
