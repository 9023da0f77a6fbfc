"""Competition profiles: strict, typed data loaded from ``tasks/profiles/*.toml``.

Competitions are data (docs/profiles.md). Each section is a pydantic model with
``extra="forbid"``, so a typo in a profile is an error that lists the valid keys.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import harness.audit_catalogue as audit_catalogue
from harness.errors import ConfigError

PROFILES_DIR = Path(__file__).resolve().parent.parent / "tasks" / "profiles"
DEFAULT_PROFILE = "efficient-qwen"
# The profile format this harness reads (a profile's own ``schema_version``).
PROFILE_SCHEMA_VERSION = 1


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerSpec(Strict):
    model: str
    tokenizer: str = "qwen:Qwen/Qwen3.5-4B"
    port: int = 8080
    ready_path: str = "/ping"
    think_open: str = "<think>"
    think_close: str = "</think>"
    thinking_off: dict[str, Any] = Field(default_factory=dict)
    thinking_on: dict[str, Any] = Field(default_factory=dict)


class ReadinessSpec(Strict):
    poll_interval_s: float = 5.0
    timeout_s: float = 600.0


class Bucket(Strict):
    name: str
    prompt_tokens: int = Field(gt=0)
    max_tokens: int = Field(gt=0)
    baseline_ms: float = Field(gt=0)


class LatencySpec(Strict):
    endpoint: str = "/invocations"
    warmup: int = Field(default=5, ge=0)
    runs: int = Field(default=50, ge=1)
    new_connection_per_request: bool = True
    filler_sentence: str = "The quick brown fox jumps over the lazy dog. "
    filler_divisor: int = 10
    filler_min_repeats: int = 1
    temperature: float = 0.0
    strict_endpoint: str = "/v1/completions"
    buckets: list[Bucket]

    def bucket(self, name: str) -> Bucket:
        for b in self.buckets:
            if b.name == name:
                return b
        valid = ", ".join(b.name for b in self.buckets)
        raise ConfigError(f"unknown bucket {name!r}", hint=f"valid buckets: {valid}")

    def filler_repeats(self, prompt_tokens: int) -> int:
        return max(self.filler_min_repeats, prompt_tokens // self.filler_divisor)


class Benchmark(Strict):
    name: str
    title: str
    task: str
    num_fewshot: int = 0
    thinking: bool = False
    client: Literal["local-chat-completions", "grader"] = "grader"
    metric: str
    aggregate: Literal["mean_of_subtasks", "task"] = "task"
    threshold: float
    baseline: float | None = None
    num_docs: int | None = None  # fixed document count (e.g. Paris GSM8K 200), else the limit
    top_p: float | None = None


class QualitySpec(Strict):
    lm_eval_version: str = "0.4.11"
    endpoint: str = "/invocations"
    limit: float = 0.1
    num_concurrent: int = 8
    batch_size: int = 1
    random_seed: int = 0
    numpy_random_seed: int = 1234
    torch_random_seed: int = 1234
    eos_string: str = "<|im_end|>"
    mmlu_timeout_s: float = 120
    request_timeout_s: float = 600
    attempts: int = 3
    retry_sleeps_s: list[float] = Field(default_factory=lambda: [5.0, 10.0])
    cap_thinking_off: int = 512
    cap_thinking_on: int = 12288
    benchmarks: list[Benchmark]


class PackageSpec(Strict):
    image_filename: str = "image.tar.gz"
    max_compressed_bytes: int = 20_000_000_000
    model_dir: str = "/opt/ml/model"
    port: int = 8080
    offline_env: list[str] = Field(default_factory=list)
    max_parameters: int | None = None


# The organiser publishes no form for team ids; these are what harness sends and what the
# portal accepts (docs/submit.md, "Team ids"): they become a path segment of the S3 key.
TEAM_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
TEAM_ID_RULE = "1 to 64 ASCII letters, digits, '-' or '_'"


class SubmitSpec(Strict):
    header: str = "x-api-key"
    team_id_pattern: str = TEAM_ID_PATTERN  # a team id must match it whole
    team_id_rule: str = TEAM_ID_RULE  # the pattern in words, for messages
    single_max_bytes: int = 5_000_000_000
    single_url_expiry_s: int = 7200
    submissions_per_day: int = 1


class SpotQuestion(Strict):
    """One of the grader's fixed spot-check questions and its numeric answer."""

    question: str
    answer: int


class CorrectnessRule(Strict):
    """One reading of the correctness gate (Paris has two that disagree): ``metric`` of the
    ``benchmark``'s lm-eval results must be ≥ ``threshold``; ``source`` names who says so."""

    name: str
    source: str
    benchmark: str
    metric: str
    threshold: float
    zeroes_score: bool = False  # the grader's scoring script sets the score to 0 on failure


class ThroughputSpec(Strict):
    endpoint: str = "/v1/chat/completions"
    levels: list[int]
    weights: list[float]
    requests_per_level: int = 64
    warmup_per_level: int = 2
    prompt_tokens: int = 1024
    max_tokens: int = 1024
    temperature: float = 0.0  # random prompts
    spot_temperature: float = 0.0  # spot-check questions
    top_p: float = 1.0
    send_top_p: bool = True  # False: the body carries no top_p (the server's default applies)
    spot_checks_per_level: int = 2
    reuse_prompts_across_levels: bool = True
    # the grader's prompt builder: at most this many decode→encode rounds, last text kept
    prompt_rounds: int = Field(default=10, ge=1)
    spot_pool: list[SpotQuestion] = Field(default_factory=list)  # empty: harness's own checks
    spot_tolerance: float = 0.01
    tok_s_decimals: int | None = None  # the grader rounds each level's tok/s before weighting
    usage_flag_ratio: float = 0.05  # server usage vs verified counts, per level:
    usage_flag_tokens: int = 10  # flagged above max(ratio × verified, tokens)
    correctness_rules: list[CorrectnessRule] = Field(default_factory=list)


class CheckSpec(Strict):
    # Check, group or family names (docs/check.md); `checks` empty = every check.
    checks: list[str] = Field(default_factory=list)
    required: list[str] = Field(default_factory=list)
    concurrency: list[int] = Field(default_factory=lambda: [8, 64])
    long_prompt_tokens: int = 8192
    usage_tolerance_tokens: int = 4
    think_budget_tokens: int = 64
    max_tokens: int = Field(default=16, ge=1)  # per check request: keeps a CPU server fast
    chat_endpoint: str = "/v1/chat/completions"  # where the graders send chat bodies
    usage_endpoint: str = "/v1/completions"  # usage / max_tokens / determinism asked here
    long_endpoint: str = "/invocations"  # where the grader sends the long prompt


class AuditSpec(Strict):
    """The contest's rules ``harness audit`` checks (docs/audit.md), and the numbers its
    verdicts rest on. An empty ``rules`` list: the contest names none, no audit is needed."""

    # names of harness/audit_catalogue.py's entries, checked when the profile is loaded
    rules: list[str] = Field(default_factory=list)
    # the grader's timed requests the audit copies: [latency]'s buckets (the Efficient Qwen
    # grader: prompt bodies, urllib) or [throughput]'s sweep (the Paris grader: chat bodies of
    # random-token prompts, aiohttp json=); docs/audit.md, "Per profile"
    workload: Literal["latency", "throughput"] = "latency"
    buckets: list[str] = Field(default_factory=lambda: ["short"])  # latency buckets audited
    warmup: int = Field(default=2, ge=1)  # repeated-prompt requests before the timed rounds
    rounds: int = Field(default=16, ge=2)  # each: the repeated prompt and its two controls
    # cached answers: the repeated prompt's time per output token below this share of the
    # near-filler control's is decode skipped (a prefix cache saves only prefill)
    decode_share: float = Field(default=0.5, gt=0, lt=1)
    # benchmark detection: below this ratio (the median of every filler/control pair's) the
    # filler is served faster than the near-filler control, if a second set of rounds says
    # so too (catches TEST04's 10 % split: bench/audit.py)
    split_ratio: float = Field(default=0.945, gt=0, lt=1)
    # a look's ratio rests on at least this many near controls of a comparable answer length
    # (fewer: not judged; answers sampled at temperature 1.0 vary in length)
    min_controls: int = Field(default=1, ge=1)
    # physically possible: one decode step reads the smallest weights the rules allow at
    # the GPU's peak bandwidth and yields at most tokens_per_step tokens
    min_weight_bytes: float = Field(default=1.0e9, gt=0)
    gpu_bandwidth_bytes_s: float = Field(default=600e9, gt=0)
    gpus: int = Field(default=1, ge=1)  # a step's weights read by this many GPUs in parallel
    tokens_per_step: int = Field(default=8, ge=1)
    # one model stack: the probes' answer length, and below this ratio of the other ways
    # of asking, a route or body shape is served faster (in two independent sets)
    stack_max_tokens: int = Field(default=64, ge=8)
    stack_speed_ratio: float = Field(default=0.8, gt=0, lt=1)
    # benchmark detection's second half: the quality graders' items (harness/grader_items.py)
    # against light paraphrases, each pair once per look, at most paraphrase_max_tokens
    # each; a split is the pairs' Hodges–Lehmann ratio of time per output token outside
    # [paraphrase_split, 1 / paraphrase_split], or of output length outside
    # [paraphrase_length_split, 1 / paraphrase_length_split], in two independent looks
    paraphrase_items: int = Field(default=0, ge=0)  # 0: not compared (a profile opts in)
    paraphrase_max_tokens: int = Field(default=32, ge=4)
    paraphrase_split: float = Field(default=0.9, gt=0, lt=1)
    paraphrase_length_split: float = Field(default=0.67, gt=0, lt=1)


class VlmAuditSpec(Strict):
    """``harness vlm audit``: hard-coded answers, asked in-process (docs/audit.md, "AICAS").

    A sample is *blind* when its answer stays the same on another image and on a blank one,
    or on another question about the same image. An honest model is blind on at most
    ``honest_blind_share`` of the samples (a generous bound); a set of ``samples`` rows fails
    when its blind count is one an honest model reaches with probability at most ``alpha``,
    and the rule fails only when a second, independent set fails too (bench/vlm_audit.py)."""

    samples: int = Field(default=16, ge=3)  # rows per set
    honest_blind_share: float = Field(default=0.2, gt=0, lt=1)
    alpha: float = Field(default=0.03, gt=0, lt=1)  # per set: two sets ≤ alpha² (0.09 %)


class VlmSpec(Strict):
    """The AICAS in-process VLM benchmark (docs/vlm.md)."""

    model: str = "Qwen/Qwen3-VL-2B-Instruct"
    max_samples: int = Field(default=5000, ge=1)  # first N rows, in order
    warmup_samples: int = Field(default=10, ge=0)
    warmup_tokens: int = Field(default=10, ge=1)
    ttft_tokens: int = Field(default=1, ge=1)
    throughput_tokens: int = Field(default=128, ge=1)
    answer_tokens: int = Field(default=1024, ge=1)
    pause_s: float = Field(default=0.005, ge=0)
    min_time_s: float = 0.001  # tok/s is 0 at or under this time
    round_digits: int = 2
    baseline_ttft_ms: float = Field(default=80.0, gt=0)
    baseline_tok_s: float = Field(default=55.0, gt=0)
    weight_accuracy: float = 0.4
    weight_ttft: float = 0.3
    weight_throughput: float = 0.3
    headline_accuracy: Literal["containment", "vqa", "yes_no"] = "containment"
    http_endpoint: str = "/v1/chat/completions"
    audit: VlmAuditSpec = VlmAuditSpec()


class Profile(Strict):
    name: str
    title: str
    schema_version: int = 1
    server: ServerSpec
    readiness: ReadinessSpec = ReadinessSpec()
    latency: LatencySpec | None = None
    quality: QualitySpec | None = None
    package: PackageSpec | None = None
    submit: SubmitSpec | None = None
    throughput: ThroughputSpec | None = None
    vlm: VlmSpec | None = None
    check: CheckSpec = CheckSpec()
    audit: AuditSpec = AuditSpec()
    source: str = ""  # path it was loaded from (filled by load_profile)

    def require_latency(self) -> LatencySpec:
        if self.latency is None:
            raise ConfigError(
                f"profile {self.name!r} has no [latency] section",
                hint="use --profile efficient-qwen (or a profile with a [latency] section)",
            )
        return self.latency

    def require_quality(self) -> QualitySpec:
        if self.quality is None:
            raise ConfigError(
                f"profile {self.name!r} has no [quality] section",
                hint="use a --profile with a [quality] section (efficient-qwen, gpumode-paris)",
            )
        return self.quality

    def require_vlm(self) -> VlmSpec:
        if self.vlm is None:
            raise ConfigError(
                f"profile {self.name!r} has no [vlm] section", hint="use --profile aicas-vlm"
            )
        return self.vlm

    def require_throughput(self) -> ThroughputSpec:
        if self.throughput is None:
            raise ConfigError(
                f"profile {self.name!r} has no [throughput] section",
                hint="use --profile gpumode-paris (or a profile with a [throughput] section)",
            )
        return self.throughput


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def _model_for_loc(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """Walk the model tree along a validation-error location to list valid keys."""
    model: Any = Profile
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        ann = field.annotation
        candidates = [ann, *getattr(ann, "__args__", ())]
        nxt = None
        for c in candidates:
            for inner in [c, *getattr(c, "__args__", ())]:
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    nxt = inner
        if nxt is None:
            return None
        model = nxt
    return model if isinstance(model, type) else None


def _explain(err: ValidationError, source: str) -> ConfigError:
    first = err.errors()[0]
    loc = tuple(first["loc"])
    where = ".".join(str(p) for p in loc)
    if first["type"] == "extra_forbidden":
        model = _model_for_loc(loc)
        valid = ", ".join(sorted(model.model_fields)) if model else "?"
        return ConfigError(f"{source}: unknown key {where!r}", hint=f"valid keys here: {valid}")
    return ConfigError(f"{source}: {where}: {first['msg']}")


def parse_profile(data: dict[str, Any], source: str = "<profile>") -> Profile:
    try:
        profile = Profile.model_validate({**data, "source": source})
    except ValidationError as err:
        raise _explain(err, source) from None
    if profile.schema_version > PROFILE_SCHEMA_VERSION:
        raise ConfigError(
            f"{source}: profile schema_version {profile.schema_version}; this harness reads "
            f"profiles up to {PROFILE_SCHEMA_VERSION}",
            hint="upgrade harness to read this profile",
        )
    _check_audit(profile, source)
    return profile


def _check_audit(profile: Profile, source: str) -> None:
    """``[audit]`` names rules harness audit judges (harness/audit_catalogue.py), a workload
    the profile has, and only rules that workload can judge."""
    audit = profile.audit
    for name in audit.rules:
        entry = audit_catalogue.entry_named(name)
        if entry is None:
            raise ConfigError(
                f"{source}: audit.rules: no audit rule {name!r}",
                hint=f"rules: {', '.join(audit_catalogue.listable())} (docs/audit.md)",
            )
        if entry.in_process:
            raise ConfigError(
                f"{source}: audit.rules: {name} is judged in the participant's process by "
                "harness vlm audit, not by harness audit",
                hint="leave it out of [audit] rules; its settings are [vlm.audit]",
            )
    if not audit.rules:
        return
    if getattr(profile, audit.workload) is None:
        raise ConfigError(
            f"{source}: audit.workload is {audit.workload!r} but the profile has no "
            f"[{audit.workload}] section",
            hint="name the workload whose section the profile has (latency or throughput)",
        )
    if audit.workload == "throughput":
        needs = audit_catalogue.prompt_route_rules()
        odd = [r for r in audit.rules if r in needs]
        if odd:
            ok = [r for r in audit_catalogue.listable() if r not in needs]
            raise ConfigError(
                f"{source}: audit rule(s) {', '.join(odd)} need the latency grader's prompt "
                "route; the throughput workload has one chat route",
                hint=f"list {', '.join(ok)} (docs/audit.md, 'Per profile')",
            )


def load_profile(name_or_path: str | None = None) -> Profile:
    """Load a profile by name (``tasks/profiles/NAME.toml``) or by path."""
    ref = name_or_path or DEFAULT_PROFILE
    path = Path(ref)
    if not (ref.endswith(".toml") and path.exists()):
        path = PROFILES_DIR / f"{ref}.toml"
    if not path.exists():
        raise ConfigError(
            f"no profile {ref!r}",
            hint=f"pass --profile {' | '.join(available_profiles())} or a path to a .toml",
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(
            f"{path.name}: invalid TOML: {err}",
            hint="fix that line, or pass --profile with a shipped profile's name",
        ) from None
    return parse_profile(data, source=path.name)
