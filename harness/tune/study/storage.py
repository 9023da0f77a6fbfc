"""Where the study lives: ``DIR/study.db`` (one worker), or a storage URL that several
workers share (``--storage sqlite:///X.db`` or an RDB URL such as
``postgresql://user@host/db``), through Optuna's own ``RDBStorage``.

Two guards make the shared study safe, both in the storage itself:

- SQLite has no ``SELECT … FOR UPDATE``, which Optuna relies on to pop a queued trial
  (the baseline) for exactly one worker: every SQLite transaction here begins with
  ``BEGIN IMMEDIATE`` (the write lock first), so reading a trial's state and changing it
  are one step for the whole file. A server database (PostgreSQL, MySQL) locks the row
  itself: Optuna reads the trial ``FOR UPDATE`` before it marks it RUNNING, so a second
  worker waits for the first one's commit and then sees it taken; a new trial's number
  is counted under a lock of the study's row. Nothing of ours is needed there
  (tests/integration/test_tune_postgres.py runs the same races on PostgreSQL).
- A shared storage records Optuna's heartbeat (every ``HEARTBEAT_S``): a trial whose
  worker died (``kill -9``, a lost machine) and was never resumed is marked FAIL by the
  next worker that looks for work once ``GRACE_S`` passed (:func:`recover_stale`, before
  it decides whether anything is left), and its parameters are queued again once
  (``RetryHeartbeatStaleTrialCallback``). ``HARNESS_TUNE_GRACE_S`` sets the grace (the
  heartbeat then comes at least four times within it): shorter for quick trials, longer
  where a machine may pause.
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback

from harness.errors import ConfigError, UsageError

STUDY_DB = "study.db"
STORAGE_RECORD = "storage.txt"  # DIR's storage URL (password hidden), for --resume
HEARTBEAT_S = 20
GRACE_S = 90
GRACE_ENV = "HARNESS_TUNE_GRACE_S"
OPEN_TRIES = 5
SQLITE_TIMEOUT_S = 60.0  # how long a transaction waits for another worker's write lock


def local_url(folder: Path) -> str:
    return f"sqlite:///{(folder / STUDY_DB).resolve()}"


def shown(url: str) -> str:
    """The URL with its password hidden (what is written to disk and printed)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError) as err:
        raise UsageError(
            f"--storage {url!r}: not a database URL ({type(err).__name__})",
            hint="e.g. --storage sqlite:///tune.db or postgresql://user@host/db",
        ) from None


def _serialise_sqlite(storage: RDBStorage) -> None:
    """``BEGIN IMMEDIATE`` for every transaction (SQLAlchemy's pysqlite recipe)."""
    from sqlalchemy import event

    engine = storage.engine

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # pysqlite emits no BEGIN of its own

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    engine.dispose()  # connections made before the listeners are not reused


def open_storage(url: str, *, shared: bool) -> RDBStorage:
    """Optuna's RDB storage at ``url``; ``shared``: with the heartbeat (several workers).
    Two workers creating one new database at once race on its schema (the loser sees a
    duplicate version row): the loser opens it again, once the winner made it."""
    from sqlalchemy.exc import SQLAlchemyError

    sqlite = url.startswith("sqlite")
    for attempt in range(OPEN_TRIES):
        try:
            storage = _storage(url, sqlite=sqlite, shared=shared)
        except ImportError as err:
            # Optuna wraps the driver's ModuleNotFoundError in an ImportError of its own
            missing = getattr(err.__cause__, "name", None) or err.name or "module"
            raise ConfigError(
                f"--storage {shown(url)}: its database driver {missing} is not installed",
                hint="install it, or name the driver you have in the URL "
                "(postgresql+psycopg2://…), or use sqlite:///FILE",
            ) from None
        except (SQLAlchemyError, ValueError, OSError) as err:
            if attempt + 1 < OPEN_TRIES and isinstance(err, SQLAlchemyError):
                time.sleep(0.2 * (attempt + 1))
                continue
            first = str(err).splitlines()[0] if str(err) else ""
            raise ConfigError(
                f"cannot open the study storage {shown(url)}: {type(err).__name__}: {first}",
                hint="check the URL, the server and its credentials",
            ) from None
        if sqlite:
            _serialise_sqlite(storage)
        return storage
    raise AssertionError("unreachable")


def grace_s() -> int:
    """Seconds without a heartbeat after which a trial's worker counts as dead."""
    given = os.environ.get(GRACE_ENV)
    if given is None:
        return GRACE_S
    try:
        value = int(given)
    except ValueError:
        value = 0
    if value < 2:
        raise ConfigError(
            f"{GRACE_ENV}={given!r}: not a whole number of seconds >= 2",
            hint=f"set it to e.g. {GRACE_S}, or unset it",
        )
    return value


def heartbeat_s(grace: int) -> int:
    return max(1, min(HEARTBEAT_S, grace // 4))


def recover_stale(study: optuna.Study) -> None:
    """Mark FAIL the trials whose worker stopped beating (queued again once): run before a
    worker decides whether work is left, so a dead worker's point is not taken for done."""
    with warnings.catch_warnings():  # experimental in Optuna
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)


def _storage(url: str, *, sqlite: bool, shared: bool) -> RDBStorage:
    kwargs: dict[str, Any] = {}
    if sqlite:
        kwargs["engine_kwargs"] = {"connect_args": {"timeout": SQLITE_TIMEOUT_S}}
    with warnings.catch_warnings():  # the heartbeat is marked experimental in Optuna
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if shared:
            grace = grace_s()
            kwargs.update(
                heartbeat_interval=heartbeat_s(grace),
                grace_period=grace,
                heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(max_retry=1),
            )
        return RDBStorage(url, **kwargs)


def record(folder: Path, url: str) -> None:
    (folder / STORAGE_RECORD).write_text(shown(url) + "\n", encoding="utf-8")


def recorded(folder: Path) -> str | None:
    try:
        return (folder / STORAGE_RECORD).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def resume_url(folder: Path, given: str | None) -> str | None:
    """The storage a ``--resume`` continues in: the one recorded in ``folder`` (None: its own
    ``study.db``); ``given`` must name the same one, and is needed when a password was hidden."""
    kept = recorded(folder)
    if kept is None:
        if given is not None:
            raise UsageError(
                f"{folder} keeps its study in its own {STUDY_DB}, not in --storage",
                hint=f"resume it without --storage: harness tune --resume {folder}",
            )
        return None
    if given is None:
        if "***" in kept:
            raise UsageError(
                f"{folder}'s study is in {kept}: its password is not kept",
                hint=f"resume it with --storage and the full URL: --resume {folder} --storage URL",
            )
        return kept
    if shown(given) != kept:
        raise UsageError(
            f"--storage {shown(given)}: {folder} joined the study in {kept}",
            hint="pass the same --storage, or none",
        )
    return given
