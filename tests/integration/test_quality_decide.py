"""``harness quality --decide`` against ``harness simulate`` (a separate process), counting
requests at the server: early stops with their record and flag, a later full run that
asks only the documents left, and full-run scores unchanged by the feature.

The data folder is written from ``tasks/samples`` rows (our own) repeated with distinct
question texts (tests/fixtures/quality_variants.py): 14 subjects × 20 MMLU-Pro questions,
60 IFEval prompts and 40 GPQA questions. The simulator answers words, never a letter: MMLU-Pro and GPQA score 0,
IFEval a few instructions (no commas, word counts) right.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.profiles import PROFILES_DIR
from harness.quality.gate_rules import quality_rules
from harness.quality.report import QualityReport
from harness.risk import FlagKind
from tests.fixtures.quality_variants import write_variant_data

pytestmark = pytest.mark.timeout(600)

PER_SUBJECT = 20


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # IFEval's English-case checks call langdetect, unseeded: on the simulator's word salad
    # they flip between two full runs as well, so those prompts are left out here
    out = write_variant_data(
        tmp_path_factory.mktemp("data"),
        per_subject=PER_SUBJECT,
        ifeval=60,
        gpqa=40,
        skip_instructions=("change_case:english", "language:"),
    )
    write_punkt_tab(out / "nltk_data")
    return out


def _quality(url: str, data: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "quality",
            "--url",
            url,
            "--data-dir",
            str(data),
            "--out",
            str(out),
            "--limit",
            "1.0",
            "--max-gen-toks",
            "8",
            "--quiet",
            *extra,
        ]
    )


def _asked(sim) -> list[dict]:
    return [e.body for e in sim.fetch_log() if e.path == "/invocations"]


def test_decide_stops_early_then_a_full_run_asks_only_the_rest(sim_process, tmp_path, data_dir):
    sim = sim_process(ttft_ms=2, itl_ms=0)
    run = tmp_path / "run"
    only = ("--only", "mmlu_pro,ifeval,gpqa_diamond")
    assert _quality(sim.url, data_dir, run, *only, "--decide", "--seed", "7") == 1
    decided = QualityReport.load(run)
    first = _asked(sim)
    assert decided.decide_seed == 7 and not decided.official
    assert decided.non_official["decide"] == {"seed": 7}
    by = {b.name: b for b in decided.benchmarks}
    assert by["mmlu_pro"].decide.total == 14 * PER_SUBJECT and by["ifeval"].decide.total == 60
    assert by["gpqa_diamond"].decide.total == 40
    for b in decided.benchmarks:
        d = b.decide
        assert d is not None and d.stopped_early and d.decision == "fail" and not b.passed
        assert d.asked == b.n == b.requests and b.cached == 0
        assert d.settled_by == "certain" or (d.risk is not None and d.risk < d.alpha)
        assert d.ci_low <= d.projected <= d.ci_high
    assert by["mmlu_pro"].decide.asked < 14 * PER_SUBJECT / 3  # all wrong: settled fast
    assert len(first) == sum(b.decide.asked for b in decided.benchmarks)
    assert all(b["max_tokens"] == 8 for b in first)
    _, flags = quality_rules(decided, ["mmlu_pro", "ifeval", "gpqa_diamond"])
    kinds = [f.kind for f in flags]
    assert kinds.count(FlagKind.ESTIMATE) == 3 and FlagKind.NON_OFFICIAL in kinds

    # the same seed asks the same documents in the same rounds
    sim.clear_log()
    assert _quality(sim.url, data_dir, tmp_path / "again", *only, "--decide", "--seed", "7") == 1
    replay = QualityReport.load(tmp_path / "again")
    assert [b.decide.asked for b in replay.benchmarks] == [
        b.decide.asked for b in decided.benchmarks
    ]
    assert sorted(json.dumps(b, sort_keys=True) for b in _asked(sim)) == sorted(
        json.dumps(b, sort_keys=True) for b in first
    )

    # without --decide, into the same folder: only the documents not asked yet
    sim.clear_log()
    assert _quality(sim.url, data_dir, run, *only) == 1
    full = QualityReport.load(run)
    rest = _asked(sim)
    assert len(rest) == 14 * PER_SUBJECT + 60 + 40 - len(first)
    first_keys = {json.dumps(b, sort_keys=True) for b in first}
    assert not first_keys & {json.dumps(b, sort_keys=True) for b in rest}  # none asked twice
    for b in full.benchmarks:
        assert b.decide is None and b.n == by[b.name].decide.total
        assert b.cached == by[b.name].decide.asked
    assert full.official is False and "decide" not in full.non_official

    # and a fresh full run, with nothing cached, scores exactly the same
    sim.clear_log()
    assert _quality(sim.url, data_dir, tmp_path / "fresh", *only, "--fresh") == 1
    fresh = QualityReport.load(tmp_path / "fresh")
    assert [(b.name, b.score, b.n) for b in fresh.benchmarks] == [
        (b.name, b.score, b.n) for b in full.benchmarks
    ]
    assert len(_asked(sim)) == 14 * PER_SUBJECT + 60 + 40


def test_decide_settles_a_pass_and_a_complete_set_is_scored_as_the_full_run(
    sim_process, tmp_path, data_dir
):
    sim = sim_process(ttft_ms=2, itl_ms=0)
    text = (PROFILES_DIR / "efficient-qwen.toml").read_text()
    assert "threshold = 0.814" in text
    easy = tmp_path / "easy.toml"
    easy.write_text(text.replace("threshold = 0.814", "threshold = 0.05"))
    args = ("--only", "ifeval", "--profile", str(easy))
    assert _quality(sim.url, data_dir, tmp_path / "pass", *args, "--decide", "--seed", "1") == 0
    (ifeval,) = QualityReport.load(tmp_path / "pass").benchmarks
    assert ifeval.passed and ifeval.decide.decision == "pass" and ifeval.decide.stopped_early

    # a threshold at the full set's own score cannot be settled early: every document is
    # asked, and the score is lm-eval's over the full set, as the full run's
    full = QualityReport.load(tmp_path / "pass")
    sim.clear_log()
    assert _quality(sim.url, data_dir, tmp_path / "full", *args) == 0
    score = QualityReport.load(tmp_path / "full").benchmarks[0].score
    assert score is not None and full.benchmarks[0].decide is not None
    tight = tmp_path / "tight.toml"
    tight.write_text(text.replace("threshold = 0.814", f"threshold = {round(score, 4)}"))
    sim.clear_log()
    rc = _quality(
        sim.url, data_dir, tmp_path / "tight", "--only", "ifeval", "--profile", str(tight),
        "--decide", "--seed", "1",
    )  # fmt: skip
    assert rc == 0
    (whole,) = QualityReport.load(tmp_path / "tight").benchmarks
    assert whole.decide.settled_by == "complete" and whole.decide.asked == 60
    assert whole.score == score and whole.n == 60 and whole.requests == 60
    assert len(_asked(sim)) == 60  # the closing full evaluation came from the cache


def test_a_set_no_early_look_can_settle_is_asked_in_one_round(sim_process, tmp_path, capsys):
    """5 GPQA questions fit in one round: asked once, scored once, as the plain run."""
    sim = sim_process(ttft_ms=2, itl_ms=0)
    argv = ["quality", "--url", sim.url, "--data-dir", str(SAMPLES_DIR)]
    argv += ["--out", str(tmp_path / "run"), "--limit", "1.0", "--max-gen-toks", "8"]
    assert main([*argv, "--only", "gpqa_diamond", "--decide", "--seed", "3"]) == 1
    said = capsys.readouterr().out
    assert (
        "GPQA-Diamond: undecided until all 5 documents are answered: asking them in one round"
        in said
    )
    (gpqa,) = QualityReport.load(tmp_path / "run").benchmarks
    assert gpqa.decide is not None and gpqa.decide.settled_by == "complete"
    assert gpqa.decide.looks == 1 and gpqa.decide.asked == gpqa.n == 5
    assert gpqa.requests == 5 and gpqa.cached == 0 and len(_asked(sim)) == 5
