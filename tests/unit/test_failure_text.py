"""A failed request in the server's words (harness/client/failure.py), and the flags built on it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from harness.client.failure import EXCERPT, describe, excerpt, hint, server_message
from harness.client.records import ErrorKind, RequestError
from harness.profiles import load_profile
from harness.risk import FlagKind
from harness.stats.summary import Dist
from harness.target import Target
from harness.throughput.analysis import level_flags
from harness.throughput.config import ThroughputOverrides, from_profile
from harness.throughput.report import LevelResult

VLLM_404 = (
    '{"object":"error","message":"The model `Qwen/Qwen3.5-35B-A3B` does not exist.",'
    '"type":"NotFoundError","param":null,"code":404}'
)
OPENAI_404 = '{"error": {"message": "The model `x` does not exist", "code": 404}}'


def test_server_message_reads_the_usual_shapes() -> None:
    assert server_message(VLLM_404) == "The model `Qwen/Qwen3.5-35B-A3B` does not exist."
    assert server_message(OPENAI_404) == "The model `x` does not exist"
    assert server_message('{"detail": "Not Found"}') == "Not Found"
    assert server_message("<html>\n  bad   gateway</html>") == "<html> bad gateway</html>"
    assert server_message("") is None and server_message(None) is None
    assert excerpt(b"x" * 1000) == "x" * EXCERPT


def test_a_404_names_the_model_and_the_flag_or_the_route() -> None:
    assert hint(404, VLLM_404, "Qwen/Qwen3.5-35B-A3B", "/v1/chat/completions") == (
        "the server does not serve the model 'Qwen/Qwen3.5-35B-A3B': pass the name it serves"
        " with --model (GET /v1/models lists them)"
    )
    assert hint(404, '{"detail":"Not Found"}', "m", "/invocations") == (
        "the server has no /invocations route: check --url and the profile's endpoint"
    )
    assert hint(500, VLLM_404, "m", "/x") is None
    # an HTML answer, whatever its status: another server on that port (issue 34)
    for status in (200, 404, 502):
        assert hint(status, "<!DOCTYPE html><html>Not Found</html>", "m", "/invocations") == (
            "this is a web page, not the model server: check --url and its port"
        )
    assert describe(404, "HTTP 404", VLLM_404, model="m", endpoint="/e") == (
        "HTTP 404: The model `Qwen/Qwen3.5-35B-A3B` does not exist. — the server does not"
        " serve the model 'm': pass the name it serves with --model (GET /v1/models lists them)"
    )
    assert describe(None, "connect: refused", None) == "connect: refused"


def _level(n_ok: int, busy: float) -> LevelResult:
    return LevelResult(
        concurrency=2, weight=1.0, n_requests=4, n_ok=n_ok, n_failed=4 - n_ok, wall_s=0.01,
        prompt_tokens=0, output_tokens=0, server_output_tokens=None, tok_s=0.0,
        output_tok_s=None, weighted=0.0, usage_mismatches=0, usage_missing=0, think_tags=0,
        client_busy=busy, dispatch_lag_steady_ms=Dist(n=4, p99=50.0),
    )  # fmt: skip


def test_client_flags_only_when_something_was_served() -> None:
    target = Target(folder=Path("."), url="http://127.0.0.1:1")
    cfg = from_profile(load_profile("gpumode-paris"), target, ThroughputOverrides())
    errors = Counter({"http_status": 4})
    none_served = level_flags(cfg, _level(0, 1.36), errors, "HTTP 404: …")
    assert [f.kind for f in none_served] == [FlagKind.REQUEST_FAILURES]
    assert none_served[0].text == "c=2: 4 of 4 requests failed (http_status ×4); first: HTTP 404: …"
    some_served = level_flags(cfg, _level(1, 1.36), Counter({"http_status": 3}))
    assert [f.kind for f in some_served] == [
        FlagKind.REQUEST_FAILURES,
        FlagKind.CLIENT_BOTTLENECK,
        FlagKind.CLIENT_BOTTLENECK,
    ]


def test_request_error_with_the_servers_answer() -> None:
    err = RequestError(ErrorKind.HTTP_STATUS, "HTTP 404 from /invocations", 404, VLLM_404)
    assert err.with_answer() == (
        "http_status 404: HTTP 404 from /invocations: The model `Qwen/Qwen3.5-35B-A3B` does not exist."
    )
    timeout = RequestError(ErrorKind.TIMEOUT, "timed out: no answer in time")
    assert timeout.with_answer() == timeout.one_line() == "timeout: timed out: no answer in time"
