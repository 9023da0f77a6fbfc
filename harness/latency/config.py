"""The one typed configuration a latency run is driven by: profile + typed overrides → this.

``LatencyOverrides`` is what a user may change (the ``harness latency`` flags and
the gate's latency options, declared once on its fields); ``from_profile`` is the
only builder of a ``LatencyConfig``: every grader number comes from the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from harness.argtypes import non_negative_int, positive_float, positive_int
from harness.errors import ConfigError
from harness.flags import (
    GateFlag,
    metrics_scrape,
    option,
    prompt_seed,
    ready_interval,
    ready_timeout,
    request_timeout,
    tokenizer,
    usage_probe,
    wait_for_start,
)
from harness.flags import engine as engine_flag
from harness.latency.buckets import choose_buckets
from harness.latency.stop_rule import StopRule
from harness.overrides import Overrides
from harness.profiles import Bucket, LatencySpec, Profile
from harness.prompts import fresh_seed
from harness.target import Target

Mode = Literal["official", "strict", "both"]
MetricsChoice = Literal["auto", "on", "off"]


UNTIL_CI_STATS = ("median", "p90", "p95", "p99")


class UntilCiRefused(ConfigError):
    """An ``--until-ci`` that could never stop a bucket early, with what refuses it (``why``:
    ``first_look``, ``runs`` below the first look; ``no_interval``, no interval of ``at``
    within ``runs``) so a caller can say it in its own words (tune: SPACE.toml's options)."""

    def __init__(
        self,
        message: str,
        *,
        hint: str,
        why: Literal["first_look", "no_interval"],
        runs: int,
        at: str,
    ) -> None:
        super().__init__(message, hint=hint)
        self.why = why
        self.runs = runs
        self.at = at


def _until_ci_can_stop(pct: float | None, at: str, runs: int) -> None:
    """A stop rule that could never stop is refused before anything is sent: ``--until-ci-at``
    without ``--until-ci``, ``--runs`` below the floor of the first look (10 successes), or a
    percentile with no interval at any look up to ``runs``."""
    from harness.stats.median_sequence import MIN_RUNS
    from harness.stats.quantile_sequence import quantile_boundary
    from harness.stats.tails import PERCENTILES

    if pct is None:
        if at == "median":
            return
        raise ConfigError(
            f"--until-ci-at {at} names what --until-ci stops on, and --until-ci is off",
            hint=f"add --until-ci PCT (e.g. --until-ci 5 --until-ci-at {at})",
        )
    if runs < MIN_RUNS:
        raise UntilCiRefused(
            f"--until-ci {pct:g} makes its first look at {MIN_RUNS} successful runs and "
            f"--runs {runs} ends before it, so it could never stop early",
            hint=f"raise --runs to {MIN_RUNS} or more, or drop --until-ci",
            why="first_look",
            runs=runs,
            at=at,
        )
    if at != "median" and quantile_boundary(runs, PERCENTILES[at]).first is None:
        raise UntilCiRefused(
            f"--until-ci-at {at}: no 95 % interval of a {at} exists within {runs} runs, so "
            "it could never stop early",
            hint="stop on the median or a lower percentile, or raise --runs (a p90 has its "
            "first interval at about 37 runs, a p95 at 92, a p99 at 461)",
            why="no_interval",
            runs=runs,
            at=at,
        )


@dataclass(frozen=True)
class LatencyOverrides(Overrides):
    """What a user may set for a latency run; None: the profile's value."""

    COMMAND = "latency"

    mode: Mode = option(
        "--mode",
        default="official",
        choices=("official", "strict", "both"),
        help="official: the grader's procedure, bit for bit; strict: streamed, exact-length "
        "prompts; both: the two and the gap between them",
        gate=GateFlag("--latency-mode", default="both"),
    )
    endpoint: str | None = option(
        "--endpoint", help="official endpoint (default: the profile's, {default:latency.endpoint})"
    )
    runs: int | None = option(
        "--runs",
        type=positive_int,
        metavar="N",
        help="timed requests per bucket (default: the profile's, {default:latency.runs})",
        gate="--runs",
    )
    warmup: int | None = option(
        "--warmup",
        type=non_negative_int,
        metavar="N",
        help="warm-up requests per bucket (default: the profile's, {default:latency.warmup})",
        gate="--warmup",
    )
    buckets: str | None = option(
        "--buckets",
        help="comma-separated bucket names (default: all, e.g. short,medium,long)",
        gate="--buckets",
    )
    timeout_s: float = request_timeout(600.0)
    tokenizer: str | None = tokenizer("qwen:MODEL | tokenizer.json or model folder | server")
    model: str | None = option(
        "--model", help="strict mode's model field (default: the server's first model)"
    )
    concurrency: int = option(
        "--concurrency", default=1, type=positive_int, help="strict mode: requests in flight"
    )
    force_length: bool = option(
        "--force-length", default=False, help="strict mode: send ignore_eos + min_tokens"
    )
    seed: int | None = prompt_seed("strict prompts'", "; repeats derive theirs from it")
    ready_timeout_s: float | None = ready_timeout()
    ready_interval_s: float | None = ready_interval()
    wait_for_start: bool = wait_for_start()
    metrics: MetricsChoice = metrics_scrape("bucket", "strict/both")
    engine: str | None = engine_flag()
    usage_probe: MetricsChoice = usage_probe("buckets", "answer's text", "strict/both")
    calibrate: bool = option(
        "--no-calibrate", default=True, help="skip the client timing self-check"
    )
    rtt_probes: bool = option(
        "--no-rtt-probes",
        default=True,
        help="send no round-trip probes (a GET of the ready path before and after each "
        "bucket, never between the grader's requests; docs/timing.md, Network)",
        gate="--no-rtt-probes",
    )
    until_ci: float | None = option(
        "--until-ci",
        type=positive_float,
        metavar="PCT",
        help="stop each bucket once the 95 %% interval of its median (or of --until-ci-at's "
        "percentile) is within ±PCT %% of it on both sides (at least 10 timed runs, at most "
        "--runs, which must be 10 or more); an estimate, flagged as such (default: off, every run)",
        gate="--until-ci",
    )
    until_ci_at: str | None = option(
        "--until-ci-at",
        choices=UNTIL_CI_STATS,
        help="the statistic --until-ci stops on: median (default; the one the grader scores) "
        "or a percentile, whose interval needs many runs (at the earliest: a p90 37, a p95 "
        "92, a p99 461): within the grader's 50 runs only the median and the p90 can stop",
        gate="--until-ci-at",
    )


@dataclass(frozen=True)
class LatencyConfig:
    """A latency run, built by :func:`from_profile` only (no grader number is a default here)."""

    url: str
    mode: Mode
    buckets: tuple[Bucket, ...]
    endpoint: str  # official mode
    strict_endpoint: str
    runs: int
    warmup: int
    timeout_s: float
    tokenizer: str
    model: str | None  # strict mode's "model" field; None = first served model
    concurrency: int
    force_length: bool
    # the strict prompts' seed: --seed N replays a run exactly; without it from_profile
    # draws a fresh one per run, so no server has seen the prompts (docs/timing.md, "Seeds")
    seed: int
    temperature: float
    filler_sentence: str
    filler_divisor: int
    filler_min_repeats: int
    new_connection_per_request: bool
    ready_path: str
    ready_interval_s: float
    ready_timeout_s: float
    calibrate: bool
    think_close: str
    # the profile's [latency] section: what the grader does (runs, warm-ups, buckets)
    spec: LatencySpec
    # scrape /metrics around each bucket (a harness extra; auto: off in pure official mode)
    metrics: MetricsChoice
    engine: str | None  # --engine: the engine whose names are read (None: detected)
    # after the buckets, one request per bucket whose usage the text cannot explain, asking
    # the server for its token ids (a harness extra; auto: off in pure official mode)
    usage_probe: MetricsChoice
    usage_tolerance: int  # re-tokenisation drift allowed (the profile's [check] value)
    # --until-ci PCT: stop a bucket once the 95 % interval of its median is within ±PCT %
    # of the median (a confidence sequence, harness/stats/median_sequence.py); None = all runs
    until_ci: float | None
    # --until-ci-at: the statistic it stops on, the median or a percentile
    # (harness/stats/quantile_sequence.py)
    until_ci_at: str = "median"
    seed_drawn: bool = False  # True when from_profile drew it (recorded: "drawn" vs "given")
    # round-trip probes before/after each bucket (a harness extra; docs/timing.md, Network)
    rtt_probes: bool = True
    connect_timeout_s: float = 10.0  # harness's own
    extra_body: dict[str, object] = field(default_factory=dict)  # harness's own (none today)
    wait_for_start: bool = False  # refused connections do not end the readiness wait
    # asked after every timed request; an answer ends the run early (no flag sets it:
    # harness tune's race, harness/latency/stop_rule.py)
    stop_rule: StopRule | None = None
    # this run is repetition i of n of a --repeats run whose seeds derive from base:
    # {"index": i, "of": n, "base_seed": base}, recorded so --resume can finish the set
    repeat: dict[str, int] | None = None

    def __post_init__(self) -> None:
        if self.until_ci is not None and not self.until_ci > 0:
            raise ConfigError(
                f"--until-ci must be a positive percentage (got {self.until_ci:g})",
                hint="e.g. --until-ci 1 stops a bucket at ±1 % of its median",
            )
        _until_ci_can_stop(self.until_ci, self.until_ci_at, self.runs)
        if self.until_ci is not None and self.concurrency != 1 and self.mode != "official":
            raise ConfigError(
                "--until-ci looks after every request, one at a time: it cannot be combined "
                f"with --concurrency {self.concurrency}",
                hint="drop --concurrency (the latency procedure sends one request at a time)",
            )

    def filler(self, prompt_tokens: int) -> str:
        return self.filler_sentence * max(
            self.filler_min_repeats, prompt_tokens // self.filler_divisor
        )


def from_profile(profile: Profile, target: Target, o: LatencyOverrides) -> LatencyConfig:
    """The profile's latency procedure at ``target.url``, with what ``o`` changes.

    ``o.buckets`` is the comma list the CLI takes (``short,long``); an empty or unknown
    name, or one given twice, is a ConfigError naming the profile's buckets
    (harness/latency/buckets.py). Without ``--seed`` the strict prompts' seed is drawn here,
    fresh for every config built (``seed_drawn``), so the core only reads it."""
    spec = profile.require_latency()
    chosen = choose_buckets(spec, o.buckets)
    ready = profile.readiness
    return LatencyConfig(
        url=target.url.rstrip("/"),
        mode=o.mode,
        buckets=chosen,
        endpoint=o.endpoint or spec.endpoint,
        strict_endpoint=spec.strict_endpoint,
        runs=o.runs if o.runs is not None else spec.runs,
        warmup=o.warmup if o.warmup is not None else spec.warmup,
        timeout_s=o.timeout_s,
        tokenizer=o.tokenizer or profile.server.tokenizer,
        model=o.model,
        concurrency=o.concurrency,
        force_length=o.force_length,
        seed=o.seed if o.seed is not None else fresh_seed(),
        seed_drawn=o.seed is None,
        temperature=spec.temperature,
        filler_sentence=spec.filler_sentence,
        filler_divisor=spec.filler_divisor,
        filler_min_repeats=spec.filler_min_repeats,
        new_connection_per_request=spec.new_connection_per_request,
        ready_path=profile.server.ready_path,
        ready_interval_s=o.ready_interval_s or ready.poll_interval_s,
        ready_timeout_s=o.ready_timeout_s or ready.timeout_s,
        calibrate=o.calibrate,
        think_close=profile.server.think_close,
        spec=spec,
        metrics=o.metrics,
        engine=o.engine,
        usage_probe=o.usage_probe,
        usage_tolerance=profile.check.usage_tolerance_tokens,
        until_ci=o.until_ci,
        until_ci_at=o.until_ci_at or "median",
        wait_for_start=o.wait_for_start,
        rtt_probes=o.rtt_probes,
    )
