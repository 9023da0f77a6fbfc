"""From a profile and the command's options to the checks to run and their one config."""

from __future__ import annotations

from dataclasses import dataclass

from harness.client.urls import http_base_url
from harness.conformance.context import CheckConfig
from harness.conformance.registry import PlannedCheck, required_names, select
from harness.profiles import Profile


@dataclass(frozen=True)
class CheckOptions:
    """What the user may set on the command line (None: the profile's)."""

    only: str | None = None
    skip: str | None = None
    tokenizer: str | None = None
    model: str | None = None
    timeout_s: float = 300.0
    ready_timeout_s: float | None = None  # None: the profile's [readiness] timeout_s


def plan_run(
    profile: Profile, url: str, opts: CheckOptions
) -> tuple[CheckConfig, list[PlannedCheck]]:
    """The checks to run and their config. ``url`` may be empty only to list the checks."""
    if url:
        http_base_url(url)
    spec = profile.check
    server = profile.server
    ready_timeout = (
        opts.ready_timeout_s if opts.ready_timeout_s is not None else profile.readiness.timeout_s
    )
    planned = select(tuple(spec.concurrency), spec.checks, opts.only, opts.skip)
    long_max = 0
    if profile.latency is not None and profile.latency.buckets:
        longest = max(profile.latency.buckets, key=lambda b: b.prompt_tokens)
        long_max = longest.max_tokens
    cfg = CheckConfig(
        url=url.rstrip("/"),
        graders_model=server.model,
        tokenizer=opts.tokenizer or server.tokenizer,
        # The long prompt is measured in the graders' tokens, whatever --tokenizer says.
        long_tokenizer=server.tokenizer,
        chat_endpoint=spec.chat_endpoint,
        usage_endpoint=spec.usage_endpoint,
        long_endpoint=spec.long_endpoint,
        ready_path=server.ready_path,
        model=opts.model,
        timeout_s=opts.timeout_s,
        ready_timeout_s=ready_timeout,
        ready_interval_s=min(1.0, ready_timeout),
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
    return cfg, planned
