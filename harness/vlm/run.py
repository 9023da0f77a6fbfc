"""``harness vlm run``'s child process: the runner script in the participant's Python.

The runner (``runner_script.py``, stdlib + torch + transformers + datasets) is
started as ``PYTHON runner_script.py ...`` with its output in the run folder:
``vlm-records.jsonl`` (one line per event, flushed as measured) and
``vlm-runner.log`` (the wrapper's own prints, tracebacks). Whatever happens to
the child — a crash, Ctrl-C, the timeout — :func:`run_runner` returns the lines
already written; :mod:`harness.vlm.core` turns them into ``vlm.json`` and
``result.json``.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, DataMissingError
from harness.vlm.config import OVERRIDABLE, VlmRunConfig

RUNNER = Path(__file__).resolve().parent / "runner_script.py"
RECORDS = "vlm-records.jsonl"
LOG = "vlm-runner.log"
POLL_S = 0.5  # the parent's only work while the runner measures: a small read every poll
TERMINATE_WAIT_S = 10.0

Record = dict[str, Any]


def check_paths(wrapper_dir: Path, model_path: Path, dataset_path: Path) -> None:
    """Bad paths are usage errors (exit 2), said before anything starts."""
    if not (wrapper_dir / "evaluation_wrapper.py").is_file():
        raise ConfigError(
            f"no evaluation_wrapper.py in {wrapper_dir}",
            hint="point --wrapper-dir at the folder holding it (the VLMModel class)",
        )
    if not model_path.exists():
        raise DataMissingError(f"model path {model_path} does not exist")
    if not (dataset_path / "dataset_info.json").is_file():
        raise DataMissingError(
            f"{dataset_path} is not a datasets.save_to_disk folder (no dataset_info.json)",
            hint="point --dataset-path at the TextVQA validation folder",
        )


def validate(cfg: VlmRunConfig) -> None:
    """Bad paths and unknown overrides are usage errors (exit 2), said before anything starts."""
    check_paths(cfg.wrapper_dir, cfg.model_path, cfg.dataset_path)
    unknown = set(cfg.non_official) - set(OVERRIDABLE)
    if unknown:
        raise ConfigError(f"cannot override {sorted(unknown)}", hint=f"only {OVERRIDABLE}")


def child_argv(
    python: str,
    script: Path,
    wrapper_dir: Path,
    model_path: Path,
    dataset_path: Path,
    records: Path,
) -> list[str]:
    """A child in the participant's Python: the runner or the audit's script, and the four
    paths both take."""
    return [
        python,
        str(script),
        "--wrapper-dir",
        str(wrapper_dir.resolve()),
        "--model-path",
        str(model_path),
        "--dataset-path",
        str(dataset_path),
        "--records",
        str(records),
    ]


def command(cfg: VlmRunConfig, records: Path) -> list[str]:
    cmd = child_argv(cfg.python, RUNNER, cfg.wrapper_dir, cfg.model_path, cfg.dataset_path, records)
    cmd += [
        "--max-samples",
        str(cfg.spec.max_samples),
        "--ttft-tokens",
        str(cfg.spec.ttft_tokens),
        "--pause-s",
        str(cfg.spec.pause_s),
        "--min-time-s",
        str(cfg.spec.min_time_s),
    ]
    for name in OVERRIDABLE:
        cmd += [f"--{name.replace('_', '-')}", str(cfg.value(name))]
    if cfg.num_samples is not None:
        cmd += ["--num-samples", str(cfg.num_samples)]
    if cfg.seed is not None:
        cmd += ["--seed", str(cfg.seed)]
    return cmd


def read_records(path: Path) -> list[Record]:
    """Every complete JSON line; a torn last line (a killed writer) is ignored."""
    out: list[Record] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


class RecordTail:
    """The records file read incrementally: only the bytes added since the last read.

    A line is taken once it is complete (ends with a newline); a torn last line
    waits for the next read, and one that never completes is ignored."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def new_records(self) -> list[Record]:
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        end = chunk.rfind(b"\n") + 1
        self.offset += end
        out: list[Record] = []
        for raw in chunk[:end].splitlines():
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict):
                out.append(obj)
        return out


def log_tail(path: Path, n: int = 3) -> str:
    try:
        lines = [x for x in path.read_text(encoding="utf-8", errors="replace").splitlines() if x]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[-400:]


@dataclass
class RunnerOutcome:
    """What the child left: its records, its exit status, and why it stopped."""

    lines: list[Record] = field(default_factory=list)
    exit_code: int | None = None
    timed_out: bool = False

    @property
    def started(self) -> bool:
        return any(x.get("type") == "start" for x in self.lines)

    @property
    def ended(self) -> bool:
        return any(x.get("type") == "end" for x in self.lines)


def run_runner(
    cfg: VlmRunConfig, folder: Path, on_line: Callable[[Record], None], outcome: RunnerOutcome
) -> None:
    """Run the runner to its end, its timeout or Ctrl-C; ``outcome`` holds the lines in any case.

    ``on_line`` sees every record once, as it is written. KeyboardInterrupt is
    re-raised after the child has been stopped and its last lines read.
    """
    validate(cfg)
    records = folder / RECORDS
    run_child(
        command(cfg, records),
        records,
        folder / LOG,
        on_line,
        outcome,
        python=cfg.python,
        timeout_s=cfg.timeout_s,
    )


def run_child(
    cmd: list[str],
    records: Path,
    log_path: Path,
    on_line: Callable[[Record], None],
    outcome: RunnerOutcome,
    *,
    python: str,
    timeout_s: float | None,
    reply: Callable[[Record], str | None] | None = None,
) -> None:
    """A child that writes JSON lines to ``records`` (the runner, the audit's script): run to
    its end, ``timeout_s`` or Ctrl-C, its output in ``log_path``, every record read as written.
    With ``reply``, the child's stdin is a pipe: what ``reply`` returns for a record (a line)
    is written to it (the audit's script asks whether a second set is needed)."""
    records.unlink(missing_ok=True)
    tail = RecordTail(records)

    def drain() -> None:
        for line in tail.new_records():
            outcome.lines.append(line)
            on_line(line)
            said = reply(line) if reply is not None else None
            if said is None or proc.stdin is None or proc.poll() is not None:
                continue
            try:
                proc.stdin.write(said.encode() + b"\n")
                proc.stdin.flush()
            except BrokenPipeError:  # it ended between the poll and the write: its exit says why
                continue

    deadline = time.monotonic() + timeout_s if timeout_s else None
    stdin = subprocess.PIPE if reply is not None else None
    with log_path.open("w", encoding="utf-8") as log:
        try:
            proc = subprocess.Popen(cmd, stdin=stdin, stdout=log, stderr=subprocess.STDOUT)
        except OSError as err:
            raise ConfigError(f"cannot start {python}: {err}", hint="--python PY") from None
        try:
            while proc.poll() is None:
                time.sleep(POLL_S)
                drain()
                if deadline and time.monotonic() > deadline:
                    outcome.timed_out = True
                    proc.kill()
                    break
        except BaseException:
            proc.terminate()
            raise
        finally:
            try:
                proc.wait(timeout=TERMINATE_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            outcome.exit_code = proc.returncode
            drain()
            if proc.stdin is not None:
                proc.stdin.close()
