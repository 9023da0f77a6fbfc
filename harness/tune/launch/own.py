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

"Answers" is an HTTP answer, any status (a 404 on ``/`` too): a bare TCP accept is not
one (a port forwarder or a firewall may accept and then say nothing), and a server that is
not HTTP cannot be measured in the candidate's place anyway.

An image candidate run by harness is reached at its container's own address, new when the
container is created and released when it is removed: the container is the candidate, so
checks 1 and 3 are the engine's (a fresh container; the engine no longer has it), not the
URL's (a network's gateway may answer for an address no container holds).
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from harness.report.folder import is_run_folder
from harness.report.hidden import set_hidden

PROBE_TIMEOUT_S = 1.0
# after the stop: a socket being closed by a dying process may accept for a moment
RELEASE_WITHIN_S = 5.0


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def answers(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """An HTTP answer, any status, comes back from ``url`` (its root path)."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return False
    try:
        with _DIRECT.open(f"{parts.scheme}://{parts.netloc}/", timeout=timeout_s):
            return True
    except urllib.error.HTTPError:
        return True  # an error status is an answer
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException):
        return False  # refused, unreachable, no such name, no answer in time: nothing


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


def hide_void(folder: Path, why: str) -> None:
    """A void measurement leaves the ledger: its folder gets the ledger's ``hidden`` marker
    (harness/report/hidden.py) naming why, so ``harness report`` ranks none of it and
    ``--all`` shows it, marked. The reports stay as measured (the evidence)."""
    if is_run_folder(folder):
        set_hidden(folder, True, by=f"harness tune ({why})")
