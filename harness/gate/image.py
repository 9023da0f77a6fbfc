"""``harness gate --image``: package the image, run it with no route out, measure it like --url.

The package step calls the package core (``harness.image.package.package``) with
a typed config; the measuring is ``orchestrate.run_steps`` against the running
container. Its reports record the ``harness package`` line that re-runs it.
"""

from __future__ import annotations

import asyncio

from harness.errors import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK, ConfigError, HarnessError
from harness.gate.hooks import GateHooks
from harness.gate.orchestrate import GatePlan, run_steps


def package_command_line(image: str, plan: GatePlan, docker_host: str | None) -> list[str]:
    argv = ["harness", "package", "--image", image, "--profile", plan.profile_ref]
    argv += ["--out", str(plan.folder)]
    if docker_host:
        argv += ["--docker-host", docker_host]
    return argv


def package_step(image: str, plan: GatePlan, docker_host: str | None, hooks: GateHooks) -> int:
    """``docker save`` → image.tar.gz → inspect → judge, into the run folder."""
    from harness.image.engine import connect
    from harness.image.package import PackageConfig, package

    spec = plan.profile.package
    if spec is None:
        raise ConfigError(f"profile {plan.profile.name!r} has no [package] section")
    cfg = PackageConfig(image=image, archive=plan.folder / spec.image_filename, spec=spec)
    client = connect(docker_host)
    try:
        report = package(cfg, client, hooks.bytes)
    finally:
        client.close()
    report.provenance = plan.provenance(package_command_line(image, plan, docker_host))
    report.save(plan.folder)
    hooks.package_done(report)
    return EXIT_OK if report.passed else EXIT_FAIL


def measure_image(
    image: str,
    plan: GatePlan,
    hooks: GateHooks,
    *,
    docker_host: str | None = None,
) -> int:
    """package → run the image offline → ``run_steps`` against it. Returns the worst stop code."""
    from harness.image.engine import connect
    from harness.image.run import running_image

    hooks.step("package")
    try:
        package_step(image, plan, docker_host, hooks)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except HarnessError as err:  # judged as a missing or failed package; measure anyway
        hooks.error(err)
    finally:
        hooks.step_end("package")
    from harness.image.preflight import platform_failure

    if (wrong := platform_failure(plan.folder)) is not None:
        # package.json carries the FAIL reason; an image for another platform cannot start
        hooks.say(f"not run: the image is for {wrong.split(':')[0]}")
        return EXIT_FAIL
    client = connect(docker_host)
    ready = plan.profile.readiness

    async def start_and_measure() -> int:
        async with running_image(
            client,
            image,
            port=plan.profile.server.port,
            ready_path=plan.profile.server.ready_path,
            interval_s=ready.poll_interval_s,
            timeout_s=plan.ready_timeout or ready.timeout_s,
        ) as img:
            hooks.say(
                f"image ready at {img.url} after {img.ready_s:.1f} s (no route to the internet)"
            )
            plan.url = img.url
            # The steps run their own event loops: off this one's thread.
            return await asyncio.to_thread(run_steps, plan, hooks)

    return asyncio.run(start_and_measure())
