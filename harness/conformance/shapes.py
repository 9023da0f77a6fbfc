"""Response shapes on every endpoint the graders call, and the graders' model name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.client.answered import not_checked
from harness.client.readiness import server_models
from harness.client.records import RequestRecord
from harness.conformance.context import CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed, short, warned
from harness.conformance.rules import chat_shape, completion_shape

CHAT_PATH = "/v1/chat/completions"
# The competition page's own words: a user must read exactly this consequence.
NO_CHAT_ROUTE = "submissions without /v1/chat/completions fail quality evaluation"

Shape = Callable[[Any], tuple[list[str], list[str]]]


def request_failure(path: str, rec: RequestRecord) -> str:
    """One line for a request that did not produce a usable answer."""
    if rec.error is None:
        return f"POST {path}: no answer"
    if rec.status in (404, 405, 501) and path == CHAT_PATH:
        return f"POST {path} answered {rec.status}: {NO_CHAT_ROUTE}"
    if rec.status in (404, 405, 501):
        return f"POST {path} answered {rec.status}: the route is missing"
    if path == CHAT_PATH:
        return f"POST {path} failed: {rec.error.one_line()} ({NO_CHAT_ROUTE})"
    return f"POST {path} failed: {rec.error.one_line()}"


def unanswered(path: str, rec: RequestRecord, evidence: list[Evidence]) -> Outcome:
    """A check whose request failed, where the check looks at something else than the
    answer itself (thinking, sameness): never a finding about that property, a warning
    that it could not be checked, naming the failure (harness/client/answered.py; the
    route's own checks say whether it answers)."""
    return warned(not_checked(request_failure(path, rec)), evidence, answered=False)


def judge_shape(path: str, rec: RequestRecord, ev: Evidence, shape: Shape, field: str) -> Outcome:
    if rec.response is None:
        return failed(request_failure(path, rec), [ev])
    errors, lesser = shape(rec.response)
    if errors:
        return failed(f"POST {path}: {'; '.join(errors)}", [ev])
    answer = short(rec.text)
    if lesser:
        return warned(f"{field} = {answer}, but: {'; '.join(lesser)}", [ev])
    return passed(f"{field} = {answer}", [ev])


@check(
    "invocations_completion",
    group="shapes",
    title="/invocations, completion body → choices[0].text",
    phase="light",
)
async def invocations_completion(ctx: CheckContext) -> Outcome:
    rec, ev = await ctx.post("/invocations", ctx.completion_body())
    return judge_shape("/invocations", rec, ev, completion_shape, "choices[0].text")


@check(
    "invocations_chat",
    group="shapes",
    title="/invocations, chat body → choices[0].message.content",
    phase="light",
)
async def invocations_chat(ctx: CheckContext) -> Outcome:
    rec, ev = await ctx.post("/invocations", ctx.chat_body())
    return judge_shape("/invocations", rec, ev, chat_shape, "choices[0].message.content")


@check("completions", group="shapes", title="/v1/completions shape", phase="light")
async def completions(ctx: CheckContext) -> Outcome:
    rec, ev = await ctx.post("/v1/completions", ctx.completion_body())
    return judge_shape("/v1/completions", rec, ev, completion_shape, "choices[0].text")


@check(
    "chat_completions",
    group="shapes",
    title="/v1/chat/completions: id, object, created, model, message, finish_reason, usage",
    phase="light",
)
async def chat_completions(ctx: CheckContext) -> Outcome:
    rec, ev = await ctx.post(CHAT_PATH, ctx.chat_body())
    if rec.response is not None and _empty_content(rec.response):
        # GPU MODE's eval/check_server.py fails a content that is an empty string
        return failed(
            f"POST {CHAT_PATH}: choices[0].message.content is an empty string "
            "(the Paris check_server needs a non-empty string)",
            [ev],
        )
    return judge_shape(CHAT_PATH, rec, ev, chat_shape, "choices[0].message.content")


def _empty_content(obj: dict[str, Any]) -> bool:
    choices = obj.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    msg = first.get("message") if isinstance(first, dict) else None
    return isinstance(msg, dict) and msg.get("content") == ""


@check(
    "model_name",
    group="shapes",
    title="the graders' model name is accepted",
    phase="light",
    needs=("@chat",),
)
async def model_name(ctx: CheckContext) -> Outcome:
    name = ctx.cfg.graders_model
    path = ctx.cfg.chat_endpoint
    served = await server_models(ctx.session, ctx.cfg.url)
    body = {**ctx.chat_body(), "model": name}
    rec, ev = await ctx.post(path, body)
    evidence = [Evidence(method="GET", path="/v1/models", response=", ".join(served) or "-"), ev]
    if rec.ok:
        listed = "" if not served or name in served else f" (though /v1/models lists {served})"
        return passed(f"model={name!r} accepted on {path}{listed}", evidence, served=served)
    return failed(
        f"the graders send model={name!r}; POST {path} answered {rec.status}: serve the model "
        f"under that name too (vLLM: --served-model-name {name})",
        evidence,
        served=served,
    )
