"""``harness gate --image``: package the image, run it with no route out, measure it like --url.

The image steps (the kinds whose ``gate_step`` is ``"image"``: package) run on
the image first, through their cores; the measuring is ``orchestrate.run_steps``
against the running container, on a copy of the plan that names its URL.

An image the engine cannot start (or whose container exits before it is ready)
fails the submission: the engine's whole message becomes the failed ``starts``
rule of ``package.json``, so the verdict is FAIL with that reason (exit 1), and
``gate RUN_DIR`` judges the folder the same way later (harness/image/serve.py, the
engine kind's ``image`` facet). Any other error here (no engine, no such image) is
shown in one line and the verdict is written all the same.
"""

from __future__ import annotations

from dataclasses import replace

from harness.errors import EXIT_INTERRUPTED, EXIT_TARGET, EXIT_USAGE, HarnessError
from harness.flags import READY_TIMEOUT
from harness.gate.hooks import GateHooks
from harness.gate.orchestrate import GatePlan, StepsRun, run_step, run_steps
from harness.kinds.record import ImageRun
from harness.overrides import gate_key
from harness.registry import engine_kind
from harness.target import Target


def image_steps(image: str, plan: GatePlan, hooks: GateHooks) -> int:
    """The image steps, in order (package: ``docker save`` → inspect → judge); the exit code
    of the first that stopped with an error (130 at once on Ctrl-C), else 0."""
    target = Target(folder=plan.folder, image=image)
    rc = 0
    for kind in plan.steps("image"):
        hooks.step(kind.name)
        try:
            run_step(kind, plan, hooks, target)
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except HarnessError as err:  # judged as a missing or failed package; measure anyway
            hooks.error(err)
            rc = rc or err.exit_code
        finally:
            hooks.step_end(kind.name)
    return rc


def measure_image(image: str, plan: GatePlan, hooks: GateHooks) -> StepsRun:
    """package → run the image offline → ``run_steps`` against it. Returns the worst stop code
    and the server steps a stop left unmeasured.

    Starting the image is the engine kind's (its record's ``image`` facet: package), so the
    gate names no kind and imports no container SDK itself."""
    stopped = image_steps(image, plan, hooks)
    if stopped in (EXIT_INTERRUPTED, EXIT_USAGE, EXIT_TARGET):
        # Ctrl-C; no such image, a bad option; or no engine (said once, by the package step):
        # nothing to start
        return StepsRun(rc=stopped)
    kind, engine = engine_kind()
    served = StepsRun()

    def measure(url: str) -> int:
        ran = run_steps(replace(plan, url=url), hooks)
        served.not_run.update(ran.not_run)
        return ran.rc

    wait = plan.options.get(gate_key(READY_TIMEOUT))
    run = ImageRun(
        image=image,
        overrides=plan.overrides(kind),
        profile=plan.profile,
        folder=plan.folder,
        ready_timeout_s=float(wait)
        if isinstance(wait, int | float)
        else plan.profile.readiness.timeout_s,
        say=hooks.say,
        error=hooks.error,
        measure=measure,
    )
    served.rc = engine.serve_image(run)
    return served
