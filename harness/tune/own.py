"""The tuner measures only its own candidate (docs/tune.md, "Only its own candidate").

A trial's numbers are the candidate's only when the server answering at its URL is the one
harness started. Three checks, which hold for a command on this machine, a ``docker run -p``
launcher and a remote URL alike, since each looks at the URL and at what harness started:

1. before the launch, nothing answers at the URL (:func:`taken`): a leftover server, or a
   command without ``{port}`` beside another server, would otherwise answer the readiness
   poll in milliseconds while the candidate dies with "address already in use";
2. the candidate (its process group, or its container) is alive when the URL answers and
   after every step (the callers ask ``Server.poll``);
3. once the candidate is stopped, the URL stops answering (:func:`still_answers`): a
   launcher that outlived its server, or a server the candidate never was, would keep
   answering, and the trial is void.

"Answers" is a TCP connection accepted at the URL's host and port: any server at all, HTTP
or not, is another server there.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

PROBE_TIMEOUT_S = 0.5
# after the stop: a socket being closed by a dying process may accept for a moment
RELEASE_WITHIN_S = 5.0


def _address(url: str) -> tuple[str, int] | None:
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def answers(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Something accepts a TCP connection at ``url``'s host and port."""
    where = _address(url)
    if where is None:
        return False
    try:
        with socket.create_connection(where, timeout=timeout_s):
            return True
    except OSError:  # refused, unreachable, no such name, timed out: nothing answers
        return False


def taken(url: str) -> str | None:
    """Before the launch: why the candidate cannot be measured at ``url`` (another server
    answers there), else None."""
    if not url or not answers(url):
        return None
    return f"failed to start: another server answers at {url} before the candidate was started"


def still_answers(url: str, within_s: float = RELEASE_WITHIN_S) -> str | None:
    """After the stop: None once nothing answers at ``url`` (within ``within_s``); else why
    the measurement is void (it was not, or not only, the candidate's)."""
    if not url:
        return None
    end = time.monotonic() + within_s
    while answers(url):
        if time.monotonic() >= end:
            return (
                f"void: {url} still answers {within_s:.0f} s after the candidate was stopped, "
                "so what was measured there was another server (a launcher that outlived "
                "its server, or a server the candidate never was)"
            )
        time.sleep(0.1)
    return None
