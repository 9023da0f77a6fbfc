"""``harness vlm run`` on the tiny real-shaped Qwen3-VL (CPU), against a replica of the official procedure.

Answer lengths are capped (8 tokens; warm-up 1 sample) in a non-official
setting: a random model never stops, and 1024 tokens cost minutes on CPU.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main as harness_main
from harness.manifest.model import load_manifest
from harness.vlm.report import VlmReport
from tests.fixtures.signals import interruptible
from tests.fixtures.tiny_vlm import TINY_VLM_ROWS, WRAPPER_DIR

REPLICA = Path(__file__).resolve().parents[1] / "fixtures" / "vlm_replica.py"
N = TINY_VLM_ROWS


@pytest.fixture(scope="module")
def model(tiny_vlm_model: Path) -> Path:
    return tiny_vlm_model


@pytest.fixture(scope="module")
def dataset(tiny_vlm_dataset: Path) -> Path:
    return tiny_vlm_dataset


@pytest.fixture(scope="module")
def run_folder(tiny_vlm_run: Path) -> Path:
    """The session's plain run (tests/fixtures/tiny_vlm.py), capped by VLM_RUN_CAPS."""
    return tiny_vlm_run


@pytest.mark.timeout(900)
def test_run_writes_official_result_and_records(run_folder: Path) -> None:
    result = json.loads((run_folder / "result.json").read_text())
    assert set(result) == {"system_info", "performance", "answers"}
    assert set(result["performance"]) == {"avg_ttft_ms", "avg_throughput_tokens_per_sec"}
    assert result["system_info"]["cuda_available"] is False
    assert [a["question_id"] for a in result["answers"]] == [34602, 34603, 34604]
    rep = VlmReport.load(run_folder)
    assert rep.complete and len(rep.samples) == N and rep.counted == N
    assert not rep.official and rep.non_official["answer_tokens"] == 8
    for s in rep.samples:
        assert s.ttft_ms is not None and s.ttft_ms > 0
        assert s.throughput_tokens == 8 and s.answer_tokens == 8
        assert s.visual_tokens and s.image_grid_thw and s.input_tokens
        assert s.processor_ms is not None
        assert s.throughput_prefix_of_answer is True and s.ttft_token_matches is True
    assert rep.accuracy is not None and rep.accuracy.headline == "containment"
    official = rep.score("official")
    assert official is not None and official.score is not None
    assert result["performance"]["avg_ttft_ms"] == rep.avg_ttft_ms


@pytest.mark.timeout(900)
def test_gate_gives_a_verdict_with_score_terms(run_folder: Path) -> None:
    assert harness_main(["gate", str(run_folder), "--profile", "aicas-vlm", "--quiet"]) == 0
    gate = json.loads((run_folder / "gate.json").read_text())
    assert gate["verdict"] == "PASS"
    assert gate["score_name"].startswith("AICAS")
    assert any("score vs official" in r["text"] for r in gate["reasons"])
    assert any("non-official" in f["text"] for f in gate["flags"])


@pytest.mark.timeout(900)
def test_replica_of_the_official_procedure_agrees(
    run_folder: Path, model: Path, dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "replica.json"
    cmd = [sys.executable, str(REPLICA), str(WRAPPER_DIR), str(model), str(dataset), str(out)]
    cmd += ["--warmup-samples", "1", "--throughput-tokens", "8", "--answer-tokens", "8"]
    subprocess.run(cmd, check=True, timeout=900, capture_output=True)
    replica = json.loads(out.read_text())
    ours = json.loads((run_folder / "result.json").read_text())
    assert [a["prediction"] for a in ours["answers"]] == [
        a["prediction"] for a in replica["answers"]
    ]
    # Both measured every sample; how their timings compare is a GPU bench's question
    # (bench/vlm_ttft_pairs.py): on a shared 2-core machine one stalled sample moves a
    # 3-sample mean by 30x, so no speed is asserted here.
    for key in ("avg_ttft_ms", "avg_throughput_tokens_per_sec"):
        assert ours["performance"][key] > 0 and replica["performance"][key] > 0


FAILING_WRAPPER = """
import importlib.util
_spec = importlib.util.spec_from_file_location("base_wrapper", {src!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
_Base = _mod.VLMModel

class _Model:
    def __init__(self, inner):
        self._inner = inner
        self.calls = 0
    def __getattr__(self, name):
        return getattr(self._inner, name)
    def generate(self, **kw):
        self.calls += 1
        if kw.get("max_new_tokens") == 8 and self.calls == 2:
            raise RuntimeError("planted failure in the throughput call")
        return self._inner.generate(**kw)

class VLMModel(_Base):
    def __init__(self, model_path, device=None):
        super().__init__(model_path, device)
        self._wrapped = _Model(self._model)
    @property
    def model(self):
        return self._wrapped
"""


@pytest.mark.timeout(900)
def test_a_failing_sample_is_dropped_like_the_official_script(
    model: Path, dataset: Path, tmp_path: Path
) -> None:
    wrapper = tmp_path / "wrapper"
    wrapper.mkdir()
    (wrapper / "evaluation_wrapper.py").write_text(
        FAILING_WRAPPER.format(src=str(WRAPPER_DIR / "evaluation_wrapper.py"))
    )
    out = tmp_path / "run"
    argv = ["vlm", "run", "--wrapper-dir", str(wrapper), "--model-path", str(model)]
    argv += ["--dataset-path", str(dataset), "--out", str(out), "--quiet", "--num-samples", "2"]
    argv += ["--warmup-samples", "0", "--throughput-tokens", "8", "--answer-tokens", "8"]
    assert harness_main(argv) == 0
    rep = VlmReport.load(out)
    first, second = rep.samples
    assert first.counted is False and first.tok_s == 0.0
    assert first.error is not None and "planted failure" in first.error
    assert first.answer_generated and first.answer_tokens == 8  # the answer is still made
    assert second.counted is True
    assert rep.counted == 1
    assert any("left out of the official averages" in f.text for f in rep.flags)


def test_bad_paths_are_usage_errors(dataset: Path, tmp_path: Path) -> None:
    argv = ["vlm", "run", "--wrapper-dir", str(tmp_path), "--model-path", str(tmp_path)]
    argv += ["--dataset-path", str(dataset), "--out", str(tmp_path / "r"), "--quiet"]
    assert harness_main(argv) == 2
    argv = ["vlm", "run", "--wrapper-dir", str(WRAPPER_DIR), "--model-path", str(tmp_path)]
    argv += ["--dataset-path", str(tmp_path), "--out", str(tmp_path / "r"), "--quiet"]
    assert harness_main(argv) == 2


@pytest.mark.timeout(900)
def test_ctrl_c_keeps_what_was_measured(model: Path, dataset: Path, tmp_path: Path) -> None:
    import os
    import signal
    import time

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "harness", "vlm", "run", "--quiet", "--wrapper-dir",
           str(WRAPPER_DIR), "--model-path", str(model), "--dataset-path", str(dataset),
           "--out", str(out), "--warmup-samples", "0", "--throughput-tokens", "8",
           "--answer-tokens", "400"]  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    # A terminal's Ctrl-C reaches the whole process group: harness and its runner.
    proc = interruptible(cmd, cwd=root, start_new_session=True)
    try:
        records = out / "vlm-records.jsonl"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if records.exists() and '"type": "sample"' in records.read_text():
                break
            assert proc.poll() is None, "the run ended before it was interrupted"
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    rep = VlmReport.load(out)
    assert rep.complete is False
    assert 1 <= len(rep.samples) < N
    assert json.loads((out / "result.json").read_text())["answers"]
    manifest = load_manifest(out)  # what ran is known for the partial run too
    assert manifest is not None and manifest.settings["model.path"] == model.name


def test_tiny_model_is_real_shaped(model: Path) -> None:
    from reference_server.build_test_vlm import load_processor

    proc = load_processor(model)
    tok = proc.tokenizer
    ids = {t: tok.convert_tokens_to_ids(t) for t in ("<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>")}  # fmt: skip
    assert ids == {"<|im_start|>": 151644, "<|im_end|>": 151645, "<|vision_start|>": 151652,
                   "<|vision_end|>": 151653, "<|image_pad|>": 151655}  # fmt: skip
    assert tok.encode("hello world") == [14990, 1879]  # the real Qwen2/3 ranks
    text = proc.apply_chat_template(
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Q?"}]}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert text == (
        "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>Q?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    config = json.loads((model / "config.json").read_text())
    assert config["model_type"] == "qwen3_vl"
    assert config["text_config"]["hidden_size"] == 64


def test_import_with_a_local_baseline(run_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    argv = ["vlm", "import", str(run_folder / "vlm-records.jsonl"), "--out", str(out), "--quiet"]
    argv += ["--baseline", str(run_folder)]
    assert harness_main(argv) == 0
    rep = VlmReport.load(out)
    original = VlmReport.load(run_folder)
    assert rep.avg_ttft_ms == original.avg_ttft_ms
    assert rep.non_official == original.non_official  # read from the runner's own arguments
    local = rep.score("local:")
    assert local is not None and local.baseline_ttft_ms == original.avg_ttft_ms
    # against itself, the TTFT and throughput terms are zero
    assert local.ttft_term == 0.0 and local.throughput_term == 0.0
