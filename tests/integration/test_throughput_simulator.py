"""The sweep against the built-in simulator: request bodies, counts, verification, faults, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.target import Target
from harness.throughput.analysis import build_report
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.core import measure_throughput
from harness.throughput.report import ThroughputReport
from harness.throughput.runner import ThroughputState, run_sweep
from harness.throughput.scoring import SCORE
from harness.tokenizer import load_tokenizer
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)

TOK = load_tokenizer("qwen:Qwen/Qwen3.5-35B-A3B")
PARIS = load_profile("gpumode-paris")


def small(url: str, **kw: object) -> ThroughputConfig:
    base: dict[str, object] = {
        "levels": "1,2,4",
        "requests_per_level": 6,
        "prompt_tokens": 48,
        "max_tokens": 24,
        "seed": 3,
        # the simulator does not serve the grader's model name (the grader would get 404s)
        "model": "Qwen/Qwen3.5-4B",
    }
    overrides = ThroughputOverrides(**{**base, **kw})  # type: ignore[arg-type]
    return from_profile(PARIS, Target(folder=Path("."), url=url), overrides)


async def sweep(cfg: ThroughputConfig) -> tuple[ThroughputState, ThroughputReport]:
    state = ThroughputState()
    await run_sweep(cfg, TOK, state)
    return state, build_report(cfg, state, Provenance(), complete=True)


async def test_official_sweep_sends_the_graders_requests(simulator):
    sim = await simulator(output_tokens=10)
    state, rep = await sweep(small(sim.url))
    chats = [e for e in sim.log if e.path == "/v1/chat/completions"]
    # per level: 2 warm-ups, then 6 timed of which 2 are REPLACED by spot checks
    assert len(chats) == 3 * (2 + 6)
    assert [e.path for e in sim.log].count("/v1/models") == 0  # nothing the grader does not send
    for e in chats:
        assert set(e.body) == {"model", "messages", "max_tokens", "temperature"}  # no top_p
        spot = e.body["messages"][0]["content"].startswith("What is")
        assert e.body["temperature"] == (0.0 if spot else 1.0)
        assert e.body["max_tokens"] == 24 and e.stream is False
    assert state.model == "Qwen/Qwen3.5-4B"
    assert rep.settings["server_models"].startswith("not taken")
    # one prompt list for every level: warm-up prompts[0], prompts[1], then prompts[0..3]
    per_level = [chats[k * 8 : (k + 1) * 8] for k in range(3)]
    prompts = [[e.body["messages"][0]["content"] for e in lv] for lv in per_level]
    for lv in prompts:
        randoms = [p for p in lv[2:] if not p.startswith("What is")]
        assert lv[:2] == randoms[:2] and len(randoms) == 4
        assert randoms == [p for p in prompts[0][2:] if not p.startswith("What is")]
    for lv in rep.levels:
        assert lv.n_requests == 6 and lv.n_ok == 6
        assert lv.output_tokens == 6 * 10 and lv.usage_mismatches == 0
        # verified prompt tokens are counted on the chat-templated prompt
        assert lv.prompt_tokens > 4 * 48 + sum(TOK.count(s.question) for s in lv.spot_checks)
        assert lv.wall_s is not None and lv.wall_s > 0
        assert lv.tok_s == round((lv.prompt_tokens + lv.output_tokens) / lv.wall_s, 2)
        assert lv.finish_reasons == {"stop": 6}
    assert rep.score == pytest.approx(sum(lv.weight * (lv.tok_s or 0) for lv in rep.levels))


async def test_spot_checks_catch_garbage_output(simulator):
    sim = await simulator(output_tokens=10)
    _, rep = await sweep(small(sim.url, mode="strict", levels="2"))
    spots = rep.levels[0].spot_checks
    assert len(spots) == 2 and not any(s.passed for s in spots)
    assert all(s.question.startswith("What is") for s in spots)
    assert rep.passed is False and not rep.spot_checks_passed


async def test_strict_prompts_are_fresh_per_level(simulator):
    sim = await simulator(output_tokens=4)
    await sweep(small(sim.url, mode="strict", levels="1,2", spot_checks=0))
    chats = [e.body["messages"][0]["content"] for e in sim.log if e.path == "/v1/chat/completions"]
    assert len(chats) == 16 and len(set(chats)) == 16


async def test_force_length_makes_outputs_max_tokens_long(simulator):
    sim = await simulator(output_tokens=5)
    _, natural = await sweep(small(sim.url, levels="2", spot_checks=0))
    _, forced = await sweep(small(sim.url, levels="2", spot_checks=0, force_length=True))
    assert natural.levels[0].output_tokens_per_request.max == 5
    assert forced.levels[0].output_tokens_per_request.min == 24
    assert forced.non_official["force_length"] is True
    bodies = [e.body for e in sim.log if e.path == "/v1/chat/completions"]
    assert bodies[-1]["ignore_eos"] is True and bodies[-1]["min_tokens"] == 24


async def test_usage_skew_think_leak_and_errors_are_flagged(simulator):
    sim = await simulator(output_tokens=8, usage_skew=9, think_leak=True, error_rate=0.25, seed=1)
    _, rep = await sweep(small(sim.url, levels="4", requests_per_level=12, spot_checks=0))
    lv = rep.levels[0]
    assert lv.n_failed > 0 and lv.n_ok + lv.n_failed == 12
    # usage 9 above the text: the text cannot tell inflation from skipped special tokens,
    # so official mode (no probe) says so in one note and raises no flag on a guess
    assert lv.usage_unsettled == lv.n_ok and lv.usage_mismatches == 0
    assert len(rep.notes) == 1 and f"{lv.n_ok} c=4 (+9) tokens" in rep.notes[0]
    assert "--usage-probe on" in rep.notes[0]
    assert lv.think_tags == lv.n_ok
    text = "\n".join(f.text for f in rep.flags)
    assert "requests failed (http_status" in text and "contain thinking" in text
    assert "usage-mismatch" not in text


@pytest.mark.parametrize("mode", ["official", "strict"])
async def test_usage_probe_catches_a_skewing_server(simulator, tmp_path: Path, mode: str):
    """After the sweep, one probe asks for the token ids: the simulator lists the truth and
    skews only usage, so the probe disagrees and that is the flag."""
    sim = await simulator(output_tokens=8, usage_skew=5)
    cfg = small(sim.url, mode=mode, levels="2", spot_checks=0, usage_probe="on")
    rep = await measure_throughput(cfg, provenance=Provenance(), folder=tmp_path, tokenizer=TOK)
    probes = [e for e in sim.log if isinstance(e.body, dict) and e.body.get("return_token_ids")]
    # after the sweep (official mode's manifest GETs come after it, docs/manifest.md)
    posts = [e for e in sim.log if e.method == "POST"]
    assert len(probes) == 1 and probes[0].index == posts[-1].index
    [check] = rep.usage_checks
    assert check.result == "disagrees" and check.source == "token_ids"
    assert (check.usage_tokens, check.id_tokens) == (8 + 5, 8)
    probed = [f for f in rep.flags if f.text.startswith("usage-mismatch: usage probe")]
    assert [f.kind for f in probed] == [FlagKind.USAGE_MISMATCH]
    assert rep.notes == []


async def test_truthful_eos_and_special_tokens_raise_no_usage_flag(simulator, tmp_path: Path):
    """vLLM's accounting: the EOS of a 'stop' answer counted, special tokens generated but
    absent from the text. The probe's token ids agree with usage: no flag."""
    sim = await simulator(output_tokens=8, count_eos=True, special_tokens=3)
    cfg = small(sim.url, mode="strict", levels="2", spot_checks=0)
    rep = await measure_throughput(cfg, provenance=Provenance(), folder=tmp_path, tokenizer=TOK)
    lv = rep.levels[0]
    assert lv.usage_unsettled == lv.n_ok == 6  # text 5 tokens, usage 8 + EOS
    [check] = rep.usage_checks
    assert check.result == "agrees" and check.id_tokens == check.usage_tokens == 9
    assert check.special_tokens == 4  # 3 skipped specials + the EOS
    assert not [f for f in rep.flags if f.kind is FlagKind.USAGE_MISMATCH] and rep.notes == []


def test_client_keeps_64_in_flight_against_a_separate_simulator(sim_process, tmp_path: Path):
    """The client is not the bottleneck at c=64: 64 requests in flight, no steady dispatch lag."""
    sp = sim_process(ttft_ms=50, itl_ms=2, output_tokens=100)
    out = tmp_path / "run"
    code = main(
        [
            "throughput",
            "--profile",
            "gpumode-paris",
            "--url",
            sp.url,
            "--mode",
            "strict",
            "--model",
            "sim",
            "--levels",
            "64",
            "--requests-per-level",
            "128",
            "--spot-checks",
            "0",
            "--seed",
            "1",
            "--ready-interval",
            "0.2",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    rep = ThroughputReport.load(out)
    lv = rep.levels[0]
    assert lv.n_ok == 128 and lv.concurrency_max == 64
    # two waves of 64 on a 250 ms request: anything near 2 waves' time means the client kept up
    assert lv.concurrency_mean > 40
    assert lv.dispatch_lag_steady_ms.p50 is not None and lv.dispatch_lag_steady_ms.p50 < 5.0
    # the client's own CPU is a small share of the level's wall time
    assert lv.client_busy is not None and lv.client_busy < 0.5
    assert (out / "throughput.png").stat().st_size > 1000


def test_cli_writes_report_chart_and_json(sim_process, tmp_path: Path, capsys):
    sp = sim_process(output_tokens=6)
    out = tmp_path / "run"
    argv = [
        "throughput",
        "--profile",
        "gpumode-paris",
        "--url",
        sp.url,
        "--levels",
        "1,2",
        "--requests-per-level",
        "3",
        "--prompt-tokens",
        "32",
        "--max-tokens",
        "16",
        "--seed",
        "9",
        "--model",
        "sim",
        "--ready-interval",
        "0.2",
        "--out",
        str(out),
        "--json",
    ]
    assert main(argv) == 0  # official mode: failed spot checks are flagged, not fatal
    payload = json.loads(capsys.readouterr().out)
    assert payload["kind"] == "throughput" and "requests" not in payload
    assert payload["non_official"]["prompt_tokens"] == 32
    rep = ThroughputReport.load(out)
    assert rep.chart == "throughput.png" and (out / "throughput.png").exists()
    assert rep.provenance.seed == 9 and rep.provenance.profile == "gpumode-paris"
    assert [lv.concurrency for lv in rep.levels] == [1, 2]
    assert len(rep.requests) == 2 * (2 + 3)  # 2 of the 3 timed replaced by spot checks
    assert (
        main([*argv[:-1], "--mode", "strict", "--quiet"]) == 1
    )  # strict: spot checks fail the run


def test_cli_bad_input_exits_with_one_line(tmp_path: Path, capsys):
    base = ["throughput", "--profile", "gpumode-paris", "--out", str(tmp_path / "r")]
    assert main(base) == 2
    assert "--url is required" in capsys.readouterr().err
    assert main([*base, "--url", "http://127.0.0.1:9", "--levels", "3"]) == 2
    assert "not a level of this profile" in capsys.readouterr().err
    no_sweep = tmp_path / "nosweep.toml"
    no_sweep.write_text('name = "x"\ntitle = "x"\n[server]\nmodel = "m"\n')
    q = ["throughput", "--profile", str(no_sweep), "--url", "http://127.0.0.1:9"]
    assert main([*q, "--out", str(tmp_path / "q")]) == 2
    assert "no [throughput] section" in capsys.readouterr().err
    # official mode sends no readiness request (the grader's sweep sends none): a port
    # nobody listens on fails at once, by a bare TCP connect
    assert main([*base, "--url", "http://127.0.0.1:9"]) == 3
    assert "nothing accepts connections at 127.0.0.1:9 (connection refused)" in (
        capsys.readouterr().err
    )
    unreachable = [*base, "--url", "http://127.0.0.1:9", "--ready-timeout", "0.3"]
    assert main([*unreachable, "--ready-interval", "0.1", "--mode", "strict"]) == 3
    assert "not ready" in capsys.readouterr().err


def test_unserved_model_is_named_with_the_flag(sim_process, tmp_path: Path, capsys):
    """Every request 404s (the simulator does not serve the profile's model): the report keeps
    the status and the server's answer, the console names the model and --model, and no
    client-bottleneck flag is raised for a level where nothing was served."""
    sp = sim_process(output_tokens=6)  # serves Qwen/Qwen3.5-4B and sim only
    argv = ["throughput", "--profile", "gpumode-paris", "--url", sp.url, "--levels", "1,2"]
    argv += ["--requests-per-level", "3", "--prompt-tokens", "32", "--max-tokens", "8"]
    # official: the profile's model as the grader sends it; strict: a --model not served
    runs = (("official", "Qwen/Qwen3.5-35B-A3B", []), ("strict", "nope", ["--model", "nope"]))
    for mode, model, extra in runs:
        out = tmp_path / mode
        assert main([*argv, *extra, "--mode", mode, "--out", str(out)]) == 3
        console = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
        assert f"The model `{model}` does not exist." in console
        assert (
            f"the server does not serve the model '{model}': pass the name it serves with --model"
        ) in console
        rep = ThroughputReport.load(out)
        assert not [f for f in rep.flags if f.kind == "client_bottleneck"]
        failed = [r for r in rep.requests if not r.ok]
        assert failed and len(failed) == len(rep.requests)
        for r in failed:
            assert r.status == 404 and r.error_body is not None
            assert json.loads(r.error_body)["error"]["message"] == (
                f"The model `{model}` does not exist."
            )


def test_docs_small_example_runs_against_the_simulator(sim_process, tmp_path: Path):
    """docs/throughput.md's small example, against the simulator it names."""
    sp = sim_process(models=("Qwen/Qwen3.5-35B-A3B",), ttft_ms=5, itl_ms=0.2)
    argv = ["throughput", "--profile", "gpumode-paris", "--url", sp.url, "--levels", "1,2,4"]
    argv += ["--requests-per-level", "8", "--prompt-tokens", "256", "--max-tokens", "64"]
    assert main([*argv, "--out", str(tmp_path / "run"), "--quiet"]) == 0
    rep = ThroughputReport.load(tmp_path / "run")
    assert [lv.n_ok for lv in rep.levels] == [8, 8, 8]


def test_a_paris_sweep_says_its_score_is_zero_unless_gsm8k_passes(sim_process, tmp_path: Path):
    """Standalone, the sweep says the grader scores 0 unless GSM8K passes and how to measure
    it; the simulator's answers fail every spot check, said in one line (issue 47, item 2)."""
    sp = sim_process(models=("Qwen/Qwen3.5-35B-A3B",), ttft_ms=1, itl_ms=0.1)
    out = tmp_path / "run"
    argv = ["throughput", "--profile", "gpumode-paris", "--url", sp.url, "--levels", "1,2,4"]
    argv += ["--requests-per-level", "4", "--prompt-tokens", "64", "--max-tokens", "8"]
    answer = run_harness([*argv, "--out", str(out)], reports=tmp_path / "reports")
    assert answer.rc == 0, answer.stderr
    shown = " ".join(answer.stdout.split())  # the console folds long lines at its width
    rep = ThroughputReport.load(out)
    assert f"score {SCORE.text(rep.score)} (weighted tok/s) (measured levels only)" in shown
    assert rep.score_gate == (
        "the grader scores 0 unless gsm8k passes score.py's gate (exact_match,strict-match ≥"
        f" 0.85), which this sweep does not measure: harness quality --url {sp.url} --profile"
        f" gpumode-paris --out {out}, then harness gate {out} (or the whole gate: harness"
        f" gate --url {sp.url} --profile gpumode-paris)"
    )
    assert rep.score_gate in shown
    (spots,) = [f.text for f in rep.flags if f.kind is FlagKind.SPOT_CHECK]
    assert spots.startswith("6 of 6 spot checks failed (every level; garbage output under load?)")
    assert shown.count("spot check") == 1  # one line, not one per check
