"""SimServer: the simulator inside the caller's event loop (tests, --self-test)."""

from __future__ import annotations

from types import TracebackType

from aiohttp import web

from harness.client.urls import url_of
from harness.errors import UsageError
from harness.simulate.app import Simulator
from harness.simulate.config import SimConfig
from harness.simulate.log import LogEntry
from harness.simulate.receive import StampingSite
from harness.tokenizer import Tokenizer


class SimServer:
    """``async with SimServer(cfg, host="127.0.0.1", port=0) as sim:`` → ``sim.url``, ``sim.log``."""

    def __init__(
        self,
        cfg: SimConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.cfg = cfg or SimConfig()
        self.host = host
        self.port = port
        self._tokenizer = tokenizer
        self._runner: web.AppRunner | None = None
        self.sim: Simulator | None = None

    @property
    def url(self) -> str:
        return url_of(self.host, self.port)

    @property
    def log(self) -> list[LogEntry]:
        return list(self._sim().log.entries)

    def clear_log(self) -> None:
        self._sim().log.clear()
        self._sim().engine.cache.clear()

    def _sim(self) -> Simulator:
        if self.sim is None:
            raise RuntimeError("SimServer is not started: use `async with SimServer(...)`")
        return self.sim

    async def start(self) -> SimServer:
        self.sim = Simulator(self.cfg, self._tokenizer)
        # shutdown_timeout small: hanging requests (--hang-rate) must not hold up the exit
        self._runner = web.AppRunner(self.sim.app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = StampingSite(self._runner, self.host, self.port, self.sim.received, backlog=1024)
        try:
            await site.start()
        except OSError as err:
            await self._runner.cleanup()
            raise UsageError(
                f"simulator cannot listen on {self.host}:{self.port}: {err.strerror}",
                hint="pick another --port (0 picks a free one)",
            ) from None
        for addr in self._runner.addresses:
            if isinstance(addr, tuple):
                self.port = int(addr[1])
                break
        return self

    async def stop(self) -> None:
        if self.sim is not None:
            self.sim.closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.sim is not None:
            self.sim.log.close()

    async def __aenter__(self) -> SimServer:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
