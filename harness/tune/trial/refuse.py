"""What a tune refuses before its first candidate starts (exit 2, one line; an image's engine:
exit 3): every step's config built and its prerequisites checked as the gate does it
(``check_plan``: a bucket the profile lacks, an ``until_ci`` that could never stop, the
quality data), an image candidate's engine and image, and the SLOs against the latency
config the plan built (harness/tune/trial/slo_step.py). The settings the checks need (the
runs, the buckets, the mode) are read off those configs, never derived again from
SPACE.toml's options.

The order the refusals are said in: the latency config's ``until_ci`` refusal (in
SPACE.toml's words), the image, any other refusal of the plan, the SLOs.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError, HarnessError
from harness.gate.orchestrate import UNSTARTED, GatePlan, StepConfigs, check_plan
from harness.latency.config import UntilCiRefused
from harness.latency.kind import KIND as LATENCY
from harness.profiles import Profile
from harness.tune.space import Space
from harness.tune.trial import slo_step


def preflight(space: Space, profile: Profile, folder: Path) -> StepConfigs:
    """The checks above, in that order (raises the first refusal); the plan's configs."""
    plan = GatePlan(url=UNSTARTED, folder=folder, profile=profile, options=space.options.gate())
    refused: HarnessError | None = None
    try:
        configs = check_plan(plan)
    except UntilCiRefused as err:  # SPACE.toml's words before the latency flags'
        raise until_ci_words(err) from None
    except HarnessError as err:  # said after the image's check
        refused = err
    if space.serve.image is not None:  # the engine answers and has the image
        from harness.tune.launch.container import check_image

        check_image(space.serve.image, space.serve.docker_host)
    if refused is not None:
        raise refused
    slo_step.preflight(space, profile, configs.of(LATENCY))
    return configs


def until_ci_words(err: UntilCiRefused) -> ConfigError:
    """The latency config's refusal of an ``until_ci`` that could never stop a bucket early,
    said in SPACE.toml's options (``err.runs``: the config's, options.runs else the
    profile's)."""
    from harness.stats.median_sequence import MIN_RUNS

    if err.why == "first_look":
        return ConfigError(
            f"SPACE.toml: options.until_ci makes its first look at {MIN_RUNS} successful "
            f"runs and runs = {err.runs} ends before it, so it could never stop a bucket early",
            hint=f"raise options.runs to {MIN_RUNS} or more, or drop options.until_ci",
        )
    return ConfigError(
        f"SPACE.toml: options.until_ci_at: no 95 % interval of a {err.at} exists within "
        f"{err.runs} runs, so until_ci could never stop a bucket early",
        hint="stop on the median or a lower percentile, or raise options.runs (a p90 "
        "has its first interval at about 37 runs, a p95 at 92, a p99 at 461)",
    )
