"""The prompts' seed is drawn where the run's config is built (``from_profile``), never by a core.

A config out of ``from_profile`` always holds the seed its run will use: ``--seed N``
(``seed_drawn`` False, "given"), or a fresh draw (``seed_drawn`` True, "drawn"). The
cores only read it, so what the console prints, what the report records and what the
prompts derive from are one number, known before anything is sent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import harness
from harness.latency.config import LatencyOverrides
from harness.latency.config import from_profile as latency_from_profile
from harness.profiles import load_profile
from harness.prompts import SEED_RANGE
from harness.quality.config import QualityOverrides
from harness.quality.config import from_profile as quality_from_profile
from harness.target import Target
from harness.throughput.config import ThroughputOverrides
from harness.throughput.config import from_profile as throughput_from_profile

HERE = Target(folder=Path("."), url="http://127.0.0.1:9")


def _latency(**o):
    return latency_from_profile(load_profile(), HERE, LatencyOverrides(**o))


def _throughput(**o):
    return throughput_from_profile(load_profile("gpumode-paris"), HERE, ThroughputOverrides(**o))


@pytest.mark.parametrize("build", [_latency, _throughput])
def test_without_seed_the_config_holds_a_drawn_one(build) -> None:
    cfg = build()
    assert isinstance(cfg.seed, int) and 0 <= cfg.seed < SEED_RANGE
    assert cfg.seed_drawn is True


@pytest.mark.parametrize("build", [_latency, _throughput])
def test_a_given_seed_is_kept_and_marked_given(build) -> None:
    cfg = build(seed=7)
    assert (cfg.seed, cfg.seed_drawn) == (7, False)


def test_throughput_records_where_its_seed_came_from() -> None:
    drawn, given = _throughput(), _throughput(seed=7)
    assert (drawn.settings()["seed"], drawn.settings()["seed_source"]) == (drawn.seed, "drawn")
    assert (given.settings()["seed"], given.settings()["seed_source"]) == (7, "given")


def test_quality_draws_its_order_seed_only_for_decide() -> None:
    profile = load_profile()
    plain = quality_from_profile(profile, HERE, QualityOverrides())
    decide = quality_from_profile(profile, HERE, QualityOverrides(decide=True))
    given = quality_from_profile(profile, HERE, QualityOverrides(decide=True, seed=5))
    assert plain.seed is None
    assert isinstance(decide.seed, int) and 0 <= decide.seed < SEED_RANGE
    assert given.seed == 5


def _calls_of(name: str) -> list[str]:
    """Every module of the harness that calls ``name(...)``, by its path in the package."""
    root = Path(harness.__file__).resolve().parent
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
                found.append(path.relative_to(root).as_posix())
                break
    return found


def test_only_the_config_builders_draw_a_seed() -> None:
    assert _calls_of("fresh_seed") == [
        "audit/config.py",
        "latency/config.py",
        "quality/config.py",
        "throughput/config.py",
    ]
