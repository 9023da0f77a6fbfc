"""When each request's first bytes reached the simulator process, before any queueing in it.

The log's ``arrival_ns`` is stamped when the request's handler starts. When many
requests land at once (a closed loop at concurrency 64 sends a whole wave
together), each handler waits for the ones before it, so ``arrival_ns`` runs
up to tens of ms behind the bytes: that wait is the simulator's own queueing,
which a client sees as latency but cannot cause. ``received_ns`` is taken in
the connection's ``data_received``, the first moment the process sees the
bytes, so ``first write − received`` is the latency the server really imposed
and ``client TTFT − that`` is the client's own error.

:class:`StampingSite` is aiohttp's TCP site with each connection's protocol
wrapped in :class:`_Stamping`; :class:`ReceiveStamps` holds, per transport, the
time of the first bytes not yet claimed by a request.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from harness.client.urls import url_of

_now = time.perf_counter_ns


class ReceiveStamps:
    """Per connection: when the bytes of its next (not yet started) request began to arrive."""

    def __init__(self) -> None:
        self._pending: dict[Any, int] = {}

    def seen(self, transport: Any) -> None:
        self._pending.setdefault(transport, _now())

    def claim(self, transport: Any) -> int | None:
        """The stamp of the request starting now on ``transport`` (None if not seen)."""
        return self._pending.pop(transport, None)

    def forget(self, transport: Any) -> None:
        """Drop bytes that belonged to a finished request (a body's later segments)."""
        self._pending.pop(transport, None)


class _Stamping(asyncio.Protocol):
    """aiohttp's protocol for one connection, with the time of incoming bytes noted first."""

    def __init__(self, inner: asyncio.Protocol, stamps: ReceiveStamps) -> None:
        self.inner = inner
        self.stamps = stamps
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.stamps.seen(self.transport)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stamps.forget(self.transport)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class StampingSite(web.BaseSite):
    """``web.TCPSite`` whose connections stamp their incoming bytes into ``stamps``."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        stamps: ReceiveStamps,
        *,
        backlog: int = 1024,
    ) -> None:
        super().__init__(runner, backlog=backlog)
        self._host = host
        self._port = port
        self._stamps = stamps

    @property
    def name(self) -> str:
        return url_of(self._host, self._port)

    async def start(self) -> None:
        await super().start()
        factory = self._runner.server
        assert factory is not None
        stamps = self._stamps
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Stamping(factory(), stamps), self._host, self._port, backlog=self._backlog
        )
