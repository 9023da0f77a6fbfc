"""From a profile and the command's options to one :class:`AuditConfig`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.audit.workload import SWEEP, Client, Workload
from harness.client.urls import http_base_url
from harness.errors import ConfigError
from harness.flags import (
    model_name,
    option,
    ready_timeout,
    request_timeout,
    tokenizer,
    wait_for_start,
)
from harness.overrides import Overrides
from harness.paths import DATA_DIR_ENV, default_data_dir
from harness.profiles import AuditSpec, Profile, ThroughputSpec
from harness.prompts import fresh_seed
from harness.target import Target


@dataclass(frozen=True)
class AuditOverrides(Overrides):
    """What a user may set for an audit; None: the profile's."""

    COMMAND = "audit"

    rounds: int | None = option(
        "--rounds",
        type=int,
        help="rounds of the repeated prompt and its two controls per bucket "
        "(default: the profile's, {default:audit.rounds})",
    )
    buckets: str | None = option(
        "--buckets",
        help="comma-separated latency buckets to audit (default: the profile's [audit] buckets)",
    )
    seed: int | None = option("--seed", type=int, help="the unique heads' seed (default: drawn)")
    timeout_s: float = request_timeout(600.0)
    ready_timeout_s: float | None = ready_timeout()
    wait_for_start: bool = wait_for_start()
    tokenizer: str | None = tokenizer("qwen:MODEL | tokenizer.json or model folder")
    model: str | None = model_name("the profile's")
    data_dir: Path | None = option(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help=f"benchmark data folder whose quality items benchmark detection asks, as sent and "
        f"paraphrased (default: ${DATA_DIR_ENV} or ~/.cache/harness/data; the shipped samples "
        "where a benchmark's file is not there)",
        gate="--data-dir",
    )


@dataclass(frozen=True)
class AuditConfig:
    url: str
    endpoint: str  # the grader's timed route (latency's, or the sweep's chat route)
    tokenizer: str
    sentence: str  # the filler sentence (latency)
    temperature: float  # the grader's, for its timed prompts
    workloads: tuple[Workload, ...]  # what is audited: per bucket, or the sweep
    spec: AuditSpec
    seed: int
    ready_path: str
    timeout_s: float
    ready_timeout_s: float
    wait_for_start: bool
    # the probes (one_stack): the quality graders' chat route, model name, thinking off
    chat_endpoint: str = "/invocations"
    model: str = ""
    thinking_off: dict[str, Any] = field(default_factory=dict)
    thinking_on: dict[str, Any] = field(default_factory=dict)
    # the quality benchmarks' thinking (by name) as the profile asks it: the items' bodies
    thinking_by_benchmark: dict[str, bool] = field(default_factory=dict)
    # benchmark detection's quality items: from this folder, else the shipped samples
    data_dir: Path = field(default_factory=default_data_dir)
    # stream_consistency: usage may sit this far from the re-tokenised text (harness/usage.py)
    usage_tolerance: int = 4
    # the grader's client (harness/audit/timed/send.py); the sweep's body: top_p (None: not sent)
    # and its prompt builder's decode→encode rounds
    client: Client = "urllib"
    top_p: float | None = None
    prompt_rounds: int = 10


def _latency_workloads(
    profile: Profile, o: AuditOverrides, spec: AuditSpec
) -> tuple[Workload, ...]:
    latency = profile.require_latency()
    names = [n.strip() for n in o.buckets.split(",")] if o.buckets else spec.buckets
    buckets = [latency.bucket(n) for n in names if n]
    if not buckets:
        raise ConfigError("no bucket to audit", hint="pass --buckets short (or another bucket)")
    return tuple(
        Workload(b.name, b.prompt_tokens, b.max_tokens, latency.filler_repeats(b.prompt_tokens))
        for b in buckets
    )


def _sweep(profile: Profile, o: AuditOverrides) -> tuple[ThroughputSpec, Workload]:
    sweep = profile.require_throughput()
    if o.buckets:
        raise ConfigError(
            f"profile {profile.name!r} audits the throughput sweep's request: it has no buckets",
            hint="leave out --buckets",
        )
    return sweep, Workload(SWEEP, sweep.prompt_tokens, sweep.max_tokens)


def from_profile(profile: Profile, target: Target, o: AuditOverrides) -> AuditConfig:
    if profile.vlm is not None and profile.latency is None and profile.throughput is None:
        raise ConfigError(
            f"profile {profile.name!r} is audited in-process, not against a server",
            hint=f"run harness vlm audit --profile {profile.name} --wrapper-dir DIR "
            "--model-path DIR --dataset-path DIR (docs/audit.md, AICAS)",
        )
    if target.url:
        http_base_url(target.url)
    spec = profile.audit
    if o.rounds is not None:
        if o.rounds < 2:
            raise ConfigError("--rounds must be at least 2", hint="pass --rounds 2 or more")
        spec = spec.model_copy(update={"rounds": o.rounds})
    ready = o.ready_timeout_s if o.ready_timeout_s is not None else profile.readiness.timeout_s
    workloads: tuple[Workload, ...]
    client: Client
    if spec.workload == "throughput":
        sweep, w = _sweep(profile, o)
        route, sentence, temperature, workloads = sweep.endpoint, "", sweep.temperature, (w,)
        chat, client = sweep.endpoint, "aiohttp"
    else:
        latency = profile.require_latency()
        route, sentence = latency.endpoint, latency.filler_sentence
        temperature, workloads = latency.temperature, _latency_workloads(profile, o, spec)
        chat, client = (profile.quality.endpoint if profile.quality else "/invocations"), "urllib"
    return AuditConfig(
        url=target.url.rstrip("/"),
        endpoint=route,
        tokenizer=o.tokenizer or profile.server.tokenizer,
        sentence=sentence,
        temperature=temperature,
        workloads=workloads,
        spec=spec,
        seed=o.seed if o.seed is not None else fresh_seed(),
        ready_path=profile.server.ready_path,
        timeout_s=o.timeout_s,
        ready_timeout_s=ready,
        wait_for_start=o.wait_for_start,
        chat_endpoint=chat,
        model=o.model or profile.server.model,
        thinking_off=dict(profile.server.thinking_off),
        thinking_on=dict(profile.server.thinking_on),
        thinking_by_benchmark={b.name: b.thinking for b in profile.quality.benchmarks}
        if profile.quality
        else {},
        data_dir=(o.data_dir or default_data_dir()).resolve(),
        usage_tolerance=profile.check.usage_tolerance_tokens,
        client=client,
        top_p=profile.throughput.top_p
        if client == "aiohttp" and profile.throughput and profile.throughput.send_top_p
        else None,
        prompt_rounds=profile.throughput.prompt_rounds if profile.throughput else 10,
    )
