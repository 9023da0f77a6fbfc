"""Repeat runs against one long-lived caching server: every run draws fresh strict prompts.

The simulator's prefix cache keeps what it saw across runs, like vLLM's. A run that
reused its strict prompts would be served from that cache (its strict figures then
measure the cache); with a fresh seed per run and per repeat none is, and replaying a
seed with ``--seed`` is what makes the cache flag fire.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.latency.config import LatencyConfig
from harness.latency.core import measure_latency, measure_latency_repeats
from harness.latency.report import LatencyReport
from harness.profiles import Bucket, load_profile
from harness.prompts import repeat_seed
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.simulate import SimServer
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config

pytestmark = pytest.mark.timeout(120)

PROFILE = load_profile()
SPEC = PROFILE.require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT = SPEC.bucket("short").model_copy(update={"max_tokens": 4})


def cfg_for(url: str, *, buckets: tuple[Bucket, ...] = (SHORT,), **kw: object) -> LatencyConfig:
    base: dict[str, object] = dict(
        mode="strict", runs=3, warmup=1, calibrate=False, timeout_s=10.0, ready_interval_s=0.1
    )
    return latency_config(url, buckets, **{**base, **kw})


async def run(sim: SimServer, folder: Path, **kw: object) -> LatencyReport:
    return await measure_latency(
        cfg_for(sim.url, **kw), provenance=Provenance(), folder=folder, tokenizer=TOK
    )


def strict_entries(sim: SimServer, since: int = 0) -> list:
    return [e for e in sim.log if e.path == "/v1/completions" and e.index >= since]


async def test_a_second_run_draws_fresh_prompts_and_a_replay_is_flagged(simulator, tmp_path):
    sim = await simulator(prefix_cache=True, prefill_ms_per_token=0.01)
    first = await run(sim, tmp_path / "1")
    mark = sim.log[-1].index + 1
    second = await run(sim, tmp_path / "2")
    s1, s2 = first.provenance.seed, second.provenance.seed
    assert s1 is not None and s2 is not None and s1 != s2
    assert first.settings["seed_source"] == second.settings["seed_source"] == "drawn"
    # the second run's strict prompts were never seen: nothing of them came from the cache
    assert [e.cached_prompt_tokens for e in strict_entries(sim, mark)] == [0] * 4
    for rep in (first, second):
        assert rep.attribution is not None
        item = rep.attribution.get("strict", "short")
        assert item is not None and item.prefix_hit_rate == 0.0
        assert not [f for f in rep.flags if f.kind is FlagKind.STRICT_CACHED]

    # --seed replays the first run exactly: the same bodies, now served from the cache
    mark = sim.log[-1].index + 1
    replay = await run(sim, tmp_path / "3", seed=s1)
    assert replay.settings["seed_source"] == "given"
    first_prompts = [e.body["prompt"] for e in strict_entries(sim)[:4]]  # the first run's
    replayed = strict_entries(sim, mark)
    assert [e.body["prompt"] for e in replayed] == first_prompts
    assert all(e.cached_prompt_tokens > 0 for e in replayed)
    [flag] = [f for f in replay.flags if f.kind is FlagKind.STRICT_CACHED]
    assert "strict short" in flag.text and f"--seed {s1}" in flag.text


async def test_each_repeat_draws_its_own_seed_and_seed_n_replays_them(simulator, tmp_path):
    sim = await simulator(prefix_cache=True)
    cfg = cfg_for(sim.url, seed=41)
    pooled, summary = await measure_latency_repeats(
        cfg, 2, provenance=Provenance(), folder=tmp_path / "a", tokenizer=TOK
    )
    seeds = [41, repeat_seed(41, 2)]
    assert summary.seed == 41 and summary.seeds == seeds and seeds[0] != seeds[1]
    assert pooled.settings["repeat_seeds"] == seeds and pooled.provenance.seed == 41
    for i, seed in enumerate(seeds, start=1):
        rep = LatencyReport.load(tmp_path / "a" / f"repeat-{i}")
        assert rep.provenance.seed == seed and rep.settings["seed_source"] == "given"
    first = [e.body["prompt"] for e in strict_entries(sim)]
    assert len(first) == 8 and len(set(first)) == 8  # repeat 2 shares no prompt with repeat 1
    assert not [f for f in pooled.flags if f.kind is FlagKind.STRICT_CACHED]

    # the same --seed replays both repetitions' prompts; the cache now flags them
    mark = sim.log[-1].index + 1
    again, _ = await measure_latency_repeats(
        cfg, 2, provenance=Provenance(), folder=tmp_path / "b", tokenizer=TOK
    )
    assert [e.body["prompt"] for e in strict_entries(sim, mark)] == first
    cached = [f for f in again.flags if f.kind is FlagKind.STRICT_CACHED]
    assert [f.text.split(":")[0] for f in cached] == ["repeat 1", "repeat 2"]
