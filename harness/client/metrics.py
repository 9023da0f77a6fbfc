"""Scraping the server's Prometheus ``/metrics`` (a harness extra, never a grader request).

Parsed with prometheus_client's text parser. Samples are summed over their
label sets (one server may label per model or per engine), so a snapshot is a
flat ``sample name → value`` map; a gauge also keeps its largest label set's value
under ``max(NAME)`` (:func:`peak_key`: a fraction repeated per engine core must not add
up past 1); ``*_info`` metrics keep their labels, where engines put versions and settings. A missing or unreadable ``/metrics`` is a
note, not an error: the :class:`MetricsRecorder` stops asking after the first
failure and the report says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from harness.client.body import BodyTooLarge, read_body
from harness.engines.read import peak_key

_BODY_MAX = 16 * 1024 * 1024


@dataclass
class MetricsSnapshot:
    values: dict[str, float] = field(default_factory=dict)
    info: dict[str, dict[str, str]] = field(default_factory=dict)  # *_info metric → labels


@dataclass
class Scrape:
    snapshot: MetricsSnapshot | None
    note: str | None = None  # why there is no snapshot


def parse_exposition(text: str) -> MetricsSnapshot:
    """Prometheus text → snapshot. Raises ValueError on text the parser cannot read."""
    snap = MetricsSnapshot()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith("_created"):
                continue  # creation timestamps, not counts
            if family.type == "info" or sample.name.endswith("_info"):
                snap.info.setdefault(sample.name, {}).update(sample.labels)
            snap.values[sample.name] = snap.values.get(sample.name, 0.0) + float(sample.value)
            if family.type == "gauge" and not sample.name.endswith("_info"):
                peak = peak_key(sample.name)
                snap.values[peak] = max(snap.values.get(peak, float("-inf")), float(sample.value))
    return snap


async def scrape(
    session: aiohttp.ClientSession, base_url: str, *, path: str = "/metrics", timeout_s: float = 10
) -> Scrape:
    """One GET of ``/metrics``; every failure becomes a one-line note."""
    url = base_url.rstrip("/") + path
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            if resp.status != 200:
                return Scrape(None, f"GET {path} answered HTTP {resp.status}")
            raw = await read_body(resp, _BODY_MAX)
    except BodyTooLarge as err:
        return Scrape(None, f"GET {path}: {err}")
    except (aiohttp.ClientError, TimeoutError) as err:
        return Scrape(None, f"GET {path} failed: {type(err).__name__}")
    try:
        return Scrape(parse_exposition(raw.decode("utf-8", "replace")))
    except ValueError as err:
        return Scrape(None, f"GET {path}: not Prometheus text ({str(err)[:120]})")


class MetricsRecorder:
    """Scrapes at each bucket/level edge and keeps (before, after) value maps per (mode, name).

    Each scrape opens its own short session, so the measured requests' connections
    (official mode: a new one per request) are untouched. Scrapes happen between
    buckets, never while one is measured.
    """

    def __init__(self, base_url: str, *, enabled: bool = True, timeout_s: float = 10) -> None:
        self.base_url = base_url
        self.enabled = enabled
        self.timeout_s = timeout_s
        self.pairs: dict[tuple[str, str], tuple[dict[str, float], dict[str, float]]] = {}
        self.notes: list[str] = []
        self.last: MetricsSnapshot | None = None
        self._open: dict[tuple[str, str], dict[str, float]] = {}

    async def take(self) -> MetricsSnapshot | None:
        if not self.enabled:
            return None
        async with aiohttp.ClientSession() as session:
            got = await scrape(session, self.base_url, timeout_s=self.timeout_s)
        if got.snapshot is None:
            self.enabled = False  # one note, not one per bucket
            self.notes.append(f"{got.note}: no attribution from server counters")
            return None
        self.last = got.snapshot
        return got.snapshot

    async def bucket_hook(self, mode: str, bucket: Any, edge: str) -> None:
        """The latency runner's hook: ``(mode, bucket, "before" | "after")``."""
        await self.edge("start" if edge == "before" else "end", mode, bucket.name)

    async def edge(self, edge: str, mode: str, name: str) -> None:
        """The runners' hook: called at the start and at the end of a bucket or level."""
        snap = await self.take()
        if snap is None:
            return
        key = (mode, name)
        if edge == "start":
            self._open[key] = snap.values
        elif key in self._open:
            self.pairs[key] = (self._open.pop(key), snap.values)
