"""Reaching the Hugging Face hub before a download, and its libraries' logs printed once.

Offline, ``datasets.load_dataset`` retries every request five times with backoff
(25 s of warnings) before it fails. One TCP connection to the hub (or to the HTTPS
proxy the environment names) tells at once: a DNS failure or no route stops
``harness data fetch`` on the first attempt with what to do instead. The
``huggingface_hub`` and ``datasets`` loggers have their own stderr handler and
also propagate to the root logger that ``harness`` configures, so each line came
twice: :func:`library_logs_once` keeps theirs only, while a download runs.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from harness.errors import TargetError

HUB_ENDPOINT = "https://huggingface.co"
PROBE_TIMEOUT_S = 5.0
LIBRARY_LOGGERS = ("huggingface_hub", "datasets")
OFFLINE_HINT = (
    "offline? `harness data fetch --samples` writes the small sample sets (not the grader's)"
)


def hub_address(environ: dict[str, str] | None = None) -> tuple[str, int]:
    """Where a download's first connection goes: the HTTPS proxy if set, else the hub
    (``HF_ENDPOINT`` or huggingface.co); pure over the environment given."""
    env = os.environ if environ is None else environ
    proxy = env.get("HTTPS_PROXY") or env.get("https_proxy")
    url = urlsplit(proxy or env.get("HF_ENDPOINT") or HUB_ENDPOINT)
    default = 443 if url.scheme == "https" else 80
    return url.hostname or "huggingface.co", url.port or default


def require_hub(timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """One TCP connection to the hub (or its proxy); raise at once when it cannot be made."""
    host, port = hub_address()
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return
    except socket.gaierror as err:
        why = f"DNS cannot resolve {host} ({err.strerror or err})"
    except TimeoutError:
        why = f"no answer from {host}:{port} within {timeout_s:.0f} s"
    except OSError as err:
        why = f"no route to {host}:{port} ({err.strerror or err})"
    raise TargetError(f"cannot reach the Hugging Face hub: {why}", hint=OFFLINE_HINT)


@contextmanager
def library_logs_once() -> Iterator[None]:
    """The download libraries' log lines through their own handler only (not twice)."""
    loggers = [logging.getLogger(name) for name in LIBRARY_LOGGERS]
    saved = [lg.propagate for lg in loggers]
    for lg in loggers:
        if lg.handlers:  # it prints itself: the root's copy is the duplicate
            lg.propagate = False
    try:
        yield
    finally:
        for lg, value in zip(loggers, saved, strict=True):
            lg.propagate = value
