"""The one typed configuration a throughput sweep is driven by (profile + CLI flags → this)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from harness.errors import ConfigError
from harness.profiles import Profile, ThroughputSpec
from harness.prompts import fresh_seed

Mode = Literal["official", "strict"]


@dataclass(frozen=True)
class ThroughputConfig:
    url: str
    spec: ThroughputSpec  # the profile's section, to tell official settings from ours
    mode: Mode = "official"
    levels: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    weights: dict[int, float] = field(default_factory=dict)
    requests_per_level: int = 64
    warmup: int = 2
    prompt_tokens: int = 1024
    max_tokens: int = 1024
    temperature: float = 0.0  # random prompts
    spot_temperature: float = 0.0
    top_p: float = 1.0
    send_top_p: bool = True
    spot_checks: int = 2
    force_length: bool = False  # ignore_eos + min_tokens: outputs really max_tokens long
    # every prompt and spot-check draw derives from it; None: a fresh one per run (with_seed),
    # recorded, so a server's prefix cache has never seen the prompts; N replays a run
    seed: int | None = None
    seed_drawn: bool = False
    model: str | None = None  # None: the profile's model if served, else the first served
    profile_model: str = ""
    tokenizer: str = "qwen:Qwen/Qwen3.5-35B-A3B"
    timeout_s: float = 1800.0
    connect_timeout_s: float = 10.0
    think_open: str = "<think>"
    think_close: str = "</think>"
    usage_tolerance: int = 4
    prompt_rounds: int = 10
    tok_s_decimals: int | None = None
    usage_flag_ratio: float = 0.05
    usage_flag_tokens: int = 10
    extra_body: dict[str, Any] = field(default_factory=dict)
    # How the core waits for the server, and whether it draws throughput.png. Official mode
    # sends no readiness request (the grader's sweep sends only its POSTs): it waits only
    # with wait_ready (a harness extra, recorded as non-official); strict mode always waits.
    ready_path: str = "/ping"
    ready_interval_s: float = 5.0
    ready_timeout_s: float = 600.0
    wait_ready: bool = False
    chart: bool = True
    # scrape /metrics around each level (a harness extra; auto: off in official mode)
    metrics: Literal["auto", "on", "off"] = "auto"
    # after the sweep, one request asking for the token ids when usage exceeds the text
    # (harness/usage.py; a harness extra; auto: off in official mode)
    usage_probe: Literal["auto", "on", "off"] = "auto"

    @property
    def prompt_seed(self) -> int:
        """The seed in force (0 only for a config that never went through :func:`with_seed`)."""
        return self.seed if self.seed is not None else 0

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


def with_seed(cfg: ThroughputConfig) -> ThroughputConfig:
    """``cfg`` with a concrete seed: its own, else a fresh draw (marked as drawn)."""
    if cfg.seed is not None:
        return cfg
    return replace(cfg, seed=fresh_seed(), seed_drawn=True)


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
            raise ConfigError(f"--levels: {part!r} is not a whole number") from None
        if level not in spec.levels:
            raise ConfigError(
                f"--levels: {level} is not a level of this profile",
                hint=f"levels with a weight: {', '.join(map(str, spec.levels))}",
            )
        if level not in out:
            out.append(level)
    if not out:
        raise ConfigError("--levels is empty", hint="e.g. --levels 1,2,4")
    return tuple(out)


def from_profile(profile: Profile, url: str, **overrides: Any) -> ThroughputConfig:
    """A config with the profile's settings, then ``overrides`` (None values are ignored)."""
    spec = profile.require_throughput()
    base: dict[str, Any] = {
        "url": url.rstrip("/"),
        "spec": spec,
        "levels": tuple(spec.levels),
        "weights": profile_weights(spec),
        "requests_per_level": spec.requests_per_level,
        "warmup": spec.warmup_per_level,
        "prompt_tokens": spec.prompt_tokens,
        "max_tokens": spec.max_tokens,
        "temperature": spec.temperature,
        "spot_temperature": spec.spot_temperature,
        "top_p": spec.top_p,
        "send_top_p": spec.send_top_p,
        "prompt_rounds": spec.prompt_rounds,
        "tok_s_decimals": spec.tok_s_decimals,
        "usage_flag_ratio": spec.usage_flag_ratio,
        "usage_flag_tokens": spec.usage_flag_tokens,
        "spot_checks": spec.spot_checks_per_level,
        "profile_model": profile.server.model,
        "tokenizer": profile.server.tokenizer,
        "think_open": profile.server.think_open,
        "think_close": profile.server.think_close,
        "usage_tolerance": profile.check.usage_tolerance_tokens,
        "ready_path": profile.server.ready_path,
        "ready_interval_s": profile.readiness.poll_interval_s,
        "ready_timeout_s": profile.readiness.timeout_s,
    }
    base.update({k: v for k, v in overrides.items() if v is not None})
    return ThroughputConfig(**base)
