"""The TPE settings the search uses (harness/tune/study/sampling.py), chosen with
bench/tune_landscape.py: few random trials first, the best quarter as TPE's good group."""

from __future__ import annotations

import optuna

from harness.tune.study.sampling import STARTUP_TRIALS, good_count, tpe_sampler


def test_good_group_is_a_quarter_of_the_trials_capped() -> None:
    assert [good_count(n) for n in (1, 4, 5, 12, 24)] == [1, 1, 2, 3, 6]
    assert good_count(1000) == 25  # Optuna's own cap


def _study(seed: int) -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    return optuna.create_study(direction="maximize", sampler=tpe_sampler(seed))


def _speed(values: dict[str, object]) -> float:
    """A separable landscape: 'quant' int4 and 'spec' on are the fast values."""
    return 1.0 + 2.0 * (values["quant"] == "int4") + 1.0 * (values["spec"] == "on")


def test_tpe_models_after_a_few_random_trials() -> None:
    """After STARTUP_TRIALS trials TPE samples where the good trials were: over 12 trials
    (a quarter of this 48-point space), most land on the fast values; Optuna's default of
    10 random trials first would leave 2 to the model."""
    space = {
        "max_num_seqs": [4, 8, 16, 32],
        "quant": ["bf16", "fp8", "int4"],
        "spec": ["off", "on"],
        "graphs": ["off", "on"],
    }
    assert STARTUP_TRIALS <= 3
    fast = 0
    for seed in range(5):
        study = _study(seed)
        for n in range(12):
            trial = study.ask()
            values = {k: trial.suggest_categorical(k, v) for k, v in space.items()}
            study.tell(trial, _speed(values))
            if n >= STARTUP_TRIALS:
                fast += int(values["quant"] == "int4" and values["spec"] == "on")
    modelled = 5 * (12 - STARTUP_TRIALS)
    # random sampling would land on int4 + spec on in 1/6 of the trials
    assert fast > modelled / 2
