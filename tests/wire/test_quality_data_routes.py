"""The grader's data route (lm-eval's own tasks on the HF datasets cache) and the JSON Lines
folder give the same documents in the same order, the same GPQA choice shuffle, the same
request bytes and the same scores. Runs in a fresh process: ``datasets`` reads HF_HOME and
the offline switches at import (tests/wire/hf_routes.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.data.layout import REPO_ROOT

pytestmark = pytest.mark.timeout(420)


def test_hf_cache_and_jsonl_routes_give_the_same_requests(tmp_path: Path) -> None:
    out = tmp_path / "routes.json"
    env = {
        **os.environ,
        "HF_HOME": str(tmp_path / "hf_home"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
    }
    env.pop("HF_DATASETS_CACHE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.wire.hf_routes", str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    hf, jsonl = result["hf-cache"], result["jsonl"]
    assert (hf["route"], jsonl["route"]) == ("hf-cache", "jsonl")
    assert hf["bodies"] and hf["bodies"] == jsonl["bodies"]  # every request, byte for byte
    for name in ("mmlu_pro", "ifeval", "gpqa_diamond"):
        assert hf[name]["docs"], name
        assert hf[name]["docs"] == jsonl[name]["docs"], name  # documents, order, prompts, targets
        assert hf[name]["score"] == jsonl[name]["score"], name
    # the GPQA prompts carry the shuffled choices: equal prompts mean the same shuffle
    assert all("(A)" in doc[2] for doc in hf["gpqa_diamond"]["docs"])
