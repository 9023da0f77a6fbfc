"""gc_paused: the collector is off inside timed windows and back as it was after."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from harness.client.gc_pause import gc_paused
from harness.client.loop import closed_loop
from harness.client.records import RequestRecord


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_off_inside_and_on_after() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_exception() -> None:
    gc.enable()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_nested_and_already_disabled_stay_disabled() -> None:
    gc.disable()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_closed_loop_runs_with_the_collector_off() -> None:
    """Every request of a closed loop ends while the collector is off (port 9 refuses)."""
    gc.enable()
    seen: list[bool] = []

    def on_done(i: int, rec: RequestRecord) -> None:
        seen.append(gc.isenabled())

    async def go() -> None:
        from harness.client.http import HttpOptions, make_session

        async with make_session(HttpOptions(timeout_s=5.0)) as session:
            await closed_loop(
                session, "http://127.0.0.1:9/x", "/x", [b"{}"] * 4, 2, stream=False, on_done=on_done
            )

    asyncio.run(go())
    assert seen == [False] * 4
    assert gc.isenabled()
