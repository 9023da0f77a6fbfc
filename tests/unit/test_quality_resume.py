"""The answer cache reuses answers only from the server that gave them: identities, the
line that says why answers are set aside, and the cache file's scope."""

from __future__ import annotations

from pathlib import Path

from harness.client.metrics import MetricsSnapshot, parse_exposition
from harness.provenance import ServerFingerprint
from harness.quality.identity import ServerIdentity, changes, identity_of, not_asked
from harness.quality.resume import CACHE_FILE, open_answers, set_aside_line
from harness.simulate.metrics import SimCounters, exposition

URL = "http://127.0.0.1:8080/invocations"
FP = ServerFingerprint(engine="vllm", version="0.32.0", models=["Qwen/Qwen3.5-4B"])


def _identity(started: float | None = 1764140000.5, fp: ServerFingerprint = FP) -> ServerIdentity:
    metrics = MetricsSnapshot(
        values={} if started is None else {"process_start_time_seconds": started}
    )
    return identity_of(URL, "Qwen/Qwen3.5-4B", fp, metrics)


def test_identity_from_what_the_server_told() -> None:
    ident = _identity()
    assert ident == ServerIdentity(
        url=URL,
        model="Qwen/Qwen3.5-4B",
        taken=True,
        engine="vllm",
        version="0.32.0",
        models=("Qwen/Qwen3.5-4B",),
        started_at=1764140000.5,
    )
    assert ServerIdentity.from_key(ident.key()) == ident
    assert ServerIdentity.from_key("http://x|model") is None  # an older harness's label
    assert ident.label() == (
        f"{URL} · vllm 0.32.0 · serves Qwen/Qwen3.5-4B · process started 2025-11-26 06:53:20 UTC"
    )
    assert identity_of(URL, "m", ServerFingerprint(), None).started_at is None


def test_changes_in_words() -> None:
    assert changes(_identity(), _identity()) == []
    assert changes(_identity(), _identity(1764140100.0)) == [
        "process started 2025-11-26 06:53:20 UTC, now 2025-11-26 06:55:00 UTC"
    ]
    other = ServerFingerprint(engine="vllm", version="0.33.0", models=["Qwen/Qwen3.5-4B"])
    assert changes(_identity(), _identity(fp=other)) == ["version 0.32.0 → 0.33.0"]
    assert changes(not_asked(URL, "m"), _identity()) == [
        "the cached answers do not say which server process gave them"
    ]


def test_the_set_aside_line() -> None:
    assert set_aside_line("http://h:1", _identity(), _identity()) is None
    assert set_aside_line("http://h:1", _identity(), _identity(1764140100.0)) == (
        "the server at http://h:1 restarted since the cached answers (process started "
        "2025-11-26 06:53:20 UTC, now 2025-11-26 06:55:00 UTC): asking again; "
        "--resume-answers to reuse"
    )
    other = ServerFingerprint(engine="sglang", version="1", models=["Qwen/Qwen3.5-4B"])
    assert set_aside_line("http://h:1", _identity(), _identity(fp=other)) == (
        "the server at http://h:1 is not the server that gave the cached answers "
        "(engine vllm → sglang; version 0.32.0 → 1): asking again; --resume-answers to reuse"
    )
    assert set_aside_line("http://h:1", None, _identity()) == (
        "the cached answers were stored without a server identity (an older harness): asking again"
    )


def _open(folder: Path, ident: ServerIdentity, **kw: bool) -> tuple[list[str], str]:
    said: list[str] = []
    opts = {"fresh": False, "reuse_any": False, **kw}
    cache = open_answers(folder, "http://h:1", ident, say=said.append, **opts)
    scope = cache.scope
    cache.put("k", {"content": "x"})
    cache.close()
    return said, scope


def test_the_cache_is_scoped_to_the_identity_and_keeps_the_rest(tmp_path: Path) -> None:
    first, restarted = _identity(), _identity(1764140100.0)
    said, scope = _open(tmp_path, first)
    assert said == [] and scope == first.key()
    said, scope = _open(tmp_path, first)  # a resume against the same server
    assert said == [] and scope == first.key()
    said, scope = _open(tmp_path, restarted)
    assert scope == restarted.key() and len(said) == 1 and "restarted" in said[0]
    assert (tmp_path / CACHE_FILE).is_file()  # set aside, never deleted
    said, scope = _open(tmp_path, first, reuse_any=True)  # the last identity's answers
    assert scope == restarted.key()
    assert said == [f"reusing the answers cached for {restarted.label()} (--resume-answers)"]


def test_fresh_empties_the_cache(tmp_path: Path) -> None:
    _open(tmp_path, _identity())
    said, _ = _open(tmp_path, _identity(1764140100.0), fresh=True)
    assert said == []  # nothing left to set aside


def test_the_simulator_publishes_its_start_time() -> None:
    text = exposition(SimCounters(), "m", started_at=1764140000.25)
    snap = parse_exposition(text)
    assert snap.values["process_start_time_seconds"] == 1764140000.25
    assert (
        "process_start_time_seconds" not in parse_exposition(exposition(SimCounters(), "m")).values
    )


def test_a_server_without_a_start_time_is_told_apart_by_its_configuration() -> None:
    """vLLM with several API server processes exports no process metrics: a restart with
    another configuration still sets the cached answers aside (its *_info labels)."""
    cache_on = (
        'vllm:cache_config_info{block_size="16",enable_prefix_caching="True",engine="0"} 1.0\n'
    )
    cache_off = cache_on.replace('"True"', '"False"')
    other_engine = cache_on.replace('engine="0"', 'engine="1"')

    def ident(text: str) -> ServerIdentity:
        return identity_of(URL, "Qwen/Qwen3.5-4B", FP, parse_exposition(text))

    on, off = ident(cache_on), ident(cache_off)
    assert on.started_at is None and on.config is not None and on.config != off.config
    assert ident(other_engine).config == on.config  # the engine's index is no setting
    assert changes(on, off) == [f"configuration {on.config} → {off.config}"]
    assert changes(on, ident(cache_on)) == []
    assert f"config {on.config}" in on.label()
    assert identity_of(URL, "m", FP, MetricsSnapshot()).config is None
