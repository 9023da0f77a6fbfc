"""Conditions between parameters (harness/tune/space/conditions.py): parsing, activation, the
grid's valid points, the launch without an inactive parameter, and the search (grid and
TPE) through run_tune's measure seam."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import optuna
import pytest

from harness.data.layout import SAMPLES_DIR
from harness.errors import ConfigError
from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.profiles import Profile, load_profile
from harness.tune.record.outcome import TrialResult
from harness.tune.run import run_tune
from harness.tune.space import Choice, Space, conditions, parse_space
from harness.tune.space.template import diff_text, launch_argv, launch_env
from harness.tune.study.config import TuneConfig
from harness.tune.study.samplers import PointGrid, choose_sampler

ON, OFF = "--enable-prefix-caching", "--no-enable-prefix-caching"

SPACE = f"""
[serve]
command = "vllm serve /m --port {{port}} --max-num-seqs {{max_num_seqs}} {{prefix_caching}} --max-num-batched-tokens={{mnbt}}"
env = {{ CHUNK = "{{mnbt}}", SEQS = "{{max_num_seqs}}" }}
[params]
max_num_seqs = [4, 8, 16]
prefix_caching = ["{ON}", "{OFF}"]
[params.mnbt]
choices = [2048, 8192]
when = {{ prefix_caching = "{ON}" }}
[[exclude]]
max_num_seqs = 16
prefix_caching = "{OFF}"
[baseline]
max_num_seqs = 8
prefix_caching = "{OFF}"
[budget]
trials = 20
[confirm]
rounds = 0
[options]
data_dir = "{SAMPLES_DIR}"
"""


def test_when_and_exclude_parse() -> None:
    space = parse_space(SPACE)
    assert space.params["mnbt"] == [2048, 8192]  # the choices table is a plain parameter
    assert space.conditions() == {"mnbt": {"prefix_caching": [ON]}}
    assert space.exclusions() == [{"max_num_seqs": [16], "prefix_caching": [OFF]}]
    assert space.conditional and space.all_choices()


def test_a_range_may_carry_a_condition() -> None:
    text = SPACE.replace("choices = [2048, 8192]", "low = 1024\nhigh = 8192\nstep = 1024")
    space = parse_space(text)
    assert space.conditions() == {"mnbt": {"prefix_caching": [ON]}}
    assert not space.all_choices()
    # the choice parameters' valid combinations: 3 × 2 less the excluded one
    assert len(space.grid_points()) == 5


def test_grid_points_are_the_valid_combinations_baseline_first() -> None:
    space = parse_space(SPACE)
    points = space.grid_points(seed=0)
    assert points[0] == {"max_num_seqs": 8, "prefix_caching": OFF}
    expected = [
        {"max_num_seqs": 4, "prefix_caching": OFF},
        {"max_num_seqs": 8, "prefix_caching": OFF},
        *(
            {"max_num_seqs": s, "prefix_caching": ON, "mnbt": t}
            for s in (4, 8, 16)
            for t in (2048, 8192)
        ),
    ]
    keys = sorted(conditions.point_key(p) for p in points)
    assert keys == sorted(conditions.point_key(p) for p in expected)  # each once
    assert space.grid_size() == 8  # not 3 × 2 × 2 = 12
    assert all("mnbt" not in p for p in points if p["prefix_caching"] == OFF)


def test_an_inactive_parameter_is_never_drawn() -> None:
    when = {"b": {"a": [1]}, "c": {"b": ["x"]}}
    drawn: list[str] = []

    def draw(name: str) -> Choice:
        drawn.append(name)
        return {"a": 2, "b": "x", "c": True}[name]

    # c names b, b names a: decided in that order whatever the file's order
    assert conditions.active_values(["c", "b", "a"], when, draw) == {"a": 2}
    assert drawn == ["a"]  # b is inactive (a = 2), so c is too: neither drawn
    drawn.clear()
    got = conditions.active_values(["c", "b", "a"], when, lambda n: {"a": 1, "b": "x", "c": 3}[n])
    assert got == {"a": 1, "b": "x", "c": 3}


def test_excluded_by_matches_any_of_a_list() -> None:
    rules = [{"a": [1, 2], "b": ["x"]}]
    assert conditions.excluded_by(rules, {"a": 2, "b": "x"}) == 0
    assert conditions.excluded_by(rules, {"a": 3, "b": "x"}) is None
    assert conditions.excluded_by(rules, {"a": 1}) is None  # b inactive: the rule does not hold
    assert conditions.excluded_by(rules, {"a": True, "b": "x"}) is None  # type-exact


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            (f'when = {{ prefix_caching = "{ON}" }}', 'when = { prefix_cache = "x" }'),
            "params.mnbt.when.prefix_cache: not a parameter (max_num_seqs, prefix_caching)",
        ),
        (
            (f'when = {{ prefix_caching = "{ON}" }}', 'when = { prefix_caching = "on" }'),
            "params.mnbt.when.prefix_caching: 'on' is not in its parameter's values",
        ),
        (
            (f'when = {{ prefix_caching = "{ON}" }}', "when = { mnbt = 2048 }"),
            "params.mnbt.when.mnbt: a parameter's condition cannot name itself",
        ),
        (
            ("max_num_seqs = 16\nprefix", "max_num_seqs = 32\nprefix"),
            "exclude.0.max_num_seqs: 32 is not in its parameter's values",
        ),
        (
            ("[baseline]\n", "[baseline]\nmnbt = 2048\n"),
            "baseline.mnbt: inactive in the baseline",
        ),
        (("[budget]", "[when]\nmnbt = {}\n[budget]"), "when: a condition goes in its parameter"),
    ],
)
def test_a_bad_condition_is_one_line_naming_it(change: tuple[str, str], message: str) -> None:
    old, new = change
    assert old in SPACE
    with pytest.raises(ConfigError) as err:
        parse_space(SPACE.replace(old, new, 1))
    assert err.value.exit_code == 2
    assert f"SPACE.toml: {message}" in err.value.message
    assert "\n" not in err.value.message


CYCLE = """
[serve]
command = "x {port} {a} {b}"
[params.a]
choices = [1, 2]
when = { b = 1 }
[params.b]
choices = [1, 2]
when = { a = 1 }
"""


def test_cycles_ranges_and_an_empty_space_are_refused() -> None:
    with pytest.raises(ConfigError, match="the conditions form a cycle"):
        parse_space(CYCLE)
    ranged = SPACE.replace("max_num_seqs = [4, 8, 16]", "max_num_seqs = { low = 4, high = 16 }")
    with pytest.raises(ConfigError, match=r"exclude\.0\.max_num_seqs: a range"):
        parse_space(ranged)
    everything = SPACE.replace(f'[baseline]\nmax_num_seqs = 8\nprefix_caching = "{OFF}"\n', "")
    everything += f'[[exclude]]\nprefix_caching = ["{ON}", "{OFF}"]\n'
    with pytest.raises(ConfigError, match="every combination of the parameters is excluded"):
        parse_space(everything)


def test_an_inactive_parameter_leaves_the_launch_and_the_diff() -> None:
    space = parse_space(SPACE)
    values: dict[str, Choice] = {"max_num_seqs": 4, "prefix_caching": OFF}
    argv = launch_argv(space.serve, values, 9000, ["mnbt"])
    assert argv == ["vllm", "serve", "/m", "--port", "9000", "--max-num-seqs", "4", OFF]
    assert launch_env(space.serve, values, 9000, ["mnbt"]) == {"SEQS": "4"}
    assert diff_text(values, space.baseline) == "max_num_seqs 8→4"
    on: dict[str, Choice] = {"max_num_seqs": 8, "prefix_caching": ON, "mnbt": 2048}
    assert launch_argv(space.serve, on, 9000)[-2:] == [ON, "--max-num-batched-tokens=2048"]
    assert diff_text(on, space.baseline) == f"prefix_caching {OFF}→{ON}, mnbt=2048"


def test_auto_grid_enqueues_only_valid_points() -> None:
    space = parse_space(SPACE)
    name, sampler = choose_sampler(space, "auto", 0)
    assert name == "grid" and isinstance(sampler, PointGrid)
    assert len(sampler.points) == 8
    tight = space.model_copy(update={"budget": space.budget.model_copy(update={"trials": 7})})
    assert choose_sampler(tight, "auto", 0)[0] == "tpe"  # 8 valid points > 7 trials


def _fake(seen: list[dict[str, Choice]]) -> object:
    """run_tune's measure seam: records each point; faster with more seqs, ON, bigger chunks."""

    def measure(
        space: Space,
        profile: Profile,
        values: Mapping[str, Choice],
        folder: Path,
        incumbent: float | None,
        *,
        name: str,
        reference: Path | None = None,
        hooks: GateHooks = NO_HOOKS,
    ) -> TrialResult:
        seen.append(dict(values))
        score = float(values["max_num_seqs"]) / 4 + (1.0 if values["prefix_caching"] == ON else 0)
        score += float(values.get("mnbt", 0)) / 8192
        return TrialResult("ok", "measured", score, launch=name)

    return measure


def _tune(tmp_path: Path, space: Space, sampler: str) -> list[dict[str, Choice]]:
    seen: list[dict[str, Choice]] = []
    cfg = TuneConfig(
        space=space,
        space_text=SPACE,
        profile=load_profile("efficient-qwen"),
        folder=tmp_path / "tune",
        sampler=sampler,  # type: ignore[arg-type]
        confirm=False,
    )
    report = run_tune(cfg, measure=_fake(seen))  # type: ignore[arg-type]
    assert report.trials and all(t.status == "ok" for t in report.trials)
    return seen


def test_the_grid_measures_each_valid_point_once(tmp_path: Path) -> None:
    space = parse_space(SPACE)
    seen = _tune(tmp_path, space, "grid")
    assert seen[0] == {"max_num_seqs": 8, "prefix_caching": OFF}  # the baseline first
    keys = [conditions.point_key(p) for p in seen]
    assert sorted(keys) == sorted(conditions.point_key(p) for p in space.grid_points())
    assert len(set(keys)) == len(keys) == 8


def test_tpe_suggests_only_active_parameters_and_never_an_excluded_point(tmp_path: Path) -> None:
    space = parse_space(SPACE)
    space = space.model_copy(update={"budget": space.budget.model_copy(update={"trials": 12})})
    seen = _tune(tmp_path, space, "tpe")
    # 8 valid points: TPE's draws of a point already measured are pruned, and the search ends
    # once every point is measured, before the budget of 12
    assert len(seen) == 8
    assert len({conditions.point_key(p) for p in seen}) == 8
    for p in seen:
        assert ("mnbt" in p) == (p["prefix_caching"] == ON), p
        assert not (p["max_num_seqs"] == 16 and p["prefix_caching"] == OFF), p
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{tmp_path}/tune/study.db")
    pruned = study.get_trials(states=(optuna.trial.TrialState.PRUNED,))
    rules = space.exclusions()
    for t in pruned:  # an excluded draw: pruned, never measured, told as infeasible
        if conditions.excluded_by(rules, t.params) is not None:
            assert t.user_attrs.get("constraint") == 1.0


def test_a_resumed_conditional_grid_measures_each_point_once(tmp_path: Path) -> None:
    """Ctrl-C during the third trial, then --resume: the interrupted point is queued again,
    the others are never measured twice, and no point outside the valid ones is measured."""
    space = parse_space(SPACE)
    seen: list[dict[str, Choice]] = []
    inner = _fake(seen)

    def interrupting(*args: object, **kw: object) -> TrialResult:
        if len(seen) == 2:
            seen.append({"interrupted": True})
            raise KeyboardInterrupt
        return inner(*args, **kw)  # type: ignore[operator,no-any-return]

    base = {"space": space, "space_text": SPACE, "profile": load_profile("efficient-qwen")}
    cfg = TuneConfig(**base, folder=tmp_path / "tune", sampler="grid", confirm=False)  # type: ignore[arg-type]
    first = run_tune(cfg, measure=interrupting)  # type: ignore[arg-type]
    assert first.stopped_by == "interrupted" and len(seen) == 3
    again = TuneConfig(**base, folder=tmp_path / "tune", resume=True, confirm=False)  # type: ignore[arg-type]
    report = run_tune(again, measure=inner)  # type: ignore[arg-type]
    assert report.stopped_by == "grid exhausted"
    measured = [conditions.point_key(p) for p in seen if "interrupted" not in p]
    assert sorted(measured) == sorted(conditions.point_key(p) for p in space.grid_points())
    assert [t.status for t in report.trials].count("interrupted") == 1


PLAIN = f"""
[serve]
command = "vllm serve /m --port {{port}} --max-num-seqs {{max_num_seqs}} {{prefix_caching}}"
[params]
max_num_seqs = [4, 8]
prefix_caching = ["{ON}", "{OFF}"]
[baseline]
max_num_seqs = 8
prefix_caching = "{OFF}"
[budget]
trials = 10
[confirm]
rounds = 0
[options]
data_dir = "{SAMPLES_DIR}"
"""


@pytest.mark.parametrize("sampler", ["tpe", "random"])
def test_a_finite_space_without_conditions_ends_once_every_point_is_measured(
    tmp_path: Path, sampler: str
) -> None:
    # 4 points and a budget of 10: every further draw would be a pruned duplicate, forever
    seen: list[dict[str, Choice]] = []
    cfg = TuneConfig(
        space=parse_space(PLAIN),
        space_text=PLAIN,
        profile=load_profile("efficient-qwen"),
        folder=tmp_path / "tune",
        sampler=sampler,  # type: ignore[arg-type]
        confirm=False,
    )
    report = run_tune(cfg, measure=_fake(seen))  # type: ignore[arg-type]
    assert report.stopped_by == "every point measured"
    assert len(seen) == 4 and len({conditions.point_key(p) for p in seen}) == 4
