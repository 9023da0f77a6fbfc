"""How the search learns: the TPE sampler's settings and the value the study is told.

Chosen with ``bench/tune_landscape.py`` as the judge (docs/tune.md, "The search" and "The
bench"): on its 48-candidate landscapes, Optuna's TPE with its defaults picked within 2 %
of the true best in 44 % of landscapes at 12 trials, no better than random search; these
settings pick so in about 80 %.

- **Few random trials first** (``STARTUP_TRIALS``, the baseline among them): Optuna's
  default of 10 spends most of a 12-trial budget on random points.
- **A wider "good" group** (``gamma``: the best quarter of the trials, Optuna's default is
  a tenth): with a dozen trials a tenth is one or two, too few to say where the good region
  is.
- **The speed a trial measured, even when a gate failed it.** A quality gate measured on a
  limited set (``limit`` 0.1: 20 GPQA-Diamond questions) fails candidates close to its
  threshold almost at random, and the fastest candidate that fails a gate sits next to the
  fastest ones that pass (the same quantisation, one flag apart). Told 0 with a
  constraint, such a trial teaches TPE that its region is bad; told its speed, it teaches
  where the speed is. A trial with no speed (it did not start, crashed, failed a check) is
  told 0 (``TrialResult.objective``, harness/tune/record/outcome.py). This changes only what the sampler learns from: a trial is recommended only when
  it is ``ok`` (every gate measured and passed), so a gate-failing candidate is never
  picked.
"""

from __future__ import annotations

import math
import warnings

import optuna
from optuna.samplers import TPESampler

STARTUP_TRIALS = 3  # random trials before TPE models (the enqueued baseline counts)
GOOD_FRACTION = 0.25  # TPE's "good" group: this share of the trials (at most GOOD_CAP)
GOOD_CAP = 25  # Optuna's own cap


def good_count(n: int) -> int:
    """TPE's ``gamma``: how many of ``n`` trials form the "good" group."""
    return min(math.ceil(GOOD_FRACTION * n), GOOD_CAP)


def tpe_sampler(seed: int) -> TPESampler:
    with warnings.catch_warnings():  # gamma's callable is marked experimental in some versions
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        warnings.simplefilter("ignore", FutureWarning)
        return TPESampler(
            seed=seed, n_startup_trials=STARTUP_TRIALS, gamma=good_count, multivariate=True
        )
