"""Where the harness keeps things on disk, read from the environment at call time.

Reading ``HARNESS_REPORTS_DIR`` / ``HARNESS_CACHE_DIR`` when a folder is needed
(not at import) lets a test, or a long-lived process, change them and be obeyed.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
REPORTS_ENV = "HARNESS_REPORTS_DIR"
CACHE_ENV = "HARNESS_CACHE_DIR"
DATA_DIR_ENV = "HARNESS_DATA_DIR"


def reports_dir() -> Path:
    """``$HARNESS_REPORTS_DIR``, else the repository's ``reports/``."""
    env = os.environ.get(REPORTS_ENV)
    return Path(env).expanduser() if env else REPO_ROOT / "reports"


def cache_dir() -> Path:
    """``$HARNESS_CACHE_DIR``, else ``~/.cache/harness`` (test model, demo data, punkt)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "harness"


def default_data_dir() -> Path:
    """``$HARNESS_DATA_DIR``, else ``~/.cache/harness/data``: benchmark data (docs/quality.md)."""
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "harness" / "data"
