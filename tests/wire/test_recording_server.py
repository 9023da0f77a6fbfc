"""The recording server itself: raw bytes and headers as sent, deterministic answers."""

from __future__ import annotations

import gzip
import json
import urllib.request

import pytest

pytestmark = pytest.mark.timeout(30)


def _post(url: str, data: bytes, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.read(), resp.headers.get("Content-Encoding")


def test_records_raw_bytes_and_headers_in_order(recording_server):
    srv = recording_server(text="Paris.")
    data = json.dumps({"prompt": "é", "max_tokens": 2, "temperature": 0.0}).encode()
    status, body, _ = _post(srv.url + "/invocations", data, {"Content-Type": "application/json"})
    assert status == 200
    assert json.loads(body)["choices"][0]["text"] == "Paris."
    (rec,) = srv.of("/invocations")
    assert rec.body == data == b'{"prompt": "\\u00e9", "max_tokens": 2, "temperature": 0.0}'
    assert rec.header("content-type") == "application/json"
    assert rec.header(
        "User-Agent",
    ).startswith("Python-urllib/")  # type: ignore[union-attr]
    assert next(k for k, _ in rec.headers) == "Accept-Encoding"  # urllib's own header order


def test_chat_answer_compression_and_responder(recording_server):
    srv = recording_server(text=lambda body: body["messages"][-1]["content"].upper(), compress=True)
    data = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    _, raw, enc = _post(
        srv.url + "/v1/chat/completions", data, {"Accept-Encoding": "gzip", "Content-Type": "x"}
    )
    assert enc == "gzip"
    assert json.loads(gzip.decompress(raw))["choices"][0]["message"]["content"] == "HI"
    from tests.fixtures.recording import Reply

    srv2 = recording_server(
        lambda rec: Reply(200, {"id": "x"}) if rec.path == "/invocations" else None
    )
    _, raw2, enc2 = _post(srv2.url + "/invocations", b"{}", {})
    assert json.loads(raw2) == {"id": "x"} and enc2 is None
