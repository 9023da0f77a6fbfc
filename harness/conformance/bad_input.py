"""Bad input gets a 4xx with a JSON error, and the server still answers afterwards.

A 5xx (or a crash) on a client's mistake is what brings a container down in
the middle of an evaluation; a 200 hides the mistake.
"""

from __future__ import annotations

import json
from typing import Any

from harness.conformance.context import CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed
from harness.conformance.rules import json_error
from harness.conformance.shapes import request_failure


def cases(model: str) -> list[tuple[str, str, bytes]]:
    """(what, path, raw body) of each bad request."""

    def js(obj: dict[str, Any]) -> bytes:
        return json.dumps(obj).encode()

    return [
        ("malformed JSON", "/v1/completions", b'{"prompt": "Hello", "max_tokens": 8'),
        ("malformed JSON", "/invocations", b'{"messages": [{"role": "user"'),
        ("missing prompt", "/v1/completions", js({"max_tokens": 8})),
        ("missing messages", "/v1/chat/completions", js({"model": model, "max_tokens": 8})),
        (
            "max_tokens of the wrong type",
            "/v1/completions",
            js({"prompt": "Hello", "max_tokens": "eight"}),
        ),
        (
            "messages of the wrong type",
            "/v1/chat/completions",
            js({"model": model, "messages": "Hello", "max_tokens": 8}),
        ),
        ("negative max_tokens", "/v1/completions", js({"prompt": "Hello", "max_tokens": -1})),
    ]


@check(
    "bad_input",
    group="bad_input",
    title="bad input → 4xx with a JSON error; the server still answers",
    phase="light",
)
async def bad_input(ctx: CheckContext) -> Outcome:
    problems: list[str] = []
    evidence: list[Evidence] = []
    for what, path, raw in cases(ctx.model):
        answer, ev = await ctx.post_raw(path, raw)
        evidence.append(ev)
        status = answer.status
        if status is None:
            problems.append(f"{what} on {path}: no answer ({answer.error})")
        elif not 400 <= status < 500:
            problems.append(f"{what} on {path} → {status}")
        elif json_error(answer.body) is None:
            problems.append(f"{what} on {path} → {status} without a JSON error body")
    rec, ev = await ctx.post("/v1/completions", ctx.completion_body(max_tokens=4))
    evidence.append(ev)
    if not rec.ok:
        problems.append(
            f"afterwards, a good request failed: {request_failure('/v1/completions', rec)}"
        )
    if problems:
        return failed("; ".join(problems), evidence)
    return passed(
        f"{len(evidence) - 1} bad requests → 4xx with JSON errors; then a good one answered",
        evidence,
    )
