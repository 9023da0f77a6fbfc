"""The quality transport against a real server: whose retries hold the concurrency slot, and
headers that keep a compressing server readable."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from harness.quality.transport import Transport, TransportOptions
from tests.fixtures.recording import Recorded, RecordingServer, Reply

pytestmark = pytest.mark.timeout(30)


def _fail_a(rec: Recorded) -> Reply | None:
    body = rec.json()
    return Reply(500, {"error": "no"}) if body["messages"][0]["content"] == "A" else None


def _order(style: str) -> list[str]:
    with RecordingServer(_fail_a, text="ok") as srv:
        transport = Transport(
            TransportOptions(
                url=srv.url + "/invocations",
                fingerprint="t",
                concurrency=1,
                retry_sleeps_s=(0.2, 0.2),
                style=style,  # type: ignore[arg-type]
            )
        )
        items: list[tuple[str, dict[str, Any]]] = [
            (c, {"messages": [{"role": "user", "content": c}], "max_tokens": 1}) for c in "AB"
        ]
        answers = transport.run_all(items)
        order = [json.loads(r.body)["messages"][0]["content"] for r in srv.of("/invocations")]
    assert [a.content for a in answers] == ["", "ok"]
    assert answers[0].attempts == 3 and answers[0].error is not None
    return order


def test_the_grader_lm_sleeps_inside_its_slot() -> None:
    # concurrency 1: B waits while A sleeps between its attempts (a worker thread holds it)
    assert _order("grader-lm") == ["A", "A", "A", "B"]


def test_lm_eval_sleeps_outside_its_semaphore() -> None:
    # tenacity sleeps after the semaphore is released: B goes in between
    assert _order("lm-eval") == ["A", "B", "A", "A"]


def test_a_compressing_server_is_read_because_identity_is_asked() -> None:
    with RecordingServer(text="fine", compress=True) as srv:
        transport = Transport(TransportOptions(url=srv.url + "/invocations", fingerprint="t"))
        body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        (answer,) = asyncio.run(transport.ask_all([("t", body)]))
        (rec,) = srv.of("/invocations")
    assert answer.content == "fine" and answer.error is None
    assert rec.header("Accept-Encoding") == "identity" and rec.header("Connection") == "close"
    assert rec.body == json.dumps(body).encode()


def _slow(rec: Recorded) -> Reply | None:
    return Reply(200, {"choices": [{"message": {"content": "late"}}]}, delay_s=0.6)


def test_the_transports_own_time_limit_unless_the_caller_gives_one() -> None:
    # None (the default): the transport's own limit, here 0.2 s per attempt; a given one wins
    with RecordingServer(_slow) as srv:
        transport = Transport(
            TransportOptions(
                url=srv.url + "/invocations", fingerprint="t", timeout_s=0.2, attempts=1
            )
        )
        body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        (own,) = transport.run_all([("t", body)])
        (given,) = transport.run_all([("t", body)], timeout_s=5.0)
    assert own.error is not None and own.error_kinds == ["timeout"]
    assert given.error is None and given.content == "late"
