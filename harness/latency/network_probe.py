"""Round-trip probes around every latency bucket (a harness extra, outside the timed requests).

:class:`NetworkProber` is a bucket hook like the /metrics recorder's: before and after
each bucket it sends ``PROBES_PER_EDGE`` probes (harness/client/rtt_probe.py), one at
a time, in a worker thread, and keeps them as :class:`RttProbe` records. Official
mode's timed sequence is untouched: the probes go before the first warm-up of a
bucket and after its last timed request, never between two grader requests.
``--rtt-probes off`` sends none (docs/timing.md, "Network").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from harness.client.rtt_probe import probe_once
from harness.latency.network import network_flags, network_section
from harness.latency.network_report import RttProbe
from harness.latency.report import LatencyReport

BucketHook = Callable[[str, Any, Any], Awaitable[None]]  # the runner's (mode, bucket, edge)
Pair = tuple[Mapping[str, float], Mapping[str, float]]  # /metrics before and after a bucket

# a bucket's round trip is the median of the probes at its two edges: 10 answers, so a
# few slow ones (a loaded client or server) do not move it
PROBES_PER_EDGE = 5


class NetworkProber:
    def __init__(self, base_url: str, path: str, *, enabled: bool = True) -> None:
        self.base_url = base_url
        self.path = path
        self.enabled = enabled
        self.probes: list[RttProbe] = []

    async def probe(self, at: str) -> None:
        if not self.enabled:
            return
        for _ in range(PROBES_PER_EDGE):
            got = await asyncio.to_thread(probe_once, self.base_url, self.path)
            self.probes.append(
                RttProbe(
                    at=at,
                    path=self.path,
                    connect_ms=got.connect_ms,
                    first_ms=got.first_ms,
                    reuse_ms=got.reuse_ms,
                    peer=got.peer,
                    error=got.error,
                )
            )

    async def bucket_hook(self, mode: str, bucket: Any, edge: str) -> None:
        """The latency runner's hook: ``(mode, bucket, "before" | "after")``."""
        await self.probe(f"{edge} {mode} {bucket.name}")

    def around(self, inner: BucketHook | None) -> BucketHook:
        """A bucket hook that probes outside ``inner`` (e.g. the /metrics scrapes): probes,
        ``inner``'s before, the bucket, ``inner``'s after, probes."""

        async def hook(mode: str, bucket: Any, edge: str) -> None:
            if edge == "before":
                await self.bucket_hook(mode, bucket, edge)
            if inner is not None:
                await inner(mode, bucket, edge)
            if edge != "before":
                await self.bucket_hook(mode, bucket, edge)

        return hook

    def attach(self, report: LatencyReport, pairs: Mapping[tuple[str, str], Pair]) -> None:
        """``report.network`` from its rows, these probes and the /metrics ``pairs``, and the
        ``network`` flag when the network is more than a small share of a median."""
        report.network = network_section(report, self.probes, pairs)
        report.flags += network_flags(report.network, report.score)
