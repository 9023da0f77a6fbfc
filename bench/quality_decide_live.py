"""``harness quality --decide`` against a live server: documents asked, wall time and scores
beside the full run's (docs/quality.md, "Measured").

Writes a data folder from ``tasks/samples`` rows repeated with distinct question texts
(``--per-subject`` MMLU-Pro questions per subject, 3× that many IFEval prompts, 2× GPQA
questions), starts the server, then runs ``harness quality --limit 1.0 --max-gen-toks
32`` three times: ``--decide`` into a folder, again without it into the same folder
(which asks only the documents left), and a fresh full run. Prints one line per
benchmark and run; the server is stopped by its process id at the end.

    python bench/quality_decide_live.py --server simulator [--per-subject 40]
    python bench/quality_decide_live.py --server reference [--per-subject 10]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from tests.fixtures.quality_variants import write_variant_data


def quality(url: str, data: Path, out: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "harness", "quality", "--url", url, "--data-dir", str(data)]
    cmd += ["--limit", "1.0", "--max-gen-toks", "32", "--quiet", "--json", "--out", str(out)]
    started = time.perf_counter()
    done = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=3000)
    report = json.loads(done.stdout)
    label = " ".join(extra) or "(no --decide, same folder)"
    print(f"== {out.name} {label}: exit {done.returncode}, {time.perf_counter() - started:.0f} s")
    for b in report["benchmarks"]:
        d = b["decide"]
        line = f"   {b['name']:<13} asked {b['requests'] - b['cached']:>4} of {b['n']:>4}"
        line += f"  {b['wall_s']:6.1f} s  score {b['score']:.4f}"
        if d:
            line += (
                f"  decide {d['asked']}/{d['total']} {d['decision']} ({d['settled_by']}, risk "
                f"{d['risk']:.2g}) projected {d['projected']:.4f} "
                f"[{d['ci_low']:.4f}, {d['ci_high']:.4f}]"
            )
        print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--server", choices=("simulator", "reference"), default="simulator")
    p.add_argument("--per-subject", type=int, help="MMLU-Pro per subject (default 40 / 10)")
    p.add_argument("--seed", type=int, default=11, help="--decide order seed (default: 11)")
    args = p.parse_args(argv)
    per = args.per_subject or (40 if args.server == "simulator" else 10)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_variant_data(work / "data", per_subject=per, ifeval=3 * per, gpqa=2 * per)
        if args.server == "simulator":
            server: Any = SimProcess(SimConfig(ttft_ms=200, itl_ms=20)).start()
            url = server.url
        else:
            from reference_server.build_test_model import ensure_test_model
            from reference_server.launch import ServerProcess

            server = ServerProcess.start(
                recipe="cpu", model_dir=ensure_test_model(), port=0, log_path=work / "server.log"
            )
            server.wait_ready(timeout_s=400)
            url = server.url
        try:
            urllib.request.urlopen(url + "/ping", timeout=10).close()
            quality(url, work / "data", work / "decide", "--decide", "--seed", str(args.seed))
            quality(url, work / "data", work / "decide")
            quality(url, work / "data", work / "full", "--fresh")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
