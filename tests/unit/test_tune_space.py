"""SPACE.toml parsing, the launch templates, the baseline diff and race-free trial folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError, UsageError
from harness.tune.space import Range, Space, load_space, parse_space, pinned_text
from harness.tune.space.template import diff_text, launch_argv, launch_env, shell_line
from harness.tune.study.samplers import choose_sampler, grid_space
from harness.tune.trial import trial_folder

GOOD = """
[serve]
command = "vllm serve /m --port {port} --max-num-seqs {max_num_seqs} {prefix_caching}"
env = {VLLM_X = "{max_num_seqs}"}
[params]
max_num_seqs = [4, 8, 16]
prefix_caching = ["--enable-prefix-caching", ""]
[baseline]
max_num_seqs = 8
prefix_caching = ""
[budget]
trials = 6
[options]
runs = 3
warmup = 1
"""


def test_space_parses_and_fills_templates() -> None:
    space = parse_space(GOOD)
    assert space.grid_size() == 6 and space.all_choices()
    values = {"max_num_seqs": 16, "prefix_caching": ""}
    argv = launch_argv(space.serve, values, 8123)
    assert argv == ["vllm", "serve", "/m", "--port", "8123", "--max-num-seqs", "16"]
    assert launch_env(space.serve, values, 8123) == {"VLLM_X": "16"}
    assert shell_line(argv, {"A": "x y"}).startswith("A='x y' vllm serve")
    assert space.options.gate() == {"runs": 3, "warmup": 1, "decide": True}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (GOOD.replace("runs = 3", "runz = 3"), "options.runz"),
        (GOOD.replace("max_num_seqs = 8\n", "max_num_seqs = 9\n"), "baseline.max_num_seqs"),
        (GOOD.replace("[budget]\ntrials = 6", "[budget]"), "budget"),
        (GOOD.replace("command =", "comand ="), "serve.comand: Extra inputs"),
        (GOOD + "\n[params.x]\nlow = 5\nhigh = 1\n", "params.x"),
    ],
)
def test_a_bad_key_is_named(text: str, where: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_space(text)
    assert f"SPACE.toml: {where}" in err.value.message


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("{prefix_caching}", "{prefix}", r"serve.command: unknown placeholder \{prefix\} \("),
        ("{prefix_caching}", "{prefix_caching!r}", r"serve.command: \{prefix_caching\} takes no"),
        ("{prefix_caching}", "{prefix_caching", r"serve.command: bad template"),
    ],
)
def test_a_bad_placeholder_is_refused_when_the_file_is_read(old: str, new: str, says: str) -> None:
    """Before any data check or candidate (the template's fill would refuse it later)."""
    with pytest.raises(ConfigError, match=says):
        parse_space(GOOD.replace(old, new))


def test_fill_still_names_an_unknown_placeholder() -> None:
    space = parse_space(GOOD)
    serve = space.serve.model_copy(update={"command": "vllm serve {prefix}"})
    with pytest.raises(ConfigError, match=r"serve.command: unknown placeholder \{prefix\}"):
        launch_argv(serve, {"max_num_seqs": 4, "prefix_caching": ""}, 1)


def test_ranges() -> None:
    space = parse_space(GOOD + "\n[params.gpu_mem]\nlow = 0.5\nhigh = 0.9\nstep = 0.1\n")
    r = space.params["gpu_mem"]
    assert isinstance(r, Range) and not r.is_int
    assert space.grid_size() is None
    name, _ = choose_sampler(space, "auto", 0)
    assert name == "tpe"
    with pytest.raises(UsageError, match="gpu_mem"):
        choose_sampler(space, "grid", 0)


def test_auto_grid_when_it_fits_and_grid_baseline_first() -> None:
    space = parse_space(GOOD)
    assert choose_sampler(space, "auto", 0)[0] == "grid"
    assert grid_space(space) == {
        "max_num_seqs": [8, 4, 16],
        "prefix_caching": ["", "--enable-prefix-caching"],
    }


def test_diff_text() -> None:
    base = {"a": 8, "b": "off"}
    assert diff_text({"a": 8, "b": "off"}, base) == "baseline"
    assert diff_text({"a": 16, "b": "off"}, base) == "a 8→16"
    assert diff_text({"a": 16, "b": True, "c": 1.5}, base) == "a 8→16, b off→true, c=1.5"


def test_trial_folders_never_shared(tmp_path: Path) -> None:
    first = trial_folder(tmp_path, 3)
    second = trial_folder(tmp_path, 3)  # another worker, the same number
    assert first.name == "t003" and second.name == "t003-2"


def test_distributions_and_tpe() -> None:
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
    from optuna.samplers import TPESampler

    from harness.tune.study.samplers import distributions

    text = GOOD + "\n[params.tokens]\nlow = 1024\nhigh = 8192\nstep = 1024\n"
    text += "\n[params.mem]\nlow = 0.5\nhigh = 0.9\nlog = true\n"
    dists = distributions(parse_space(text))
    assert dists["max_num_seqs"] == CategoricalDistribution([4, 8, 16])
    assert dists["tokens"] == IntDistribution(1024, 8192, step=1024)
    assert dists["mem"] == FloatDistribution(0.5, 0.9, log=True)
    name, sampler = choose_sampler(parse_space(text), "tpe", 0)
    assert name == "tpe" and isinstance(sampler, TPESampler)


def test_a_relative_profile_is_read_from_the_files_folder_and_pinned_in_the_copy(
    tmp_path: Path,
) -> None:
    """The copy in the tune folder is read by --resume from another folder: it carries the
    absolute path the relative one resolved to."""
    (tmp_path / "p").mkdir()
    text = 'profile = "p/mine.toml"\n[serve]\ncommand = "srv --port {port} --a {a}"\n[params]\na = [1]\n'
    path = tmp_path / "space.toml"
    path.write_text(text)
    space = load_space(path)
    assert space.profile == str(tmp_path / "p" / "mine.toml") == space.profile_arg
    copy = tmp_path / "copy" / "space.toml"
    copy.parent.mkdir()
    copy.write_text(pinned_text(text, space))
    assert load_space(copy).profile == space.profile
    named = text.replace("p/mine.toml", "efficient-qwen")
    assert load_space_text(tmp_path, named).profile_arg is None


def load_space_text(folder: Path, text: str) -> Space:
    path = folder / "named.toml"
    path.write_text(text)
    return load_space(path)
