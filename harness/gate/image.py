"""``harness gate --image``: package the image, run it with no route out, measure it like --url.

The image steps (the kinds whose ``gate_step`` is ``"image"``: package) run on
the image first, through their cores; the measuring is ``orchestrate.run_steps``
against the running container, on a copy of the plan that names its URL.

An image the engine cannot start (or whose container exits before it is ready)
fails the submission: the engine's whole message becomes the failed ``starts``
rule of ``package.json``, so the verdict is FAIL with that reason (exit 1), and
``gate RUN_DIR`` judges the folder the same way later. Any other error here (no
engine, no such image) is shown in one line and the verdict is written all the same.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from harness.errors import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_TARGET, EXIT_USAGE, HarnessError
from harness.flags import READY_TIMEOUT
from harness.gate.hooks import GateHooks
from harness.gate.orchestrate import GatePlan, run_step, run_steps
from harness.image.config import PackageOverrides
from harness.image.report import record_did_not_start
from harness.manifest.record import record_manifest
from harness.overrides import gate_key
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


def measure_image(image: str, plan: GatePlan, hooks: GateHooks) -> int:
    """package → run the image offline → ``run_steps`` against it. Returns the worst stop code."""
    from harness.image.engine import connect
    from harness.image.launch_record import image_launch
    from harness.image.preflight import platform_failure
    from harness.image.run import ImageDidNotStart, image_attrs, running_image

    stopped = image_steps(image, plan, hooks)
    if stopped in (EXIT_INTERRUPTED, EXIT_USAGE, EXIT_TARGET):
        # Ctrl-C; no such image, a bad option; or no engine (said once, by the package step):
        # nothing to start
        return stopped
    if (wrong := platform_failure(plan.folder)) is not None:
        # package.json carries the FAIL reason; an image for another platform cannot start
        hooks.say(f"not run: the image is for {wrong.split(':')[0]}")
        return EXIT_FAIL
    try:
        client = connect(PackageOverrides.from_gate(plan.options).docker_host)
    except HarnessError as err:
        hooks.error(err)
        return err.exit_code
    ready = plan.profile.readiness
    wait = plan.options.get(gate_key(READY_TIMEOUT))

    async def start_and_measure() -> int:
        async with running_image(
            client,
            image,
            port=plan.profile.server.port,
            ready_path=plan.profile.server.ready_path,
            interval_s=ready.poll_interval_s,
            timeout_s=float(wait) if isinstance(wait, int | float) else ready.timeout_s,
        ) as img:
            hooks.say(
                f"image ready at {img.url} after {img.ready_s:.1f} s (no route to the internet)"
            )
            # what ran: the image's inspection beside the server's own account (docs/manifest.md)
            launched = image_launch(
                image, img.attrs, await asyncio.to_thread(image_attrs, client, image)
            )
            await record_manifest(plan.folder, img.url, taken="before", launched=launched)
            # The steps run their own event loops: off this one's thread.
            return await asyncio.to_thread(run_steps, replace(plan, url=img.url), hooks)

    try:
        return asyncio.run(start_and_measure())
    except ImageDidNotStart as err:
        hooks.error(err)
        return EXIT_FAIL if record_did_not_start(plan.folder, err.message) else err.exit_code
    except HarnessError as err:  # the engine, not the image: judged as what was measured
        hooks.error(err)
        return err.exit_code
    finally:
        client.close()
