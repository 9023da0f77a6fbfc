"""Both data routes in one fresh process (``python -m tests.wire.hf_routes OUT``).

``datasets`` reads ``HF_HOME`` and the offline switches when it is imported, so
this runs in a process whose environment the test sets. It builds a Hugging
Face datasets cache (the processed-arrow layout ``datasets`` reads offline) from
the rows of ``tasks/samples``, then runs ``measure_quality`` twice against a
recording server: once on lm-eval's own task definitions over that cache (the
grader's route), once on the JSON Lines folder of the same rows. It writes, per
route and benchmark, the request bodies and the logged samples (documents in
lm-eval's order, with their rendered prompts and targets) to OUT as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from datasets import Dataset, DatasetInfo, SplitDict, SplitInfo
from datasets.arrow_writer import ArrowWriter

from harness.data.benchmarks import DATASETS
from harness.data.hf_cache import datasets_cache_dir, snake_name
from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.quality.core import measure_quality
from tests.fixtures.recording import RecordingServer
from tests.wire.test_quality_wire import LIMIT, answer_for, quality_config


def _rows(rel: str) -> list[dict[str, Any]]:
    lines = (SAMPLES_DIR / rel).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def build_cache(cache: Path) -> None:
    """One processed dataset per source: ``OWNER___name/CONFIG/0.0.0/HASH/``."""
    for family in ("mmlu_pro", "ifeval", "gpqa"):
        src = DATASETS[family]
        owner, _, name = src.hf_path.rpartition("/")
        snake = snake_name(name)
        folder = cache / f"{owner}___{snake}" / (src.hf_config or "default") / "0.0.0" / "sample"
        folder.mkdir(parents=True)
        splits = SplitDict(dataset_name=snake)
        features = None
        for split, rel in src.files.items():
            ds = Dataset.from_list(_rows(rel), features=features)
            features = ds.features
            with ArrowWriter(path=str(folder / f"{snake}-{split}.arrow")) as writer:
                writer.write_table(ds.data.table)
                n, n_bytes = writer.finalize()
            splits.add(SplitInfo(name=split, num_bytes=n_bytes, num_examples=n, dataset_name=snake))
        info = DatasetInfo(
            features=features,
            config_name=src.hf_config or "default",
            dataset_name=snake,
            splits=splits,
        )
        info.write_to_directory(str(folder))


def run(route: str, folder: Path, nltk: Path) -> dict[str, Any]:
    profile = load_profile("efficient-qwen")
    out: dict[str, Any] = {}
    with RecordingServer(text=answer_for) as srv:
        cfg = quality_config(
            profile,
            srv.url,
            folder,
            route=route,
            data_dir=SAMPLES_DIR,
            nltk_data=nltk,
            limit=LIMIT,
            resume=False,
        )
        report = measure_quality(cfg, provenance=Provenance())
        bodies = sorted(b.decode() for b in srv.bodies("/invocations"))
    out["route"] = report.data_route
    out["bodies"] = bodies
    for b in report.benchmarks:
        lines = (folder / f"samples_{b.name}.jsonl").read_text(encoding="utf-8").splitlines()
        samples = [json.loads(line) for line in lines]
        out[b.name] = {
            "score": b.score,
            "docs": [
                (s.get("task"), s.get("doc_id"), s.get("prompt"), s.get("target")) for s in samples
            ],
        }
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[0])
    work = target.parent
    build_cache(datasets_cache_dir())
    nltk = work / "nltk"
    write_punkt_tab(nltk)
    result = {
        "hf-cache": run("hf-cache", work / "hf", nltk),
        "jsonl": run("jsonl", work / "jsonl", nltk),
    }
    target.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
