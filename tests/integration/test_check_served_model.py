"""`served_model` against servers that answer something other than the API's JSON (issue 47,
item 7): a plain "OK" on every route, JSON that is no chat completion, a plain-text error
status. None of them is the model server's answer, so none says the grader's model is
served; an error the API writes as JSON (a 400 about a parameter) is still the server's
own answer and passes, as before.

The servers are one tiny aiohttp app of the test's own, on port 0 in a thread: the first
path segment picks its behaviour (``{url}/plain/v1/models`` …), readiness (``/health``)
answers 200 everywhere. ``harness check`` runs in-process (tests/fixtures/wrong_invocation.py).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)


async def _answer(request: web.Request) -> web.Response:
    mode = request.match_info["mode"]
    if request.match_info["tail"] in ("health", "ping"):
        return web.Response(text="OK", content_type="text/plain")
    if mode == "plain":  # the server: "OK" on every route
        return web.Response(text="OK", content_type="text/plain")
    if mode == "status":  # JSON, but no chat completion
        return web.json_response({"status": "ok"})
    if mode == "crash":  # an error status whose body is not JSON
        return web.Response(status=500, text="Internal Server Error", content_type="text/plain")
    # "api": an error written by the API, as a JSON object
    body = {"error": {"message": "max_tokens is too small", "type": "BadRequestError"}}
    return web.json_response(body, status=400)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = web.Application()
    app.router.add_route("*", "/{mode}/{tail:.*}", _answer)
    runner = web.AppRunner(app)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.run_until_complete(runner.cleanup())
    loop.close()


def _served_model(url: str, tmp_path: Path) -> tuple[int, dict[str, object]]:
    argv = ["check", "--url", url, "--profile", "gpumode-paris", "--ready-timeout", "5"]
    argv += ["--only", "readiness,served_model", "--json", "--out", str(tmp_path / "run")]
    answer = run_harness(argv, reports=tmp_path / "reports")
    assert "Traceback" not in answer.stderr
    report = json.loads(answer.stdout)
    row = next(c for c in report["checks"] if c["name"] == "served_model")
    return answer.rc, row


@pytest.mark.parametrize(
    ("mode", "got"),
    [
        ("plain", "HTTP 200 with 'OK', not the API's JSON"),
        ("status", """HTTP 200 with JSON without choices '{"status": "ok"}', not the API's"""),
        ("crash", "HTTP 500 with 'Internal Server Error', not the API's JSON"),
    ],
)
def test_an_answer_that_is_not_the_apis_json_fails_served_model(
    server: str, mode: str, got: str, tmp_path: Path
) -> None:
    rc, row = _served_model(f"{server}/{mode}", tmp_path)
    assert rc == 1, row
    assert row["result"] == "fail"
    assert got in str(row["reason"])
    assert str(row["reason"]).endswith("— check --url and its port")


def test_an_error_the_api_writes_as_json_is_the_servers_own_answer(
    server: str, tmp_path: Path
) -> None:
    rc, row = _served_model(f"{server}/api", tmp_path)
    assert rc == 0 and row["result"] == "pass", row
    assert "is not refused on /v1/chat/completions (HTTP 400)" in str(row["reason"])


def test_the_check_console_names_what_answered(server: str, tmp_path: Path) -> None:
    argv = ["check", "--url", f"{server}/plain", "--profile", "gpumode-paris"]
    argv += ["--only", "readiness,served_model", "--out", str(tmp_path / "run")]
    answer = run_harness(argv, reports=tmp_path / "reports")
    assert answer.rc == 1
    assert "served_model: /v1/chat/completions answers HTTP 200 with 'OK'" in answer.stdout
    assert "Traceback" not in answer.stderr
