"""The overhead of ``harness vlm run`` over the official procedure, on the same samples.

Runs, alternately, ``python -m harness vlm run`` (runner script + records +
reports) and a minimal replica of the official procedure
(tests/fixtures/vlm_replica.py) on the tiny Qwen3-VL and the same TextVQA-shaped
rows, each as its own process, and reports the wall-time ratio (whole
processes: start-up, model load, warm-up, three generate calls per sample) and
whether the answers are identical. Caps are non-official so a CPU run is short.

    python bench/vlm_overhead.py [--num-samples 4] [--repeats 2] [--answer-tokens 16]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.tiny_vlm import WRAPPER_DIR, tiny_vlm, write_textvqa  # noqa: E402


def _timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True)
    return time.perf_counter() - t


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-samples", type=int, default=4)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--warmup-samples", type=int, default=1)
    p.add_argument("--throughput-tokens", type=int, default=16)
    p.add_argument("--answer-tokens", type=int, default=16)
    a = p.parse_args()
    model = tiny_vlm()
    caps = ["--warmup-samples", str(a.warmup_samples), "--throughput-tokens",
            str(a.throughput_tokens), "--answer-tokens", str(a.answer_tokens)]  # fmt: skip
    ours: list[float] = []
    theirs: list[float] = []
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        ds = write_textvqa(Path(tmp) / "ds", n=a.num_samples, seed=7)
        for r in range(a.repeats):
            run_dir = Path(tmp) / f"run{r}"
            harness_cmd = [sys.executable, "-m", "harness", "vlm", "run", "--quiet",
                           "--wrapper-dir", str(WRAPPER_DIR), "--model-path", str(model),
                           "--dataset-path", str(ds), "--out", str(run_dir), *caps]  # fmt: skip
            replica_out = Path(tmp) / f"replica{r}.json"
            replica_cmd = [sys.executable, str(ROOT / "tests/fixtures/vlm_replica.py"),
                           str(WRAPPER_DIR), str(model), str(ds), str(replica_out), *caps]  # fmt: skip
            pair = [(harness_cmd, ours), (replica_cmd, theirs)]
            for cmd, sink in pair if r % 2 == 0 else reversed(pair):
                sink.append(_timed(cmd))
            mine = json.loads((run_dir / "result.json").read_text())["answers"]
            rep = json.loads(replica_out.read_text())["answers"]
            same = same and [x["prediction"] for x in mine] == [x["prediction"] for x in rep]
    result = {
        "samples": a.num_samples,
        "repeats": a.repeats,
        "harness_wall_s": [round(x, 2) for x in ours],
        "replica_wall_s": [round(x, 2) for x in theirs],
        "ratio_median": round(statistics.median(ours) / statistics.median(theirs), 3),
        "answers_identical": same,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
