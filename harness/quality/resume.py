"""Opening a run folder's answer cache for this run: reuse answers only from the same server.

The cache records the server identity its answers came from (``identity.py``). A
re-run against that same server (a resume after Ctrl-C or a kill) reuses every
stored answer and asks only the rest. Against another server, or the same URL
after a restart, the stored answers are set aside (kept in the file under their
identity, never deleted) and every document is asked again, with one line saying
why; ``--resume-answers`` reuses them anyway. ``--fresh`` empties the cache first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.quality.cache import ResponseCache
from harness.quality.identity import ServerIdentity, changes

CACHE_FILE = Path("cache") / "answers.sqlite"
RESUME_ANSWERS = "--resume-answers"


def set_aside_line(url: str, before: ServerIdentity | None, now: ServerIdentity) -> str | None:
    """Pure: the line shown when the cached answers are not this server's (None: they are)."""
    if before is None:
        return (
            "the cached answers were stored without a server identity (an older harness): "
            "asking again"
        )
    why = changes(before, now)
    if not why:
        return None
    restarted = before.taken and now.taken and len(why) == 1 and why[0].startswith("process")
    what = "restarted since" if restarted else "is not the server that gave"
    return (
        f"the server at {url} {what} the cached answers ({'; '.join(why)}): "
        f"asking again; {RESUME_ANSWERS} to reuse"
    )


def open_answers(
    folder: Path,
    url: str,
    identity: ServerIdentity,
    *,
    fresh: bool,
    reuse_any: bool,
    say: Callable[[str], None],
) -> ResponseCache:
    """The run's answer cache, scoped to the identity whose answers this run may reuse."""
    cache = ResponseCache(folder / CACHE_FILE)
    if fresh:
        cache.clear()
    recorded = cache.recorded_server()
    before = ServerIdentity.from_key(recorded) if recorded is not None else None
    scope = identity
    if len(cache):
        line = set_aside_line(url, before, identity)
        if line is not None and reuse_any and before is not None:
            scope = before
            say(f"reusing the answers cached for {before.label()} ({RESUME_ANSWERS})")
        elif line is not None:
            say(line)
    cache.record_server(scope.key())
    return cache
