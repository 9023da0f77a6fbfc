"""The packaged image for the gate: started with no route out and measured (``gate --image``),
or named by its id (``gate --image-id``). The package kind's engine facet
(harness/kinds/record.py: ``KindImage``); the gate calls it through the record.

An image the engine cannot start (or whose container exits before it is ready) fails the
submission: the engine's whole message becomes the failed ``starts`` rule of
``package.json`` (``record_did_not_start``), so the verdict is FAIL with that reason.
"""

from __future__ import annotations

import asyncio

from harness.errors import EXIT_FAIL, HarnessError
from harness.image.config import PackageOverrides
from harness.image.engine import connect, engine_errors
from harness.image.launch_record import image_launch
from harness.image.preflight import platform_failure
from harness.image.report import record_did_not_start
from harness.image.run import ImageDidNotStart, image_attrs, running_image
from harness.kinds.record import ImageRun
from harness.manifest.record import record_manifest


def serve(run: ImageRun) -> int:
    """Run the image offline, record what ran, and hand its URL to the gate's server steps.
    Returns their worst stop code, or this start's (EXIT_FAIL: it did not start)."""
    if (wrong := platform_failure(run.folder)) is not None:
        # package.json carries the FAIL reason; an image for another platform cannot start
        run.say(f"not run: the image is for {wrong.split(':')[0]}")
        return EXIT_FAIL
    overrides: PackageOverrides = run.overrides
    try:
        client = connect(overrides.docker_host)
    except HarnessError as err:
        run.error(err)
        return err.exit_code
    server, ready = run.profile.server, run.profile.readiness

    async def start_and_measure() -> int:
        async with running_image(
            client,
            run.image,
            port=server.port,
            ready_path=server.ready_path,
            interval_s=ready.poll_interval_s,
            timeout_s=run.ready_timeout_s,
        ) as img:
            run.say(
                f"image ready at {img.url} after {img.ready_s:.1f} s (no route to the internet)"
            )
            # what ran: the image's inspection beside the server's own account (docs/manifest.md)
            launched = image_launch(
                run.image, img.attrs, await asyncio.to_thread(image_attrs, client, run.image)
            )
            await record_manifest(run.folder, img.url, taken="before", launched=launched)
            # The steps run their own event loops: off this one's thread.
            return await asyncio.to_thread(run.measure, img.url)

    try:
        return asyncio.run(start_and_measure())
    except ImageDidNotStart as err:
        run.error(err)
        return EXIT_FAIL if record_did_not_start(run.folder, err.message) else err.exit_code
    except HarnessError as err:  # the engine, not the image: judged as what was measured
        run.error(err)
        return err.exit_code
    finally:
        client.close()


def identify(name: str, overrides: PackageOverrides) -> str:
    """``name``'s id in the engine (``--docker-host`` / ``$DOCKER_HOST``); an EngineError when
    the engine cannot name it."""
    with engine_errors(f"looking up image {name}"):
        return str(connect(overrides.docker_host, timeout_s=30).images.get(name).id)
