"""Readiness: the profile's ready path answers 200, and how long that took.

The runner observes readiness before any other check (an unreachable server
stops the run with exit 3); the ``readiness`` check reports that observation.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from harness.client.readiness import Watch, probe
from harness.conformance.context import CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed, skipped

GIVE_UP_AFTER = 3  # consecutive answers that are neither 200 nor 503: the route is wrong


@dataclass(frozen=True)
class ReadyObservation:
    url: str
    ready: bool
    reachable: bool  # some HTTP answer came back (any status)
    elapsed_s: float
    attempts: int
    last: str  # "200", "404", "connection refused", ...


async def observe_ready(ctx: CheckContext) -> ReadyObservation:
    """Poll the ready path until 200, a persistent wrong answer, or the timeout."""
    cfg = ctx.cfg
    url = cfg.url + cfg.ready_path
    start = time.monotonic()
    attempts = wrong = 0
    reachable = False
    last = ""
    # the early stops every readiness wait has: nothing listens, a --url with a path, and
    # the answers no wait outgrows (client/ready_faults.py)
    watch = Watch(cfg.url, cfg.ready_path, cfg.ready_timeout_s, wait_for_start=cfg.wait_for_start)
    while True:
        attempts += 1
        last = await probe(ctx.session, url, timeout_s=min(5.0, max(cfg.ready_timeout_s, 0.5)))
        elapsed = time.monotonic() - start
        if last != "200" and ctx.on_attempt is not None:
            ctx.on_attempt(attempts, elapsed, watch.line(last, elapsed))
        watch.refused(last, elapsed)
        await watch.wrong_prefix(last)
        watch.certain(last)  # https:// to plain HTTP, an unknown host, a web page
        if last.isdigit():
            reachable = True
            if last == "200":
                return ReadyObservation(url, True, True, elapsed, attempts, last)
            wrong = 0 if last == "503" else wrong + 1  # 503: vLLM still loading
            if wrong >= GIVE_UP_AFTER:
                break
        if elapsed >= cfg.ready_timeout_s:  # the whole --ready-timeout, not a whole interval less
            break
        await asyncio.sleep(min(cfg.ready_interval_s, cfg.ready_timeout_s - elapsed))
    if not reachable:
        # The ready path never answered: is anything listening at all?
        other = await probe(ctx.session, cfg.url + "/v1/models", timeout_s=5.0)
        reachable = other.isdigit()
    return ReadyObservation(url, False, reachable, time.monotonic() - start, attempts, last)


@check("readiness", group="readiness", title="ready path answers 200", phase="first")
async def readiness(ctx: CheckContext) -> Outcome:
    obs: ReadyObservation = await ctx.memo("ready", lambda: observe_ready(ctx))
    path = ctx.cfg.ready_path
    ev = [
        Evidence(
            method="GET",
            path=path,
            status=int(obs.last) if obs.last.isdigit() else None,
            response=obs.last,
            elapsed_ms=round(obs.elapsed_s * 1000, 1),
        )
    ]
    tries = f"{obs.attempts} attempt{'s' if obs.attempts != 1 else ''}"
    if obs.ready:
        return passed(
            f"GET {path} 200 after {obs.elapsed_s:.1f} s ({tries})",
            ev,
            time_to_ready_s=round(obs.elapsed_s, 3),
        )
    if obs.last.isdigit() and obs.last != "503":
        return failed(
            f"GET {path} answered {obs.last} ({tries}); the grader polls {path} until it "
            "gets 200 and gives up after its timeout",
            ev,
        )
    return failed(
        f"GET {path} not 200 within {ctx.cfg.ready_timeout_s:g} s ({tries} over"
        f" {obs.elapsed_s:.1f} s, last: {obs.last})",
        ev,
    )


@check("offline", group="offline", title="ready without network", phase="first")
async def offline(ctx: CheckContext) -> Outcome:
    # Needs the image: the gate starts the container with no network and runs check on it.
    return skipped("needs --image: `harness gate --image` runs the container without network")
