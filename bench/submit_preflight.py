"""Submit pre-flight: seconds per GB to prove an image.tar.gz before any organiser call.

Builds a saved image (docker layout) of about ``--mb`` MB compressed, made like a
real one: a layer of many small files (a Python environment's worth) and a layer
of bf16 weights drawn like a checkpoint (so it compresses like one), gzip'd the
way `harness package` does it (pigz -1 when installed, else zlib level 1). Then
times, in the same run, interleaved (``--repeat`` each, medians reported):

- pre-flight: `harness submit`'s `verify_archive` (gzip to every trailer, the tar,
  manifest, config and layers, the sha256 and MD5 in the same read, package.json's
  sha256 compared);
- hash only: the same with `--skip-archive-check` (sha256 + MD5, no inspection).

The file is read from the page cache after the first run (it fits in memory), so
the figures are the CPU cost; a cold disk adds its own read time.

Usage: .venv/bin/python bench/submit_preflight.py [--mb 1024] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.image.config import PackageOverrides, from_profile
from harness.image.core import build_report
from harness.profiles import load_profile
from harness.submit.preflight import verify_archive
from harness.target import Target


def _safetensors_header() -> bytes:
    """A valid safetensors file: one 64x64 bf16 tensor of zeros."""
    header = json.dumps({"w": {"dtype": "BF16", "shape": [64, 64], "data_offsets": [0, 8192]}})
    raw = header.encode() + b" " * (-len(header) % 8)
    return len(raw).to_bytes(8, "little") + raw + bytes(8192)


def _weights(mb: int) -> Iterator[bytes]:
    """bf16 normal(0, 0.02) values, the top half of float32: compresses like real weights."""
    rng = np.random.default_rng(0)
    left = mb * 1024 * 1024 // 2
    while left > 0:
        n = min(left, 8 * 1024 * 1024)
        f32 = rng.normal(0.0, 0.02, n).astype(np.float32)
        yield (f32.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        left -= n


def _add(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def _small_files_layer(path: Path, count: int) -> None:
    rng = np.random.default_rng(1)
    words = [f"token{i}".encode() for i in range(4000)]
    with tarfile.open(path, "w") as tar:
        _add(tar, "bin/serve", b"#!/bin/sh\nexec python -m server\n", 0o755)
        for i in range(count):
            n = int(rng.integers(50, 2000))
            text = b" ".join(words[j] for j in rng.integers(0, len(words), n))
            _add(tar, f"usr/lib/python3/site-packages/pkg{i // 100}/mod{i}.py", text)


def _weights_layer(path: Path, mb: int) -> None:
    tmp = path.with_suffix(".bin")
    with tmp.open("wb") as fh:
        for block in _weights(mb):
            fh.write(block)
    with tarfile.open(path, "w") as tar:
        _add(tar, "opt/ml/model/config.json", b'{"model_type": "qwen3_5"}')
        _add(tar, "opt/ml/model/model.safetensors", _safetensors_header())
        tar.add(tmp, "opt/ml/model/weights.bin")
    tmp.unlink()


def _gzip_to(path: Path) -> IO[bytes]:
    if shutil.which("pigz"):
        proc = subprocess.Popen(["pigz", "-1", "-c"], stdin=subprocess.PIPE, stdout=path.open("wb"))
        assert proc.stdin is not None
        return _Piped(proc)
    return _Zlib(path.open("wb"))


class _Piped(io.RawIOBase):
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        assert self.proc.stdin is not None
        self.proc.stdin.write(b)
        return len(b)

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
            self.proc.wait()
        super().close()


class _Zlib(io.RawIOBase):
    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.comp = zlib.compressobj(1, zlib.DEFLATED, 31)

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        self.fh.write(self.comp.compress(b))
        return len(b)

    def close(self) -> None:
        if not self.fh.closed:
            self.fh.write(self.comp.flush())
            self.fh.close()
        super().close()


def build(work: Path, mb: int, env: list[str]) -> Path:
    """A saved image that passes the package rules (``env``: the profile's offline variables)."""
    small, weights = work / "small.tar", work / "weights.tar"
    _small_files_layer(small, 20_000)
    _weights_layer(weights, mb)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Entrypoint": ["/bin/serve"], "ExposedPorts": {"8080/tcp": {}}, "Env": env},
    }
    manifest = [
        {
            "Config": "config.json",
            "RepoTags": ["bench/x:1"],
            "Layers": ["a/layer.tar", "b/layer.tar"],
        }
    ]
    archive = work / "pkg" / "image.tar.gz"
    archive.parent.mkdir()
    out = _gzip_to(archive)
    with tarfile.open(fileobj=out, mode="w|") as tar:
        tar.add(small, "a/layer.tar")
        tar.add(weights, "b/layer.tar")
        _add(tar, "config.json", json.dumps(config).encode())
        _add(tar, "manifest.json", json.dumps(manifest).encode())
    out.close()
    small.unlink()
    weights.unlink()
    return archive


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=1024, help="weights in MiB (default 1024)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per method (default 3)")
    ap.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="harness-bench-preflight-"))
    profile = load_profile()
    spec = profile.package
    if spec is None:
        raise SystemExit(f"profile {profile.name} has no [package] section")
    try:
        start = time.perf_counter()
        archive = build(work, args.mb, list(spec.offline_env))
        size = archive.stat().st_size
        print(f"built {size / 1e9:.2f} GB in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        # package.json beside it, as `harness package --archive` writes it
        cfg = from_profile(profile, Target(folder=work), PackageOverrides(archive=archive))
        build_report(cfg, None).save(archive.parent)
        runs: dict[str, list[tuple[float, float]]] = {"pre-flight": [], "hash only": []}
        for _ in range(args.repeat):
            for name, skip in (("pre-flight", False), ("hash only", True)):
                t0, c0 = time.perf_counter(), time.process_time()  # CPU: every thread
                pre = verify_archive(archive, spec, skip_check=skip)
                runs[name].append((time.perf_counter() - t0, time.process_time() - c0))
                assert pre.package_report == "passed"
        gb = size / 1e9
        load = os.getloadavg()[0]
        # CPU seconds do not depend on the machine's load; wall seconds do (2 shared cores)
        print(
            f"{'method':12} {'wall s/GB':>9} {'CPU s/GB':>9}  wall runs (s), load {load:.1f}",
            file=sys.stderr,
        )
        figures = {}
        for name, times in runs.items():
            wall = statistics.median(t for t, _ in times) / gb
            cpu = statistics.median(c for _, c in times) / gb
            figures[name] = {"wall_s_per_gb": round(wall, 2), "cpu_s_per_gb": round(cpu, 2)}
            detail = "/".join(f"{t:.1f}" for t, _ in times)
            print(f"{name:12} {wall:9.2f} {cpu:9.2f}  {detail}", file=sys.stderr)
        if args.json:
            out = {"gb": round(gb, 3), "figures": figures, "load1": load, "cpus": os.cpu_count()}
            sys.stdout.write(json.dumps(out) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
