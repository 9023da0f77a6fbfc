"""The one typed configuration a throughput sweep is driven by: profile + typed overrides → this.

``ThroughputOverrides`` is what a user may change (the ``harness throughput`` flags,
declared once on its fields); ``from_profile`` is the only builder of a
``ThroughputConfig``: every grader number comes from the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from harness.argtypes import non_negative_int, positive_int
from harness.errors import ConfigError
from harness.flags import engine as engine_flag
from harness.flags import (
    metrics_scrape,
    model_name,
    option,
    prompt_seed,
    ready_interval,
    ready_timeout,
    request_timeout,
    tokenizer,
    usage_probe,
    wait_for_start,
)
from harness.overrides import Overrides
from harness.profiles import Profile, ThroughputSpec
from harness.prompts import fresh_seed
from harness.target import Target

Mode = Literal["official", "strict"]


@dataclass(frozen=True)
class ThroughputOverrides(Overrides):
    """What a user may set for a sweep; None: the profile's value (recorded as non-official
    in throughput.json when it differs from the grader's)."""

    COMMAND = "throughput"

    mode: Mode = option(
        "--mode",
        default="official",
        choices=("official", "strict"),
        help="official: the grader's loop; strict: fresh prompts per level, and a failed "
        "spot check fails the run",
    )
    levels: str | None = option(
        "--levels",
        help="comma-separated concurrency levels (default: the profile's, {gpumode-paris:throughput.levels})",
    )
    requests_per_level: int | None = option(
        "--requests-per-level",
        type=positive_int,
        metavar="N",
        help="timed requests per level (default: the profile's, {gpumode-paris:throughput.requests_per_level})",
    )
    warmup: int | None = option(
        "--warmup",
        type=non_negative_int,
        metavar="N",
        help="warm-up requests per level (default: the profile's, {gpumode-paris:throughput.warmup_per_level})",
    )
    prompt_tokens: int | None = option(
        "--prompt-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL prompt length in tokens (default: the profile's, {gpumode-paris:throughput.prompt_tokens})",
    )
    max_tokens: int | None = option(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL max_tokens (default: the profile's, {gpumode-paris:throughput.max_tokens})",
    )
    spot_checks: int | None = option(
        "--spot-checks",
        type=non_negative_int,
        metavar="N",
        help="math spot checks per level (default: the profile's, {gpumode-paris:throughput.spot_checks_per_level})",
    )
    force_length: bool = option(
        "--force-length",
        default=False,
        help="send ignore_eos + min_tokens so answers are really max_tokens long",
    )
    seed: int | None = prompt_seed("prompt and spot-check")
    model: str | None = model_name("the profile's if served")
    tokenizer: str | None = tokenizer("qwen:MODEL | tokenizer.json or model folder")
    timeout_s: float = request_timeout(1800.0)
    wait_ready: bool = option(
        "--wait-ready",
        default=False,
        help="official mode: poll the ready path before the sweep (a request the grader's "
        "sweep does not send: recorded as non-official; default: off, strict mode always waits)",
    )
    ready_timeout_s: float | None = ready_timeout()
    ready_interval_s: float | None = ready_interval()
    wait_for_start: bool = wait_for_start()
    chart: bool = option("--no-chart", default=True, help="do not write throughput.png")
    metrics: Literal["auto", "on", "off"] = metrics_scrape("level", "strict")
    engine: str | None = engine_flag()
    usage_probe: Literal["auto", "on", "off"] = usage_probe("sweep", "answers' text", "strict")


@dataclass(frozen=True)
class ThroughputConfig:
    """A sweep, built by :func:`from_profile` only (no grader number is a default here)."""

    url: str
    spec: ThroughputSpec  # the profile's section, to tell official settings from ours
    mode: Mode
    levels: tuple[int, ...]
    weights: dict[int, float]
    requests_per_level: int
    warmup: int
    prompt_tokens: int
    max_tokens: int
    temperature: float  # random prompts
    spot_temperature: float
    top_p: float
    send_top_p: bool
    spot_checks: int
    force_length: bool  # ignore_eos + min_tokens: outputs really max_tokens long
    # every prompt and spot-check draw derives from it: --seed N replays a run; without it
    # from_profile draws a fresh one (recorded), so no server's prefix cache has seen them
    seed: int
    model: str | None  # None: the profile's model if served, else the first served
    profile_model: str
    tokenizer: str
    timeout_s: float
    think_open: str
    think_close: str
    usage_tolerance: int
    prompt_rounds: int
    tok_s_decimals: int | None
    usage_flag_ratio: float
    usage_flag_tokens: int
    # How the core waits for the server, and whether it draws throughput.png. Official mode
    # sends no readiness request (the grader's sweep sends only its POSTs): it waits only
    # with wait_ready (a harness extra, recorded as non-official); strict mode always waits.
    ready_path: str
    ready_interval_s: float
    ready_timeout_s: float
    wait_ready: bool
    chart: bool
    # scrape /metrics around each level (a harness extra; auto: off in official mode)
    metrics: Literal["auto", "on", "off"]
    engine: str | None  # --engine: the engine whose names are read (None: detected)
    # after the sweep, one request asking for the token ids when usage exceeds the text
    # (harness/usage.py; a harness extra; auto: off in official mode)
    usage_probe: Literal["auto", "on", "off"]
    seed_drawn: bool = False  # True when from_profile drew it (recorded: "drawn" vs "given")
    connect_timeout_s: float = 10.0  # harness's own
    extra_body: dict[str, Any] = field(default_factory=dict)  # harness's own (none today)
    wait_for_start: bool = False  # refused connections do not end the readiness wait

    @property
    def waits_for_readiness(self) -> bool:
        return self.mode == "strict" or self.wait_ready

    @property
    def endpoint(self) -> str:
        return self.spec.endpoint

    @property
    def endpoint_url(self) -> str:
        return self.url.rstrip("/") + self.spec.endpoint

    @property
    def reuse_prompts(self) -> bool:
        """Official: the grader's one prompt list at every level; strict: fresh per level."""
        return self.mode == "official" and self.spec.reuse_prompts_across_levels

    def non_official(self) -> dict[str, Any]:
        """Every setting that differs from the grader's (recorded in throughput.json)."""
        s = self.spec
        out: dict[str, Any] = {}
        if list(self.levels) != list(s.levels):
            out["levels"] = list(self.levels)
        for name, ours, theirs in (
            ("temperature", self.temperature, s.temperature),
            ("requests_per_level", self.requests_per_level, s.requests_per_level),
            ("warmup_per_level", self.warmup, s.warmup_per_level),
            ("prompt_tokens", self.prompt_tokens, s.prompt_tokens),
            ("max_tokens", self.max_tokens, s.max_tokens),
            ("spot_checks_per_level", self.spot_checks, s.spot_checks_per_level),
        ):
            if ours != theirs:
                out[name] = ours
        if self.force_length:
            out["force_length"] = True
        if self.mode == "official" and self.wait_ready:
            out["wait_ready"] = True  # a GET before the sweep: a request the grader never sends
        if self.mode == "strict":
            out["mode"] = "strict"
            out["reuse_prompts_across_levels"] = False
        if self.extra_body:
            out["extra_body"] = dict(self.extra_body)
        return out

    def settings(self) -> dict[str, Any]:
        return {
            "levels": list(self.levels),
            "weights": [self.weights[lv] for lv in self.levels],
            "requests_per_level": self.requests_per_level,
            "warmup_per_level": self.warmup,
            "prompt_tokens": self.prompt_tokens,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "spot_temperature": self.spot_temperature,
            "top_p": self.top_p if self.send_top_p else None,
            "spot_checks_per_level": self.spot_checks,
            "reuse_prompts_across_levels": self.reuse_prompts,
            "force_length": self.force_length,
            "seed": self.seed,
            "seed_source": "drawn" if self.seed_drawn else "given",
            "timeout_s": self.timeout_s,
            "readiness": f"GET {self.ready_path} until 200 (harness extra)"
            if self.waits_for_readiness
            else "none before the sweep (the grader's script sends only its POSTs)",
        }


def profile_weights(spec: ThroughputSpec) -> dict[int, float]:
    if len(spec.levels) != len(spec.weights):
        raise ConfigError(
            f"[throughput] has {len(spec.levels)} levels but {len(spec.weights)} weights",
            hint="give one weight per concurrency level",
        )
    return dict(zip(spec.levels, spec.weights, strict=True))


def parse_levels(text: str | None, spec: ThroughputSpec) -> tuple[int, ...]:
    """``"1,2,4"`` → (1, 2, 4); every level must be one the profile weighs."""
    if not text:
        return tuple(spec.levels)
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            level = int(part)
        except ValueError:
            raise ConfigError(
                f"--levels: {part!r} is not a whole number", hint="e.g. --levels 1,8,64"
            ) from None
        if level not in spec.levels:
            raise ConfigError(
                f"--levels: {level} is not a level of this profile",
                hint=f"choose from the levels with a weight: {', '.join(map(str, spec.levels))}",
            )
        if level not in out:
            out.append(level)
    if not out:
        raise ConfigError("--levels is empty", hint="e.g. --levels 1,2,4")
    return tuple(out)


def from_profile(profile: Profile, target: Target, o: ThroughputOverrides) -> ThroughputConfig:
    """The profile's sweep at ``target.url``, with what ``o`` changes; without ``--seed`` the
    prompts' seed is drawn here, fresh for every config built (``seed_drawn``)."""
    spec = profile.require_throughput()
    ready = profile.readiness

    def pick(value: int | None, default: int) -> int:
        return value if value is not None else default

    return ThroughputConfig(
        url=target.url.rstrip("/"),
        spec=spec,
        mode=o.mode,
        levels=parse_levels(o.levels, spec),
        weights=profile_weights(spec),
        requests_per_level=pick(o.requests_per_level, spec.requests_per_level),
        warmup=pick(o.warmup, spec.warmup_per_level),
        prompt_tokens=pick(o.prompt_tokens, spec.prompt_tokens),
        max_tokens=pick(o.max_tokens, spec.max_tokens),
        temperature=spec.temperature,
        spot_temperature=spec.spot_temperature,
        top_p=spec.top_p,
        send_top_p=spec.send_top_p,
        spot_checks=pick(o.spot_checks, spec.spot_checks_per_level),
        force_length=o.force_length,
        seed=o.seed if o.seed is not None else fresh_seed(),
        seed_drawn=o.seed is None,
        model=o.model,
        profile_model=profile.server.model,
        tokenizer=o.tokenizer or profile.server.tokenizer,
        timeout_s=o.timeout_s,
        think_open=profile.server.think_open,
        think_close=profile.server.think_close,
        usage_tolerance=profile.check.usage_tolerance_tokens,
        prompt_rounds=spec.prompt_rounds,
        tok_s_decimals=spec.tok_s_decimals,
        usage_flag_ratio=spec.usage_flag_ratio,
        usage_flag_tokens=spec.usage_flag_tokens,
        ready_path=profile.server.ready_path,
        ready_interval_s=o.ready_interval_s or ready.poll_interval_s,
        ready_timeout_s=o.ready_timeout_s or ready.timeout_s,
        wait_ready=o.wait_ready,
        wait_for_start=o.wait_for_start,
        chart=o.chart,
        metrics=o.metrics,
        engine=o.engine,
        usage_probe=o.usage_probe,
    )
