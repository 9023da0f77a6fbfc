"""harness's pooled client meets a server that closes a keep-alive connection it said it
would keep (harness/client/http.py, "A stale pooled connection").

llama.cpp's ``llama-server`` (cpp-httplib) closes the connection after every streamed
answer while its headers say ``Keep-Alive: timeout=5, max=100``: the next request the pool
put on that connection failed with ``ServerDisconnectedError`` (seen at c=8 in
``harness check``, after the stream checks). The server here does the same on purpose,
without the race: it answers, keeps the connection, and closes it when the next request
arrives on it, unanswered. A request that met such a connection is sent once more on a new
one; a request whose fresh connection breaks, or that got an answer, is never resent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from harness.client.http import HttpOptions, make_session, send_request
from harness.client.records import ErrorKind

pytestmark = pytest.mark.timeout(60)

BODY = {"prompt": "hi", "max_tokens": 4, "temperature": 0.0}
ANSWER = b'{"choices":[{"text":"ok","index":0,"finish_reason":"stop"}]}'


@dataclass
class ClosingServer:
    """Answers the first request of each connection (keep-alive) and closes the connection,
    unanswered, at its second; ``answer_first=False``: closes at the first request too."""

    answer_first: bool = True
    connections: int = 0
    answered: int = 0
    dropped: int = 0
    server: asyncio.Server | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1/completions"

    async def _read_request(self, reader: asyncio.StreamReader) -> bool:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return False
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        return True

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        first = True
        while await self._read_request(reader):
            if first and self.answer_first:
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Keep-Alive: timeout=5, max=100\r\n"
                    + f"Content-Length: {len(ANSWER)}\r\n\r\n".encode()
                    + ANSWER
                )
                await writer.drain()
                self.answered += 1
                first = False
                continue
            self.dropped += 1
            break
        writer.close()


@pytest.fixture
async def closing_server() -> AsyncIterator[ClosingServer]:
    srv = ClosingServer()
    srv.server = await asyncio.start_server(srv.handle, "127.0.0.1", 0)
    yield srv
    srv.server.close()
    await srv.server.wait_closed()


async def test_a_request_on_a_closed_reused_connection_is_sent_again(closing_server):
    async with make_session(HttpOptions(timeout_s=10)) as session:
        first = await send_request(session, closing_server.url, BODY)
        second = await send_request(session, closing_server.url, BODY)
    assert first.ok and not first.resent
    # the pool reused the first connection; the server closed it unanswered; sent again
    assert second.ok, second.error
    assert second.resent and second.text == "ok"
    assert (closing_server.connections, closing_server.answered, closing_server.dropped) == (
        2,
        2,
        1,
    )


async def test_a_fresh_connection_that_breaks_is_not_sent_again(closing_server):
    closing_server.answer_first = False
    async with make_session(HttpOptions(timeout_s=10)) as session:
        rec = await send_request(session, closing_server.url, BODY)
    assert rec.error is not None and rec.error.kind is ErrorKind.DISCONNECTED
    assert not rec.resent
    assert (closing_server.connections, closing_server.dropped) == (1, 1)


async def test_a_new_connection_per_request_never_meets_a_stale_one(closing_server):
    opts = HttpOptions(timeout_s=10, new_connection_per_request=True)
    async with make_session(opts) as session:
        recs = [await send_request(session, closing_server.url, BODY) for _ in range(3)]
    assert all(r.ok and not r.resent for r in recs)
    assert (closing_server.connections, closing_server.dropped) == (3, 0)
