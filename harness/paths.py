"""Where harness keeps its own files: the cache. Read from the environment at call time."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "HARNESS_CACHE_DIR"


def cache_dir() -> Path:
    """``$HARNESS_CACHE_DIR``, else ``~/.cache/harness`` (never inside the repository)."""
    env = os.environ.get(CACHE_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "harness"
