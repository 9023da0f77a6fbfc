"""Serving the portal, the S3 proxy and moto: in the foreground (CLI) or a background thread.

A background thread with its own event loop lets synchronous code (tests that
run ``harness submit`` as a subprocess, benchmarks) talk to a live server.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

from harness.client.urls import url_of
from harness.errors import EngineError

MOTO_PART_MIN_ENV = "S3_UPLOAD_PART_MIN_SIZE"


@contextmanager
def background_app(
    make_app: Callable[[], web.Application], host: str = "127.0.0.1", port: int = 0
) -> Iterator[str]:
    """Run an aiohttp app in a thread; yield its base URL; stop it on exit."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def start() -> None:
        runner = web.AppRunner(make_app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        box["runner"] = runner
        box["port"] = runner.addresses[0][1]

    def main() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(start())
        except OSError as err:
            box["error"] = err
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.run_until_complete(box["runner"].cleanup())
        loop.close()

    thread = threading.Thread(target=main, name="harness-bg-server", daemon=True)
    thread.start()
    if not ready.wait(30) or "error" in box:
        raise EngineError(
            f"could not start a server on {host}:{port}: {box.get('error', 'timeout')}"
        )
    try:
        yield url_of(host, box["port"])
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)


@contextmanager
def moto_s3(part_min_bytes: int | None = None) -> Iterator[str]:
    """moto's S3 server on a free 127.0.0.1 port; yields its URL.

    moto reads its minimum part size from the environment when first imported,
    so a lowered minimum must be set before that import (here, or by the caller).
    """
    if part_min_bytes is not None:
        os.environ.setdefault(MOTO_PART_MIN_ENV, str(part_min_bytes))
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
