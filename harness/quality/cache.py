"""Answers kept on disk so a killed run resumes without asking the server again.

The key is a hash of the server's identity (``identity.py``: URL, model, what the
server says of itself, its process start time) and the exact request body, so a
different or restarted server, model, cap or thinking flag never reuses an answer;
answers of another identity stay in the file (set aside, never deleted). The
identity the cache last answered for is recorded beside them (``meta``). Only successful answers are stored: a failure is asked again
on resume, and a cached null can never break a resumed run (lm-eval #3632).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any


def body_key(fingerprint: str, body: dict[str, Any]) -> str:
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(f"{fingerprint}\n{blob}".encode()).hexdigest()


class ResponseCache:
    """A small SQLite table: key -> answer JSON. Each answer is committed as it arrives."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        self._db.commit()
        self.scope = ""  # the identity key every answer's key is hashed with (resume.py)

    def recorded_server(self) -> str | None:
        """The identity key the answers were last stored under (None: never recorded)."""
        row = self._db.execute("SELECT value FROM meta WHERE name = 'server'").fetchone()
        return str(row[0]) if row is not None else None

    def record_server(self, key: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('server', ?)", (key,))
        self._db.commit()
        self.scope = key

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value = json.loads(row[0])
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)", (key, json.dumps(value))
        )
        self._db.commit()

    def clear(self) -> None:
        self._db.execute("DELETE FROM answers")
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        self._db.close()
