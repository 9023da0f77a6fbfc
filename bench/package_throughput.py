"""Package throughput: `harness package`'s save → parallel gzip vs `docker save | gzip`.

Builds a ~1 GB image FROM scratch in a private Podman service (weights drawn
like a real bf16 checkpoint, so they compress like one), then, on the same
image and machine, in the same run:

- baseline: the Engine API's save stream piped through `gzip` (default level 6),
  which is what `docker save IMAGE | gzip > image.tar.gz` does;
- harness: `save_image` (pigz -1 on all cores, or the zlib fallback).

Usage: .venv/bin/python bench/package_throughput.py [--mb 1024] [--repeat 1]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.image.save import save_image
from tests.fixtures.podman import PodmanService, model_files, podman_service


def _weights(path: Path, mb: int) -> None:
    """bf16 normal(0, 0.02) values, the top half of float32: compresses like real weights."""
    rng = np.random.default_rng(0)
    with path.open("wb") as fh:
        left = mb * 1024 * 1024 // 2
        while left > 0:
            n = min(left, 16 * 1024 * 1024)
            f32 = rng.normal(0.0, 0.02, n).astype(np.float32)
            fh.write((f32.view(np.uint32) >> 16).astype(np.uint16).tobytes())
            left -= n


def _build(svc: PodmanService, tag: str, mb: int, work: Path) -> None:
    ctx = work / "ctx"
    ctx.mkdir()
    for i, data in enumerate(model_files().values()):
        (ctx / f"f{i}").write_bytes(data)
    _weights(ctx / "weights.bin", mb)
    lines = [
        "FROM scratch",
        "COPY f0 /opt/ml/model/config.json",
        "COPY f1 /opt/ml/model/model.safetensors",
    ]
    lines += [
        "COPY weights.bin /opt/ml/model/extra-weights.bin",
        "EXPOSE 8080",
        'ENTRYPOINT ["/bin/serve"]',
    ]
    (ctx / "Dockerfile").write_text("\n".join(lines) + "\n")
    svc.client.images.build(path=str(ctx), tag=tag, rm=True)
    shutil.rmtree(ctx)


def _baseline(svc: PodmanService, tag: str, dest: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    read = 0
    with dest.open("wb") as out:
        gz = subprocess.Popen(["gzip", "-c"], stdin=subprocess.PIPE, stdout=out)
        assert gz.stdin is not None
        for chunk in svc.client.images.get(tag).save(chunk_size=4 * 1024 * 1024, named=True):
            gz.stdin.write(chunk)
            read += len(chunk)
        gz.stdin.close()
        gz.wait()
    return time.perf_counter() - start, read, dest.stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=1024, help="weights size in MiB (default 1024)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="harness-bench-pkg-"))
    tag = "harness-bench/pkg:1"
    try:
        with podman_service() as svc:
            t = time.perf_counter()
            _build(svc, tag, args.mb, work)
            print(f"built {tag} ({args.mb} MiB of bf16 weights) in {time.perf_counter() - t:.1f} s")
            rows = []
            for r in range(args.repeat):
                secs, read, size = _baseline(svc, tag, work / "baseline.tar.gz")
                rows.append(("docker save | gzip (-6)", r, secs, read, size))
                (work / "baseline.tar.gz").unlink()
                for comp in ("pigz", "zlib"):
                    if comp == "pigz" and shutil.which("pigz") is None:
                        continue
                    res = save_image(
                        svc.client, tag, work / "image.tar.gz", level=1, compressor=comp
                    )  # type: ignore[arg-type]
                    rows.append(
                        (
                            f"harness package ({res.compressor})",
                            r,
                            res.seconds,
                            res.tar_bytes,
                            res.compressed_bytes,
                        )
                    )
                    with (work / "image.tar.gz").open("rb") as fh:
                        assert hashlib.file_digest(fh, "sha256").hexdigest() == res.sha256
                    (work / "image.tar.gz").unlink()
            base = min(s for name, _, s, _, _ in rows if name.startswith("docker"))
            print(
                f"{'method':38} {'run':>3} {'seconds':>8} {'tar MB':>8} {'gz MB':>8} {'MB/s':>7} {'speedup':>8}"
            )
            for name, r, secs, read, size in rows:
                print(
                    f"{name:38} {r:>3} {secs:8.1f} {read / 1e6:8.0f} {size / 1e6:8.0f} {read / 1e6 / secs:7.1f} {base / secs:7.2f}x"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
