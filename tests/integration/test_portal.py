"""harness portal as a process, and the strict S3 proxy's real-S3 rules."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from harness.cli import main
from harness.submit.core import SubmitReport
from tests.fixtures.archives import write_image_archive
from tests.fixtures.gated import gate_archive
from tests.fixtures.s3 import TEST_API_KEY, PortalFactory
from tests.fixtures.signals import interruptible

pytestmark = pytest.mark.timeout(120)
REPO = Path(__file__).resolve().parents[2]


def test_portal_command_multipart_rehearsal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd = [
        sys.executable, "-m", "harness", "portal", "--port", "0", "--api-key", TEST_API_KEY,
        "--single-max-bytes", "100000", "--part-size", "65536",
    ]  # fmt: skip
    proc = interruptible(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        banner = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "portal on" not in banner:
            banner += proc.stdout.readline()
        match = re.search(r"portal on (http://127\.0\.0\.1:\d+)", banner)
        assert match, banner
        # S3's address and its proxy's, each named as what it is (issue 34)
        s3 = re.search(r"\(S3 at (\S+), reached through a strict proxy at (\S+); bucket ", banner)
        assert s3 and s3.group(1) != s3.group(2), banner
        archive = write_image_archive(tmp_path, 300_000)
        gate_archive(archive, tmp_path / "gates")
        monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path / "gates"))
        monkeypatch.setenv("HARNESS_API_KEY", TEST_API_KEY)
        code = main(
            [
                "submit",
                str(archive),
                "--team",
                "t",
                "--api-url",
                match.group(1),
                "--out",
                str(tmp_path / "run"),
                "--quiet",
            ]
        )
        assert code == 0
        report = SubmitReport.load(tmp_path / "run")
        assert (
            report.upload_type == "multipart" and report.parts_total == 5 and report.submission_id
        )
        monkeypatch.setenv("HARNESS_API_KEY", "not-the-key")
        assert (
            main(
                [
                    "submit",
                    str(archive),
                    "--team",
                    "t",
                    "--api-url",
                    match.group(1),
                    "--out",
                    str(tmp_path / "r2"),
                    "--quiet",
                    "--restart",
                    "--resubmit",
                ]
            )
            == 2
        )
    finally:
        os.kill(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert TEST_API_KEY not in banner + out


async def _presigned_put_url(stack_url: str) -> str:
    async with aiohttp.ClientSession(headers={"x-api-key": TEST_API_KEY}) as s:
        await s.post(stack_url + "/register", json={"team_id": "t"})
        async with s.post(
            stack_url + "/upload-url", json={"team_id": "t", "file_size_bytes": 10}
        ) as resp:
            body = await resp.json()
    assert body["upload_type"] == "single"
    return str(body["upload_url"])


async def test_strict_proxy_rejects_like_real_s3(portal_stack: PortalFactory) -> None:
    stack = portal_stack(single_max_bytes=1000)
    url = await _presigned_put_url(stack.url)
    data = b"0123456789"

    async def chunks():  # no Content-Length: aiohttp sends it chunked
        yield data

    async with aiohttp.ClientSession() as s:
        async with s.put(url, data=chunks()) as resp:
            assert resp.status == 501 and "NotImplemented" in await resp.text()
        md5 = hashlib.md5(data).hexdigest()
        async with s.put(url, data=data, headers={"Content-MD5": md5}) as resp:
            assert resp.status == 403 and "SignatureDoesNotMatch" in await resp.text()
        async with s.put(url, data=data, headers={"x-amz-meta-team": "t"}) as resp:
            assert resp.status == 403
        stack.proxy.clock = lambda: time.time() + 7200  # two hours later: the URL has expired
        async with s.put(url, data=data) as resp:
            assert resp.status == 403 and "AccessDenied" in await resp.text()
        stack.proxy.clock = time.time
        async with s.put(url, data=data, skip_auto_headers=("Content-Type",)) as resp:
            assert resp.status == 200
            assert resp.headers["ETag"].strip('"') == hashlib.md5(data).hexdigest()
    assert [r.outcome for r in stack.proxy.log] == [
        "chunked",
        "unsigned-header",
        "unsigned-header",
        "expired",
        "stored",
    ]


async def test_portal_api_errors(portal_stack: PortalFactory) -> None:
    stack = portal_stack(submissions_per_day=1)
    async with aiohttp.ClientSession() as s:
        async with s.post(stack.url + "/register", json={"team_id": "t"}) as resp:
            assert resp.status == 401
        s.headers["x-api-key"] = TEST_API_KEY
        async with s.post(
            stack.url + "/upload-url", json={"team_id": "nobody", "file_size_bytes": 5}
        ) as resp:
            assert resp.status == 400
        async with s.post(stack.url + "/register", json={}) as resp:
            assert resp.status == 400
        async with s.post(
            stack.url + "/submit", json={"team_id": "t", "s3_key": "missing"}
        ) as resp:
            body = await resp.json()
            assert resp.status == 404 and "no uploaded object" in body["error"]
            assert body["s3_code"] == "NoSuchKey"


@pytest.mark.parametrize(
    ("team", "says"),
    [
        ("", "team id '' is not accepted"),
        ("a b/c", "team id 'a b/c' is not accepted"),
        ("../../etc", "team id '../../etc' is not accepted"),
        ("x" * 65, "is not accepted"),
        (7, "team_id must be a string"),
    ],
)
async def test_portal_refuses_bad_team_ids_before_s3(
    portal_stack: PortalFactory, team: object, says: str
) -> None:
    """Every route that takes a team id answers 400 naming the accepted form; S3 sees nothing."""
    stack = portal_stack()
    bodies = {
        "/register": {"team_id": team},
        "/upload-url": {"team_id": team, "file_size_bytes": 10},
        "/complete-upload": {"team_id": team, "s3_key": "k", "upload_id": "u", "parts": []},
        "/submit": {"team_id": team, "s3_key": "k"},
    }
    async with aiohttp.ClientSession(headers={"x-api-key": TEST_API_KEY}) as s:
        for route, body in bodies.items():
            async with s.post(stack.url + route, json=body) as resp:
                answer = await resp.json()
                assert resp.status == 400, route
                assert says in answer["error"] and answer["field"] == "team_id", answer
                if isinstance(team, str):
                    assert "1 to 64 ASCII letters, digits, '-' or '_'" in answer["error"]
        async with s.post(stack.url + "/register", json={"team_id": "team_A-1"}) as resp:
            assert resp.status == 200
    assert stack.portal.state.teams == {"team_A-1"}
    assert stack.proxy.log == []


async def test_repeated_and_unknown_completion_like_s3(portal_stack: PortalFactory) -> None:
    """A repeated completion: the same 200 for a while, then 404 NoSuchUpload, as for an unknown id."""
    stack = portal_stack(single_max_bytes=1000, part_size=64 * 1024, repeat_complete_s=60)
    data = os.urandom(100_000)  # two parts
    now = [1000.0]
    stack.portal.clock = lambda: now[0]
    async with aiohttp.ClientSession(headers={"x-api-key": TEST_API_KEY}) as s:
        await s.post(stack.url + "/register", json={"team_id": "t"})
        async with s.post(
            stack.url + "/upload-url", json={"team_id": "t", "file_size_bytes": len(data)}
        ) as resp:
            target = await resp.json()
        parts = []
        for p in target["part_urls"]:
            n = p["part_number"]
            chunk = data[(n - 1) * 65536 : n * 65536]
            async with s.put(
                p["upload_url"], data=chunk, skip_auto_headers=("Content-Type",)
            ) as resp:
                assert resp.status == 200
                parts.append({"part_number": n, "etag": resp.headers["ETag"]})
        body = {"team_id": "t", "s3_key": target["s3_key"], "upload_id": target["upload_id"]}

        async def complete(**extra: object) -> tuple[int, dict[str, object]]:
            async with s.post(
                stack.url + "/complete-upload", json={**body, "parts": parts, **extra}
            ) as resp:
                return resp.status, await resp.json()

        first = await complete()
        assert first[0] == 200 and first[1]["completed"]
        now[0] += 59  # within the window: S3 repeats its answer
        assert await complete() == first
        now[0] += 2  # past it: S3 no longer knows the upload id
        status, err = await complete()
        assert status == 404 and err["s3_code"] == "NoSuchUpload"
        status, err = await complete(upload_id="no-such-upload-id")
        assert status == 404 and err["s3_code"] == "NoSuchUpload"
        # S3's other refusals keep S3's status and code: a wrong ETag is InvalidPart.
        async with s.post(
            stack.url + "/upload-url", json={"team_id": "t", "file_size_bytes": len(data)}
        ) as resp:
            fresh = await resp.json()
        bad = [{"part_number": 1, "etag": '"00000000000000000000000000000000"'}]
        async with s.post(
            stack.url + "/complete-upload",
            json={"team_id": "t", "s3_key": fresh["s3_key"], "upload_id": fresh["upload_id"],
                  "parts": bad},
        ) as resp:  # fmt: skip
            assert resp.status == 400 and (await resp.json())["s3_code"] == "InvalidPart"
    assert stack.object_bytes(target["s3_key"]) == data
