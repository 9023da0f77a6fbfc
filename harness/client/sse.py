"""An incremental Server-Sent Events splitter.

Feed it bytes as they arrive; it returns complete events. It handles ``\\n``,
``\\r\\n`` and ``\\r`` line ends, multi-line ``data:`` fields, comment lines
(``:`` keep-alives), fields other than ``data`` (ignored) and events split
across reads at any byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SSESplitter:
    _buf: bytearray = field(default_factory=bytearray)
    _data: list[str] = field(default_factory=list)
    comments: int = 0

    def feed(self, chunk: bytes) -> list[str]:
        """Return the ``data`` payloads of every event completed by ``chunk``."""
        self._buf += chunk
        events: list[str] = []
        while True:
            found = self._find_line_end()
            if found is None:
                break
            end, skip = found
            line = bytes(self._buf[:end]).decode("utf-8", errors="replace")
            del self._buf[: end + skip]
            if line == "":
                if self._data:
                    events.append("\n".join(self._data))
                    self._data = []
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                self._data.append(value)
        return events

    def _find_line_end(self) -> tuple[int, int] | None:
        buf = self._buf
        i_n = buf.find(b"\n")
        i_r = buf.find(b"\r")
        if i_r < 0 and i_n < 0:
            return None
        if i_r < 0 or (0 <= i_n < i_r):
            return (i_n, 1)
        # a lone \r at the very end may be the first half of \r\n: wait for more
        if i_r == len(buf) - 1:
            return None
        return (i_r, 2 if buf[i_r + 1 : i_r + 2] == b"\n" else 1)

    def flush(self) -> list[str]:
        """Events left when the stream ended without a final blank line."""
        events: list[str] = []
        if self._buf:
            tail = bytes(self._buf).decode("utf-8", errors="replace")
            self._buf.clear()
            for line in tail.splitlines():
                if line.startswith("data:"):
                    self._data.append(line[5:].removeprefix(" "))
        if self._data:
            events.append("\n".join(self._data))
            self._data = []
        return events

    @property
    def pending(self) -> bool:
        return bool(self._buf.strip()) or bool(self._data)
