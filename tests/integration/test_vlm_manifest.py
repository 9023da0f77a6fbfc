"""The manifest of ``vlm`` runs: ``vlm run`` on the tiny Qwen3-VL (CPU), ``vlm import`` of
its records, ``vlm latency`` against the simulator, and ``compare`` of two runs.

Three runs of the tiny model (about 15 s each on CPU): two of one configuration from
different folders (the first is the session's plain run, shared with
tests/integration/test_vlm_run.py), and one whose wrapper loads the model in bfloat16 (a
participant's edit).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from harness.cli import main as harness_main
from harness.compare.model import CompareReport
from harness.manifest.model import Manifest, load_manifest
from harness.manifest.weights import folder_headers, weights_id
from tests.fixtures.simulator import SimProcessFactory
from tests.fixtures.tiny_vlm import VLM_RUN_CAPS, WRAPPER_DIR, write_textvqa

pytestmark = pytest.mark.timeout(900)
CAPS = list(VLM_RUN_CAPS)  # the session's plain run's, so that a and a2 are one configuration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def model(tiny_vlm_model: Path) -> Path:
    return tiny_vlm_model


@pytest.fixture(scope="module")
def dataset(tiny_vlm_dataset: Path) -> Path:
    return tiny_vlm_dataset


@pytest.fixture(scope="module")
def runs(
    tiny_vlm_run: Path, model: Path, dataset: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """``a``: the session's plain run (tests/fixtures/tiny_vlm.py); ``a2``: the same
    configuration, the wrapper from another folder of one name; ``b``: the wrapper edited
    to load the model in bfloat16."""
    base = tmp_path_factory.mktemp("vlm-runs")
    copy = base / "elsewhere" / WRAPPER_DIR.name
    shutil.copytree(WRAPPER_DIR, copy)
    edited = base / "edited" / WRAPPER_DIR.name
    shutil.copytree(WRAPPER_DIR, edited)
    source = (edited / "evaluation_wrapper.py").read_text()
    assert "else torch.float32" in source
    (edited / "evaluation_wrapper.py").write_text(
        source.replace("else torch.float32", "else torch.bfloat16")
    )
    out = {"a": tiny_vlm_run}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARNESS_REPO_ROOT", str(ROOT))  # the copies' processor helper (the wrapper)
        for name, wrapper in (("a2", copy), ("b", edited)):
            out[name] = base / name
            argv = ["vlm", "run", "--wrapper-dir", str(wrapper), "--model-path", str(model)]
            argv += ["--dataset-path", str(dataset), "--out", str(out[name]), "--quiet", *CAPS]
            assert harness_main(argv) == 0
    return out


def manifest(folder: Path) -> Manifest:
    m = load_manifest(folder)
    assert m is not None, f"no manifest.json in {folder}"
    return m


def test_vlm_run_writes_what_ran(runs: dict[str, Path], model: Path, dataset: Path) -> None:
    m = manifest(runs["a"])
    s = m.settings
    assert m.taken == "after" and m.url is None
    assert s["model.weights_id"] == weights_id(folder_headers(model))
    assert s["model.path"] == model.name and s["launch.by"] == "harness vlm run"
    assert s["model.dtype"] == "torch.float32" and s["model.device"] == "cpu"
    assert s["system.cuda_available"] is False and "system.torch_version" in s
    assert s["run.answer_tokens"] == 8 and s["run.throughput_tokens"] == 8
    assert m.sources["model"] == "1 safetensors" and m.sources["system_info"] == "result.json"
    text = (runs["a"] / "manifest.json").read_text()
    for where in (model, dataset, WRAPPER_DIR, runs["a"], Path(sys.executable).parent, ROOT):
        assert str(where) not in text, where
    assert "/" not in str(s["launch.argv"])
    # what result.json's system_info says, less its timestamp and free-memory figures
    info = json.loads((runs["a"] / "result.json").read_text())["system_info"]
    assert s["system.python_version"] == info["python_version"]
    assert not any(k.endswith(("timestamp", "memory_available_gb")) for k in s)


def test_two_runs_of_one_configuration_share_a_config_id(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, a2 = manifest(runs["a"]), manifest(runs["a2"])
    assert a.config_id == a2.config_id and a.taken_at != a2.taken_at
    capsys.readouterr()
    assert harness_main(["compare", str(runs["a"]), str(runs["a2"]), "--no-save"]) == 0
    assert f"the same configuration in A and B (config {a.config_id})" in capsys.readouterr().out


def test_compare_shows_the_changed_dtype(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = manifest(runs["a"]), manifest(runs["b"])
    assert a.config_id != b.config_id
    capsys.readouterr()
    assert harness_main(["compare", str(runs["a"]), str(runs["b"]), "--json", "--quiet"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    assert rep.manifest is not None
    assert (rep.manifest.config_a, rep.manifest.config_b) == (a.config_id, b.config_id)
    texts = [c.text for c in rep.manifest.changes]
    digest_a = a.settings["wrapper.evaluation_wrapper_sha256"]
    digest_b = b.settings["wrapper.evaluation_wrapper_sha256"]
    assert texts == [
        "dtype torch.float32 → torch.bfloat16",
        f"evaluation_wrapper_sha256 {digest_a} → {digest_b}",
    ]
    assert harness_main(["compare", str(runs["a"]), str(runs["b"])]) == 0
    out = capsys.readouterr().out
    assert "B: dtype torch.float32 → torch.bfloat16" in out
    assert out.index("B: dtype") < out.index("VLM (paired")  # above the verdicts
    saved = CompareReport.load(runs["b"])
    assert saved.manifest is not None and saved.manifest.changes == rep.manifest.changes


def test_vlm_import_records_the_runner_s_account(
    runs: dict[str, Path], model: Path, tmp_path: Path
) -> None:
    out = tmp_path / "imported"
    argv = ["vlm", "import", str(runs["a"] / "vlm-records.jsonl"), "--out", str(out)]
    assert harness_main([*argv, "--model-path", str(model), "--quiet"]) == 0
    ran, imported = manifest(runs["a"]), manifest(out)
    assert imported.settings["launch.by"] == "harness vlm import"
    # the same run: everything but who launched it and how
    same = {k: v for k, v in ran.settings.items() if not k.startswith("launch.")}
    assert {k: v for k, v in imported.settings.items() if not k.startswith("launch.")} == same


def test_vlm_latency_takes_the_server_s_before_its_first_request(
    sim_process: SimProcessFactory, tmp_path: Path
) -> None:
    sp = sim_process(ttft_ms=2, itl_ms=0, models=("Qwen/Qwen3-VL-2B-Instruct",))
    ds = write_textvqa(tmp_path / "textvqa", n=2, seed=1)
    out = tmp_path / "run"
    argv = ["vlm", "latency", "--url", sp.url, "--dataset-path", str(ds), "--out", str(out)]
    sp.clear_log()
    assert harness_main([*argv, "--quiet", "--throughput-tokens", "4", "--answer-tokens", "4"]) == 0
    m = manifest(out)
    assert m.taken == "before" and m.url == sp.url
    assert m.settings["harness_sim_config.models"] == "Qwen/Qwen3-VL-2B-Instruct"
    paths = [e.path for e in sp.fetch_log()]
    chats = [i for i, p in enumerate(paths) if p == "/v1/chat/completions"]
    gets = [i for i, p in enumerate(paths) if p in ("/version", "/metrics", "/server_info")]
    assert len(chats) == 6 and gets and max(gets) < min(chats)
