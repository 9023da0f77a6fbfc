"""The request log: what every request sent and when each byte of the answer left.

All times are ``time.perf_counter_ns()`` (CLOCK_MONOTONIC on Linux), comparable
across processes on one machine. For every write the simulator keeps three
stamps: the scheduled ``deadline``, ``intended`` (taken right before the write
call) and ``written`` (right after it returned, i.e. the bytes are with the
kernel). Tests compare a client's receive times with ``written``. For the
request itself there are two: ``received_ns`` (its first bytes reached the
process) and ``arrival_ns`` (its handler started); the gap is queueing inside
the simulator when many requests land at once (see receive.py).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.errors import UsageError


@dataclass
class LogEntry:
    index: int
    method: str
    path: str
    arrival_ns: int  # the handler started
    conn_id: int
    peer_port: int | None
    conn_request_index: int  # 0 for the first request on a connection (keep-alive shows as > 0)
    body: Any = None  # the parsed JSON body
    raw_excerpt: str | None = None  # the first bytes when the body was not JSON
    status: int | None = None
    kind: str | None = None  # "completion" / "chat"
    model: str | None = None
    stream: bool = False
    prompt_tokens: int | None = None
    cached_prompt_tokens: int = 0
    completion_tokens: int | None = None  # what was generated (the truth)
    reported_completion_tokens: int | None = None  # what usage said (differs with --usage-skew)
    finish_reason: str | None = None
    output_text: str | None = None
    fault: str | None = None
    error: str | None = None
    chunk_tokens: list[int] = field(default_factory=list)
    chunk_deadline_ns: list[int] = field(default_factory=list)
    chunk_intended_ns: list[int] = field(default_factory=list)
    chunk_written_ns: list[int] = field(default_factory=list)
    end_ns: int | None = None
    # the request's first bytes reached the process (receive.py); None when not seen
    received_ns: int | None = None

    def record_write(
        self, tokens: int, deadline_ns: int, intended_ns: int, written_ns: int
    ) -> None:
        self.chunk_tokens.append(tokens)
        self.chunk_deadline_ns.append(deadline_ns)
        self.chunk_intended_ns.append(intended_ns)
        self.chunk_written_ns.append(written_ns)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LogEntry:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class RequestLog:
    """Entries in arrival order; optionally mirrored to a JSONL file as each request ends.

    Only the newest ``limit`` entries stay in memory (a long-running simulator would
    otherwise grow without bound); the JSONL file keeps them all.
    """

    def __init__(self, path: str | Path | None = None, limit: int = 100_000) -> None:
        self.entries: list[LogEntry] = []
        self.limit = limit
        self._next = 0
        self._file: TextIO | None = None
        if path:
            try:
                self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115
            except OSError as err:
                why = err.strerror or type(err).__name__
                raise UsageError(
                    f"cannot open --log-file {path}: {why}; pass a file in a writable folder"
                ) from None

    def new(self, **fields: Any) -> LogEntry:
        entry = LogEntry(index=self._next, **fields)
        self._next += 1
        self.entries.append(entry)
        if len(self.entries) > self.limit + self.limit // 10:  # trim in batches, not per request
            del self.entries[: len(self.entries) - self.limit]
        return entry

    def finish(self, entry: LogEntry) -> None:
        if self._file is not None:
            self._file.write(json.dumps(entry.to_dict(), ensure_ascii=False) + "\n")
            self._file.flush()

    def clear(self) -> None:
        self.entries.clear()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
