"""Per-request records: raw timestamps, token counts, and a classified error.

Timestamps are ``time.perf_counter_ns()`` (CLOCK_MONOTONIC on Linux), taken
when bytes arrive, before any parsing (docs/timing.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from harness.client.failure import ErrorKind as ErrorKind  # re-exported: records name it
from harness.client.failure import server_message
from harness.client.trace import ConnTrace


@dataclass
class RequestError:
    kind: ErrorKind
    message: str
    status: int | None = None
    body_excerpt: str = ""

    def one_line(self) -> str:
        status = f" {self.status}" if self.status else ""
        return f"{self.kind}{status}: {self.message}"

    def with_answer(self) -> str:
        """:meth:`one_line` and, for an HTTP error, the server's own message."""
        message = server_message(self.body_excerpt) if self.status else None
        return f"{self.one_line()}: {message[:200]}" if message else self.one_line()


@dataclass
class StreamEvent:
    """One SSE event: when the bytes that completed it arrived, and what it carried."""

    t_ns: int
    text: str = ""
    reasoning: str = ""


@dataclass
class RequestRecord:
    endpoint: str
    stream: bool
    send_ns: int = 0  # just before the request is handed to the socket
    intended_ns: int | None = None  # the schedule's send time (dispatch lag = send - intended)
    status: int | None = None
    headers_ns: int | None = None  # response headers arrived
    first_byte_ns: int | None = None  # first body bytes
    first_token_ns: int | None = None  # first event carrying any generated text (reasoning too)
    first_content_ns: int | None = None  # first non-reasoning content
    last_token_ns: int | None = None  # last event carrying text
    end_ns: int | None = None  # body fully read (stream ended)
    parsed_ns: int | None = None  # JSON parsed (non-streaming; the official grader's stop)
    text: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    usage_prompt_tokens: int | None = None
    usage_completion_tokens: int | None = None
    usage_total_tokens: int | None = None
    events: list[StreamEvent] = field(default_factory=list)
    n_bytes: int = 0
    content_encoding: str = ""  # the response's Content-Encoding, undone after timing
    error: RequestError | None = None
    # a 200 whose JSON has no choices (or []): the Efficient Qwen grader times it as a
    # success, so official latency does too, and flags it (probably a broken server)
    empty_choices: bool = False
    response: dict[str, Any] | None = None  # the parsed body (non-streaming), for checks
    raw: list[tuple[int, bytes]] = field(
        default_factory=list, repr=False
    )  # streamed reads, until parsed
    conn: ConnTrace | None = None  # the connection's stamps (official mode; client/trace.py)
    # sent a second time: the reused pooled connection it first went out on had been closed
    # by the server, and nothing came back (client/http.py, "A stale pooled connection")
    resent: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def ms(self, end: int | None, start: int | None = None) -> float | None:
        base = self.send_ns if start is None else start
        return None if end is None else (end - base) / 1e6

    @property
    def e2e_ms(self) -> float | None:
        """Official: until the JSON body is parsed; streamed: until the last text event."""
        if self.stream:
            return self.ms(self.last_token_ns or self.end_ns)
        return self.ms(self.parsed_ns or self.end_ns)

    @property
    def ttft_ms(self) -> float | None:
        return self.ms(self.first_token_ns)

    @property
    def dispatch_lag_ms(self) -> float | None:
        return None if self.intended_ns is None else (self.send_ns - self.intended_ns) / 1e6

    def summary(self) -> dict[str, Any]:
        """A compact JSON-able view (no raw bytes, no event list)."""
        d = asdict(self)
        d.pop("raw", None)
        d.pop("events", None)
        d.pop("response", None)
        d["n_events"] = len(self.events)
        return d
