"""harness compare on two written VLM run folders (vlm.json): pairs, flips, refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare.model import CompareReport
from harness.vlm.compare import VlmDiff

pytestmark = pytest.mark.timeout(60)


def sample(qid: int, ttft: float, tok_s: float, acc: float, pred: str) -> dict[str, object]:
    return {
        "question_id": qid,
        "ttft_ms": ttft,
        "tok_s": tok_s,
        "counted": True,
        "accuracy_containment": acc,
        "prediction": pred,
        "answers": ["cat"],
    }


def _vlm_run(folder: Path, samples: list[dict[str, object]], mode: str = "http") -> Path:
    folder.mkdir()
    (folder / "vlm.json").write_text(
        json.dumps(
            {
                "kind": "vlm",
                "schema_version": 1,
                "mode": mode,
                "samples_planned": len(samples),
                "non_official": {},
                "provenance": {"profile": "aicas-vlm"},
                "samples": samples,
            }
        )
    )
    return folder


def test_cli_on_vlm_run_folders(tmp_path, capsys):
    a = _vlm_run(tmp_path / "a", [sample(i, 80.0, 50.0, 1.0, "cat") for i in range(4)])
    b = _vlm_run(tmp_path / "b", [sample(i, 80.0, 50.0, float(i != 2), "x") for i in range(4)])
    assert main(["compare", str(a), str(b), "--json", "--quiet", "--no-save"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    vlm = rep.section(VlmDiff)
    assert rep.profile == "aicas-vlm" and vlm is not None
    assert [f.question_id for f in vlm.flipped] == [2]
    assert vlm.ttft.verdict == "within noise"
    c = _vlm_run(tmp_path / "c", [sample(0, 80.0, 50.0, 1.0, "cat")], mode="in-process")
    assert main(["compare", str(a), str(c)]) == 2
    assert "vlm mode: A 'http', B 'in-process'" in capsys.readouterr().err
