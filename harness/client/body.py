"""Reading a whole response body with a size cap.

``StreamReader.read(n)`` returns whatever has arrived, up to ``n`` bytes: one
chunk, not the body. A ``/metrics`` page larger than one TCP read (vLLM's is,
once its histograms fill) came back cut mid-line. This reads to the end.
"""

from __future__ import annotations

import aiohttp

_CHUNK = 64 * 1024


class BodyTooLarge(ValueError):
    """The body passed the cap; nothing of it is used."""


async def read_body(resp: aiohttp.ClientResponse, cap: int) -> bytes:
    """Every byte of the body, or :class:`BodyTooLarge` once it passes ``cap`` bytes."""
    chunks: list[bytes] = []
    total = 0
    async for chunk in resp.content.iter_chunked(_CHUNK):
        total += len(chunk)
        if total > cap:
            raise BodyTooLarge(f"body larger than {cap // (1024 * 1024)} MiB")
        chunks.append(chunk)
    return b"".join(chunks)
