"""The one exception tree of harness, and the one place that maps it to exit codes.

::

    HarnessError                      exit 1 unless a subclass says otherwise
    ├── UsageError                    exit 2  bad flag, bad option value
    │   ├── ConfigError               exit 2  bad profile / TOML / unknown key
    │   └── DataMissingError          exit 2  a dataset or NLTK data is not on disk
    ├── TargetError                   exit 3  the server or a remote API misbehaves
    │   ├── UnreachableError          exit 3  connection refused / DNS / never ready
    │   └── ProtocolError             exit 3  malformed response that stops the command
    ├── VerdictFailed                 exit 1  a gate, a check or a package rule failed
    ├── IncompleteError               exit 4  a required report is missing or partial
    └── EngineError                   exit 3  container engine (Docker API / Podman)

Per-request failures during a measurement are *recorded* (see
``harness.client.records.ErrorKind``), never raised: a run always completes and
saves what it measured. Exceptions are for what stops a command.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_TARGET = 3
EXIT_INCOMPLETE = 4
EXIT_INTERRUPTED = 130


class HarnessError(Exception):
    """Base of every error harness raises on purpose. ``str(err)`` is one line for the user."""

    exit_code: int = EXIT_FAIL

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message

    def __str__(self) -> str:
        return self.one_line()


class UsageError(HarnessError):
    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    pass


class DataMissingError(UsageError):
    pass


class TargetError(HarnessError):
    exit_code = EXIT_TARGET


class UnreachableError(TargetError):
    pass


class ProtocolError(TargetError):
    pass


class EngineError(HarnessError):
    exit_code = EXIT_TARGET


class VerdictFailed(HarnessError):
    exit_code = EXIT_FAIL


class IncompleteError(HarnessError):
    exit_code = EXIT_INCOMPLETE


def exit_code_for(exc: BaseException) -> int:
    """Map any exception to the process exit code (the single mapping point)."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, HarnessError):
        return exc.exit_code
    return EXIT_FAIL
