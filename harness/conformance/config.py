"""From a profile and the command's options to the checks to run and their one config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.client.urls import http_base_url
from harness.flags import engine as engine_flag
from harness.flags import option, ready_timeout, request_timeout, tokenizer, wait_for_start
from harness.overrides import Overrides
from harness.profiles import Profile
from harness.target import Target

if TYPE_CHECKING:
    from harness.conformance.context import CheckConfig
    from harness.conformance.registry import PlannedCheck


@dataclass(frozen=True)
class CheckOverrides(Overrides):
    """What a user may set for a check run; None: the profile's."""

    COMMAND = "check"

    only: str | None = option(
        "--only",
        help="comma-separated checks or groups to run, e.g. shapes,usage (default: the profile's)",
    )
    skip: str | None = option(
        "--skip", help="comma-separated checks or groups to leave out (default: none)"
    )
    tokenizer: str | None = tokenizer(
        "the tokenizer usage is compared with: qwen:MODEL | tokenizer.json or model folder"
    )
    model: str | None = option(
        "--model", help="model name for chat bodies (default: the graders' name if served)"
    )
    timeout_s: float = request_timeout(300.0)
    ready_timeout_s: float | None = ready_timeout()  # None: the profile's [readiness] timeout_s
    wait_for_start: bool = wait_for_start()
    engine: str | None = engine_flag()


@dataclass(frozen=True)
class CheckPlan:
    """The checks to run, in order, and their one config."""

    cfg: CheckConfig
    planned: tuple[PlannedCheck, ...]


def from_profile(profile: Profile, target: Target, o: CheckOverrides) -> CheckPlan:
    """The checks to run and their config. ``target.url`` may be empty only to list them.
    The checks and their context (the HTTP client) are imported here, when a check is
    planned: reading or judging ``check.json`` needs only the overrides record above."""
    from harness.conformance.context import CheckConfig
    from harness.conformance.registry import required_names, select

    if target.url:
        http_base_url(target.url)
    spec = profile.check
    server = profile.server
    ready_timeout = (
        o.ready_timeout_s if o.ready_timeout_s is not None else profile.readiness.timeout_s
    )
    planned = select(tuple(spec.concurrency), spec.checks, o.only, o.skip)
    long_max = 0
    if profile.latency is not None and profile.latency.buckets:
        longest = max(profile.latency.buckets, key=lambda b: b.prompt_tokens)
        long_max = longest.max_tokens
    cfg = CheckConfig(
        url=target.url.rstrip("/"),
        graders_model=server.model,
        tokenizer=o.tokenizer or server.tokenizer,
        # The long prompt is measured in the graders' tokens, whatever --tokenizer says.
        long_tokenizer=server.tokenizer,
        chat_endpoint=spec.chat_endpoint,
        usage_endpoint=spec.usage_endpoint,
        long_endpoint=spec.long_endpoint,
        ready_path=server.ready_path,
        model=o.model,
        engine=o.engine,
        timeout_s=o.timeout_s,
        ready_timeout_s=ready_timeout,
        ready_interval_s=min(1.0, ready_timeout),
        wait_for_start=o.wait_for_start,
        max_tokens=spec.max_tokens,
        limit_tokens=2 * spec.max_tokens,
        usage_tolerance=spec.usage_tolerance_tokens,
        think_budget=spec.think_budget_tokens,
        long_prompt_tokens=spec.long_prompt_tokens,
        long_bucket_max_tokens=long_max,
        concurrency=tuple(spec.concurrency),
        think_open=server.think_open,
        think_close=server.think_close,
        thinking_off=dict(server.thinking_off),
        thinking_on=dict(server.thinking_on),
        checks=tuple(p.name for p in planned),
        required=required_names(planned, spec.required),
    )
    return CheckPlan(cfg=cfg, planned=tuple(planned))
