"""One hooks base (harness/hooks.py): every kind's hooks class derives from it, and the shared
no-op callbacks are written there once."""

from __future__ import annotations

from pathlib import Path

from harness.client.readiness import ReadyResult
from harness.hooks import ReadinessHooks, RunHooks, ServerHooks
from harness.registry import KINDS

BASES = (RunHooks, ReadinessHooks, ServerHooks)
SHARED = {name for base in BASES for name in vars(base) if not name.startswith("_")}


def test_the_shared_callbacks_are_the_ones_every_waiting_core_calls() -> None:
    assert {"partial", "attempt", "waiting", "ready", "measuring"} == SHARED


def test_every_kinds_hooks_derive_from_the_base_and_repeat_none_of_it() -> None:
    for kind in KINDS:
        cls = type(kind.no_hooks)
        assert isinstance(kind.no_hooks, RunHooks), kind.name
        inherited = {n for base in cls.__mro__[1:] if base in BASES for n in vars(base)}
        repeated = {n for n in vars(cls) if not n.startswith("_")} & inherited
        assert not repeated, f"{cls.__name__} repeats {repeated}"


def test_the_kinds_that_poll_a_server_get_the_readiness_callbacks() -> None:
    by_name = {kind.name: kind.no_hooks for kind in KINDS}
    assert {n for n, h in by_name.items() if isinstance(h, ServerHooks)} == {
        "latency",
        "throughput",
        "quality",
        "audit",
    }
    assert {n for n, h in by_name.items() if isinstance(h, ReadinessHooks)} == {
        "check",
        "latency",
        "throughput",
        "quality",
        "audit",
    }


def test_the_base_callbacks_do_nothing_and_return_nothing() -> None:
    hooks = ServerHooks()
    result = ReadyResult(
        url="http://127.0.0.1:1/ping", ready=True, elapsed_s=0.0, attempts=1, last="200"
    )
    calls = [
        hooks.waiting("http://127.0.0.1:1/ping"),
        hooks.attempt(1, 0.5, "connection refused"),
        hooks.ready(result),
        hooks.measuring(True),
        hooks.partial(Path("latency.json")),
    ]
    assert calls == [None] * 5
