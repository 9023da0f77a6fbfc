"""Upload throughput: `harness submit`'s parallel multipart vs the spec's one-part-at-a-time loop.

Same file, same local S3 (moto in its own process; the portal in another),
same run, interleaved repeats (medians). Two settings:

- `local`: uploads go straight to moto on 127.0.0.1 (the machine is the limit);
- `wan`: through the S3 proxy with an emulated per-connection bandwidth
  (default 25 MB/s), as one TCP stream to a distant S3 endpoint behaves. This
  is the case parallel parts exist for; the figure is an emulation, say so.

The baseline is the loop in the organiser's instructions: for each part URL,
PUT the part's bytes, keep the ETag, then complete-upload and submit
(`requests`, one part at a time, like a curl loop).

Usage: .venv/bin/python bench/upload_throughput.py [--mb 512] [--part-mb 16] [--wan-mbps 25] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.profiles import PackageSpec, SubmitSpec
from harness.submit.core import SubmitConfig, submit

KEY = "bench-key"


def serve_moto() -> None:
    """Child process: moto's S3 alone (its own interpreter, so its own GIL); prints its URL."""
    from harness.portal.serve import moto_s3

    with moto_s3() as s3_url:
        print(s3_url, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


def serve_portal(s3_url: str, part_size: int, bandwidth_bps: float) -> None:
    """Child process: the portal (+ a bandwidth-limited proxy); prints the portal URL."""
    from harness.portal.app import Portal, PortalConfig
    from harness.portal.s3proxy import Faults, S3Proxy
    from harness.portal.serve import background_app

    with contextlib.ExitStack() as stack:
        endpoint = s3_url
        if bandwidth_bps:
            proxy = S3Proxy(
                upstream=s3_url, strict=True, faults=Faults(bandwidth_bps=bandwidth_bps)
            )
            endpoint = stack.enter_context(background_app(proxy.app))
        portal = Portal(
            PortalConfig(s3_endpoint=endpoint, api_key=KEY, single_max_bytes=1, part_size=part_size)
        )
        portal.ensure_bucket()
        url = stack.enter_context(background_app(portal.app))
        print(url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def child(*args: str) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)


@contextlib.contextmanager
def portal_process(part_size: int, bandwidth_bps: float) -> Iterator[str]:
    with (
        child("--serve-moto") as s3_url,
        child("--serve", s3_url, str(part_size), str(bandwidth_bps)) as url,
    ):
        yield url


def sequential_loop(url: str, path: Path, team: str) -> float:
    """The spec's loop: register, upload-url, PUT each part in turn, complete, submit."""
    h = {"x-api-key": KEY}
    start = time.perf_counter()
    requests.post(
        f"{url}/register", json={"team_id": team}, headers=h, timeout=60
    ).raise_for_status()
    size = path.stat().st_size
    target = requests.post(
        f"{url}/upload-url", json={"team_id": team, "file_size_bytes": size}, headers=h, timeout=60
    ).json()
    parts = []
    with path.open("rb") as fh:
        for p in target["part_urls"]:
            fh.seek((p["part_number"] - 1) * target["part_size"])
            resp = requests.put(p["upload_url"], data=fh.read(target["part_size"]), timeout=600)
            resp.raise_for_status()
            parts.append({"part_number": p["part_number"], "etag": resp.headers["ETag"]})
    body = {
        "team_id": team,
        "s3_key": target["s3_key"],
        "upload_id": target["upload_id"],
        "parts": parts,
    }
    requests.post(f"{url}/complete-upload", json=body, headers=h, timeout=600).raise_for_status()
    sid = requests.post(
        f"{url}/submit", json={"team_id": team, "s3_key": target["s3_key"]}, headers=h, timeout=60
    ).json()
    assert sid.get("submission_id"), sid
    return time.perf_counter() - start


async def harness_upload(url: str, path: Path, team: str, parallel: int) -> float:
    cfg = SubmitConfig(
        archive=path, team_id=team, api_url=url, api_key=KEY, package=PackageSpec(), submit=SubmitSpec(),
        parallel=parallel, restart=True,
        # random bytes, not an image: the upload is measured here, the pre-flight by
        # bench/submit_preflight.py (the hashing is timed, as before)
        skip_archive_check=True,
        # not an image, so no gate verdict can name it; each call submits the file anew
        ungated_ok=True, resubmit=True,
    )  # fmt: skip
    start = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=parallel + 4)) as session:
        report = await submit(cfg, session)
    assert report.submission_id and report.parts_sent == report.parts_total
    return time.perf_counter() - start


def main() -> int:
    if sys.argv[1:2] == ["--serve-moto"]:
        serve_moto()
        return 0
    if sys.argv[1:2] == ["--serve"]:
        serve_portal(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=512, help="file size in MiB (default 512)")
    ap.add_argument("--part-mb", type=int, default=16, help="part size in MiB (default 16)")
    ap.add_argument("--parallel", type=int, default=6)
    ap.add_argument(
        "--repeat", type=int, default=3, help="interleaved runs per method (median reported)"
    )
    ap.add_argument(
        "--wan-mbps",
        type=float,
        default=25.0,
        help="emulated per-connection MB/s for the wan setting",
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="harness-bench-up-"))
    path = work / "image.tar.gz"
    with path.open("wb") as fh:
        for _ in range(args.mb):
            fh.write(os.urandom(1024 * 1024))
    size = path.stat().st_size
    print(
        f"file {size / 1e6:.0f} MB, parts of {args.part_mb} MiB ({-(-size // (args.part_mb << 20))} parts), parallel {args.parallel}"
    )
    print(f"{'setting':8} {'method':42} {'seconds':>8} {'MB/s':>7} {'speedup':>8}")
    try:
        for setting, bw in (("local", 0.0), ("wan", args.wan_mbps * 1e6)):
            with portal_process(args.part_mb << 20, bw) as url:
                # Interleaved repeats: the machine's load drifts; medians of alternating runs are fair.
                base_runs, our_runs = [], []
                for r in range(args.repeat):
                    base_runs.append(sequential_loop(url, path, f"seq{r}"))
                    our_runs.append(
                        asyncio.run(harness_upload(url, path, f"par{r}", args.parallel))
                    )
            base, ours = statistics.median(base_runs), statistics.median(our_runs)
            detail = lambda xs: "/".join(f"{x:.1f}" for x in xs)  # noqa: E731
            print(
                f"{setting:8} {'spec loop (one part at a time)':42} {base:8.1f} {size / 1e6 / base:7.1f} {1.0:7.2f}x  runs {detail(base_runs)}"
            )
            print(
                f"{setting:8} {f'harness submit (--parallel {args.parallel})':42} {ours:8.1f} {size / 1e6 / ours:7.1f} {base / ours:7.2f}x  runs {detail(our_runs)}"
            )
    finally:
        for p in work.iterdir():
            p.unlink()
        work.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
