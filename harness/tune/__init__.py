"""``harness tune``: the competitor's loop, automated (docs/tune.md).

Rooms, bottom to top; a room imports only its own and lower rooms
(tests/unit/test_tune_rooms.py):

- ``space/``: SPACE.toml read and checked (the package itself), its ``[serve]``
  (serve.py), SLOs declared (slo.py), conditions between parameters (conditions.py), the parts
  of the file (parts.py), a candidate's command filled in (template.py);
- ``record/``: what a tune records: a trial's status and what each means (status.py),
  the order of a trial's decisions (outcome.py), ``tune.json`` (report.py) and its
  confirmation (confirm.py), a trial's record on its Optuna trial (trial_store.py), the
  score's name and unit from the speed kind's record (score.py);
- ``launch/``: a candidate started and stopped (the package itself; candidate.py a
  process, container.py an image, own.py: only its own server answers; serving.py: the
  start → ready → measure → stop sequence a trial and a confirmation leg share);
- ``trial/``: one candidate measured into its run folder (the package itself), raced
  against the incumbent (race.py, racing.py), its SLOs judged (slo_check.py) and checked
  (slo_step.py);
- ``study/``: the Optuna study: what a search is given and tells (config.py), the study
  opened and a killed harness's trials recovered (opening.py), one step of the loop
  (loop.py), a trial's books (books.py), when it stops (stop.py), its ``tune.json``
  (report.py), which candidate next (samplers.py; sampling.py: TPE's settings), which
  trial holds a point (claim.py), where the study lives (storage.py), the tune folder
  (tune_folder.py);
- ``confirm/``: the winner measured again against the runner-up and the baseline (the
  package itself; leg.py one leg, stats.py the pure statistics, view.py its console
  lines, page.py its page section);
- ``run/``: the search to its budget, then the winner confirmed (``run_tune``, the package
  itself);
- ``show/``: the console (render.py), the tune page (views.py, page.py) and parameter
  importance (importance.py).
"""
