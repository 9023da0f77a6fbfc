"""Writing an answer on schedule: whole JSON bodies, SSE streams, and the write-time faults.

Each timed write is stamped right before the write call ("intended") and right
after it returned ("written"); see harness/simulate/log.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from aiohttp import web

from harness.simulate.engine import Plan
from harness.simulate.faults import Fault
from harness.simulate.log import LogEntry
from harness.simulate.shapes import DONE, ChunkTemplate, dumps, full_response, usage
from harness.simulate.timing import sleep_until

_now = time.perf_counter_ns
Spin = Callable[[], int]  # the busy-wait budget (ns) for the next sleep, decided at that moment


def drop(request: web.Request, entry: LogEntry) -> web.StreamResponse:
    """Close the connection under the client's feet and end the handler without an answer."""
    entry.status = 0
    if request.transport is not None:
        request.transport.close()
    # aiohttp treats a cancelled handler as a gone client: it sends nothing more.
    raise asyncio.CancelledError()


def json_response(data: bytes, status: int, entry: LogEntry | None) -> web.Response:
    if entry is not None:
        entry.status = status
    return web.Response(body=data, status=status, content_type="application/json")


def whole_body(
    entry: LogEntry, plan: Plan, kind: str, rid: str, model: str, token_ids: list[int] | None
) -> bytes:
    """The non-streamed answer's JSON bytes."""
    u = usage(plan.prompt_tokens, plan.reported_completion_tokens)
    body = full_response(kind, rid, model, entry.output_text or "", plan.finish_reason, u)
    if token_ids is not None:
        body["choices"][0]["token_ids"] = token_ids
    return dumps(body)


async def emit_whole(
    request: web.Request,
    entry: LogEntry,
    plan: Plan,
    kind: str,
    rid: str,
    model: str,
    spin: Spin,
    token_ids: list[int] | None = None,
) -> web.StreamResponse:
    """The JSON body, written when the last token is due (``token_ids``: vLLM's
    ``return_token_ids`` answer, every generated id)."""
    data = whole_body(entry, plan, kind, rid, model, token_ids)
    if entry.fault is Fault.MALFORMED_JSON:
        data = data[: len(data) // 2]
    deadline = plan.deadline(max(len(plan.pieces) - 1, 0))
    await sleep_until(deadline, spin())
    if entry.fault is Fault.DROP:
        return drop(request, entry)
    resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    resp.content_length = len(data)
    entry.status = 200
    intended = _now()
    await resp.prepare(request)
    await resp.write(data)
    entry.record_write(len(plan.pieces), deadline, intended, _now())
    await resp.write_eof()
    return resp


async def emit_stream(
    request: web.Request,
    entry: LogEntry,
    plan: Plan,
    tmpl: ChunkTemplate,
    spin: Spin,
    *,
    per: int,
    usage_chunk: bool,
    second_end: bool = False,
) -> web.StreamResponse:
    """SSE events of ``per`` tokens, each written when its last token is due; then usage, [DONE].

    Events already overdue when one is written (the process was starved of CPU)
    go out in the same write call: one system call catches up instead of many,
    and the log gives them the same write time, which is when they left.
    Faults strike at the middle event: DROP closes the connection before it,
    MALFORMED_JSON cuts its JSON in half, MALFORMED_SSE strips its framing (and
    the stream then ends without [DONE]).
    """
    resp = web.StreamResponse(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    entry.status = 200
    await resp.prepare(request)
    events = _events(plan, per)
    render = _Renderer(plan, tmpl, entry.fault, events)
    drop_at = len(events) // 2 if entry.fault is Fault.DROP else -1
    i = 0
    while i < len(events):
        await sleep_until(events[i][0], spin())
        if i == drop_at:
            return drop(request, entry)
        intended = _now()
        j = i + 1
        while j < len(events) and j != drop_at and events[j][0] <= intended:
            j += 1
        data = render(i) if j == i + 1 else b"".join(render(k) for k in range(i, j))
        await resp.write(data)
        written = _now()
        for deadline, start, end in events[i:j]:
            entry.record_write(end - start, deadline, intended, written)
        i = j
    if second_end:  # --stream-mismatch eos: the EOS token as text, and a second finish
        await resp.write(tmpl.chunk("<|im_end|>", plan.finish_reason))
    if entry.fault is not Fault.MALFORMED_SSE:
        tail = DONE
        if usage_chunk:
            tail = (
                tmpl.usage_chunk(usage(plan.prompt_tokens, plan.reported_completion_tokens)) + DONE
            )
        await resp.write(tail)
    await resp.write_eof()
    return resp


def _events(plan: Plan, per: int) -> list[tuple[int, int, int]]:
    """(deadline, first piece, end piece) of every event: ``per`` tokens each, due with its last."""
    n = len(plan.pieces)
    if n == 0:
        return [(plan.deadline(0), 0, 0)]
    return [(plan.deadline(min(s + per, n) - 1), s, min(s + per, n)) for s in range(0, n, per)]


class _Renderer:
    """The bytes of event ``k``, made when it is written: rendering every event up front
    cost each new request ~0.2 ms of the loop before its first sleep, which delayed
    the requests arriving with it. The middle event is broken by a fault."""

    def __init__(
        self, plan: Plan, tmpl: ChunkTemplate, fault: str | None, events: list[tuple[int, int, int]]
    ) -> None:
        self.pieces = plan.pieces
        self.finish = plan.finish_reason
        self.tmpl = tmpl
        self.fault = fault
        self.events = events

    def __call__(self, k: int) -> bytes:
        _, start, end = self.events[k]
        last = k == len(self.events) - 1
        text = "".join(p.escaped for p in self.pieces[start:end])
        data = self.tmpl.chunk(text, self.finish if last else None)
        if k == 0 and self.tmpl.kind == "chat":
            data = self.tmpl.role_chunk() + data
        if k == len(self.events) // 2:
            if self.fault is Fault.MALFORMED_JSON:
                data = data[: len(data) // 2] + b"\n\n"
            elif self.fault is Fault.MALFORMED_SSE:
                data = data.removeprefix(b"data: ")[:-1]
        return data
