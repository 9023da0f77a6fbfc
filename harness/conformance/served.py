"""Is the model the grader names served? A server that answers 404 to the grader's
``model`` fails every grader request (Paris: throughput 0 tok/s, GSM8K 0), whatever
else it does right, so this check is required in every profile (docs/check.md).

It passes when ``/v1/models`` lists the profile's ``[server] model``, or, when it does
not, when a minimal chat request naming that model on the graders' chat endpoint is
not answered 404 (a server may ignore the name: the Paris contract allows it), nor with
anything that is not the API's JSON: a web page (HTML: another server on that port), a
plain "OK", a JSON document that is no chat completion, an error status whose body is not
JSON. Such an answer is not the model server's, so it says nothing of the model it serves.
A profile whose grader names no model passes without a request.
"""

from __future__ import annotations

from harness.client.failure import NOT_THE_SERVER, ErrorKind, is_web_page
from harness.client.readiness import server_models
from harness.client.records import RequestRecord
from harness.conformance.context import CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed

PROBE = "Say hello."  # the shortest question the graders' own server check asks


@check(
    "served_model",
    group="served_model",
    title="the model the grader names is served",
    phase="light",
)
async def served_model(ctx: CheckContext) -> Outcome:
    name = ctx.cfg.graders_model
    if not name:
        return passed("the grader names no model: any served model answers it")
    served = await server_models(ctx.session, ctx.cfg.url)
    listed = Evidence(method="GET", path="/v1/models", response=", ".join(served) or "-")
    if name in served:
        return passed(f"/v1/models lists {name!r}", [listed], served=served)
    path = ctx.cfg.chat_endpoint
    body = {**ctx.chat_body(PROBE, max_tokens=1), "model": name}
    rec, ev = await ctx.post(path, body)
    shown = ", ".join(repr(m) for m in served) or "no /v1/models list"
    if rec.status == 404:
        return failed(
            f"the grader sends model={name!r} but the server serves {shown} and answers 404 "
            f"on {path}: serve it under that name too (vLLM: --served-model-name {name})",
            [listed, ev],
            served=served,
            expected=name,
        )
    if rec.error is not None and is_web_page(None, rec.error.body_excerpt):
        status = f"HTTP {rec.status} with " if rec.status else ""
        return failed(
            f"{path} answers {status}a web page (HTML), not the API's JSON: {NOT_THE_SERVER}"
            " — check --url and its port",
            [listed, ev],
            served=served,
            expected=name,
        )
    if (other := not_api_json(rec)) is not None:
        return failed(
            f"{path} answers HTTP {rec.status} with {other}, not the API's JSON: not the model"
            " server's answer (another server on that port, or a proxy in front of it)"
            " — check --url and its port",
            [listed, ev],
            served=served,
            expected=name,
        )
    answer = f"HTTP {rec.status}" if rec.status else (rec.error.one_line() if rec.error else "-")
    return passed(
        f"model={name!r} is not refused on {path} ({answer}) though /v1/models lists {shown}",
        [listed, ev],
        served=served,
    )


def not_api_json(rec: RequestRecord) -> str | None:
    """What a server answered instead of the API's JSON (a chat completion, or an error as
    a JSON object), shown as an excerpt; None when it answered the API's JSON or nothing at
    all (a connection that failed is no answer)."""
    err = rec.error
    if err is None or rec.status is None:
        return None
    body = err.body_excerpt.strip()
    shown = repr(body[:60]) if body else "an empty body"
    if err.kind in (ErrorKind.MALFORMED_JSON, ErrorKind.EMPTY_CHOICES):
        return shown if err.kind is ErrorKind.MALFORMED_JSON else f"JSON without choices {shown}"
    # an error as a JSON object (its excerpt may be cut: its first character tells)
    if err.kind is ErrorKind.HTTP_STATUS and not body.startswith("{"):
        return shown
    return None
