"""Is the model the grader names served? A server that answers 404 to the grader's
``model`` fails every grader request (Paris: throughput 0 tok/s, GSM8K 0), whatever
else it does right, so this check is required in every profile (docs/check.md).

It passes when ``/v1/models`` lists the profile's ``[server] model``, or, when it does
not, when a minimal chat request naming that model on the graders' chat endpoint is
not answered 404 (a server may ignore the name: the Paris contract allows it), nor
with a web page (HTML: another server on that port, not the model server). A profile
whose grader names no model passes without a request.
"""

from __future__ import annotations

from harness.client.failure import NOT_THE_SERVER, is_web_page
from harness.client.readiness import server_models
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
    answer = f"HTTP {rec.status}" if rec.status else (rec.error.one_line() if rec.error else "-")
    return passed(
        f"model={name!r} is not refused on {path} ({answer}) though /v1/models lists {shown}",
        [listed, ev],
        served=served,
    )
