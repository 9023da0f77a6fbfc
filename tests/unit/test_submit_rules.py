"""Pure parts of submit: retry decisions, backoff, ETag checks, state file, preflight."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from harness.errors import ConfigError, UsageError, VerdictFailed
from harness.profiles import PackageSpec
from harness.submit.api import ApiRefused, scrub
from harness.submit.pause import PAUSE_ENV, checkpoint
from harness.submit.preflight import read_api_key, verify_archive
from harness.submit.retry import Action, RetryPolicy, classify_status, etag_matches
from harness.submit.state import UploadState, load_state, save_state, state_path
from tests.fixtures.archives import image_archive_bytes


def test_classify_status() -> None:
    assert classify_status(500) is Action.RETRY
    assert classify_status(503) is Action.RETRY
    assert classify_status(429) is Action.RETRY
    assert classify_status(403) is Action.REFRESH
    assert classify_status(400, "<Message>Request has expired</Message>") is Action.REFRESH
    assert classify_status(400, "<Code>InvalidPart</Code>") is Action.FAIL
    assert classify_status(404) is Action.FAIL


def test_backoff_is_bounded_full_jitter() -> None:
    policy = RetryPolicy(base_s=0.5, cap_s=4.0)
    rng = random.Random(0)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (10, 4.0)]:
        values = [policy.backoff_s(attempt, rng) for _ in range(200)]
        assert min(values) >= 0.0 and max(values) <= ceiling
        assert max(values) > ceiling / 2  # jitter spans the range


def test_etag_matches() -> None:
    assert etag_matches('"5d41402abc4b2a76b9719d911017c592"', "5d41402abc4b2a76b9719d911017c592")
    assert etag_matches("5D41402ABC4B2A76B9719D911017C592", "5d41402abc4b2a76b9719d911017c592")
    assert not etag_matches(None, "5d41402abc4b2a76b9719d911017c592")
    assert not etag_matches(
        '"5d41402abc4b2a76b9719d911017c592-2"', "5d41402abc4b2a76b9719d911017c592"
    )


def test_state_roundtrip_and_key(tmp_path: Path) -> None:
    archive = tmp_path / "image.tar.gz"
    path = state_path(archive)
    assert path.name == "image.tar.gz.upload.json"
    state = UploadState(
        file_name="image.tar.gz",
        size=10,
        sha256="ab",
        team_id="t",
        api_url="http://x",
        upload_id="u",
        s3_key="k",
        parts={2: '"e2"', 1: '"e1"'},
    )
    save_state(path, state)
    again = load_state(path)
    assert again is not None and again.parts == {1: '"e1"', 2: '"e2"'}
    assert again.matches(size=10, sha256="ab", team_id="t", api_url="http://x")
    assert not again.matches(size=10, sha256="cd", team_id="t", api_url="http://x")
    path.write_text("{broken")
    assert load_state(path) is None
    again.reset_upload()
    assert again.parts == {} and again.upload_id is None


def test_preflight(tmp_path: Path) -> None:
    spec = PackageSpec(max_compressed_bytes=30_000)
    bad_name = tmp_path / "image.tgz"
    bad_name.write_bytes(b"x")
    with pytest.raises(UsageError, match=r"only accepts 'image\.tar\.gz'"):
        verify_archive(bad_name, spec)
    archive = tmp_path / "image.tar.gz"
    with pytest.raises(UsageError, match="no such file"):
        verify_archive(archive, spec)
    archive.write_bytes(b"x" * 30_001)
    with pytest.raises(VerdictFailed, match="over the 30,000 bytes limit"):
        verify_archive(archive, spec)
    data = image_archive_bytes(20_000, seed=7)
    archive.write_bytes(data)
    seen: list[int] = []
    pre = verify_archive(archive, spec, on_bytes=seen.append)
    assert pre.size == 20_000 and sum(seen) == 20_000
    assert pre.package_report == "absent" and pre.archive_check == "passed"
    assert pre.layout == "docker" and pre.warnings
    assert pre.md5 == hashlib.md5(data, usedforsecurity=False).hexdigest()
    assert pre.sha256 == hashlib.sha256(data).hexdigest()
    # not an archive: refused, unless the check is skipped (then only hashed)
    archive.write_bytes(b"x" * 100)
    with pytest.raises(VerdictFailed, match="not a readable image archive"):
        verify_archive(archive, spec)
    pre = verify_archive(archive, spec, skip_check=True)
    assert pre.archive_check == "skipped" and pre.layout is None
    assert pre.sha256 == "09ecb6ebc8bcefc733f6f2ec44f791abeed6a99edf0cc31519637898aebd52d8"
    assert any("--skip-archive-check" in w for w in pre.warnings)


def test_api_key_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    monkeypatch.delenv("HARNESS_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="no API key"):
        read_api_key(None, warnings.append)
    monkeypatch.setenv("HARNESS_API_KEY", " k1 ")
    assert read_api_key(None, warnings.append) == "k1"
    f = tmp_path / "key"
    f.write_text("k2\n")
    f.chmod(0o600)
    assert read_api_key(str(f), warnings.append) == "k2" and warnings == []
    f.chmod(0o640)
    read_api_key(str(f), warnings.append)
    assert warnings and "k2" not in warnings[0]
    assert scrub("echo k2 back", "k2") == "echo *** back"


def test_state_intents_and_durable_write(tmp_path: Path) -> None:
    path = state_path(tmp_path / "image.tar.gz")
    # A version-1 file (before the intents) reads as "neither requested".
    path.write_text(
        '{"schema_version": 1, "file_name": "image.tar.gz", "size": 10, "sha256": "ab",'
        ' "team_id": "t", "api_url": "http://x", "upload_id": "u", "num_parts": 2,'
        ' "parts": {"1": "e1", "2": "e2"}}'
    )
    old = load_state(path)
    assert old is not None and not old.complete_requested and not old.submit_requested
    assert old.all_parts_confirmed()
    old.complete_requested = old.submit_requested = True
    save_state(path, old)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left behind
    again = load_state(path)
    assert again is not None and again.complete_requested and again.submit_requested
    again.reset_upload()
    assert not (again.complete_requested or again.submit_requested or again.parts)
    assert not again.all_parts_confirmed()


def test_api_refusal_kinds() -> None:
    gone = ApiRefused("x", status=404, body='{"error": "...", "s3_code": "NoSuchUpload"}')
    assert gone.names("NoSuchUpload") and not gone.object_missing()
    missing = ApiRefused("x", status=404, body='{"error": "no uploaded object at k"}')
    assert missing.object_missing()
    assert ApiRefused("x", status=400, body="<Code>NoSuchKey</Code>").object_missing()
    assert not ApiRefused("x", status=400, body='{"error": "InvalidPart"}').object_missing()


def test_pause_checkpoint_passes_unless_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PAUSE_ENV, raising=False)
    checkpoint("completed")  # unset: returns at once
    monkeypatch.setenv(PAUSE_ENV, "submitted")
    checkpoint("completed")  # another phase: returns
    monkeypatch.setenv(PAUSE_ENV, "part-confirmed:1000")
    checkpoint("part-confirmed")  # not yet the 1000th time: returns
