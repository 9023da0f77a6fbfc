"""``harness vlm run``'s core: the runner script in the participant's Python, then the reports.

The runner (``runner_script.py``, stdlib + torch + transformers + datasets) is
started as ``PYTHON runner_script.py ...`` with its output in the run folder:
``vlm-records.jsonl`` (one line per event, flushed as measured) and
``vlm-runner.log`` (the wrapper's own prints, tracebacks). Whatever happens to
the child — a crash, Ctrl-C — the lines already written become ``vlm.json`` and
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

from harness.errors import ConfigError, DataMissingError, TargetError
from harness.profiles import VlmSpec
from harness.runs import Provenance, write_json
from harness.vlm.analysis import analyze, official_result
from harness.vlm.report import VlmReport, VlmSample

RUNNER = Path(__file__).resolve().parent / "runner_script.py"
RECORDS = "vlm-records.jsonl"
LOG = "vlm-runner.log"
RESULT = "result.json"
POLL_S = 0.2

# Settings a test may lower; any change is recorded as non-official.
OVERRIDABLE = ("warmup_samples", "warmup_tokens", "throughput_tokens", "answer_tokens")


@dataclass
class VlmRunConfig:
    wrapper_dir: Path
    model_path: Path
    dataset_path: Path
    folder: Path
    spec: VlmSpec
    python: str
    num_samples: int | None = None
    seed: int | None = None
    overrides: dict[str, int] = field(default_factory=dict)  # non-official (tests, quick looks)
    baseline: VlmReport | None = None
    baseline_name: str = ""
    timeout_s: float | None = None

    def value(self, name: str) -> Any:
        return self.overrides.get(name, getattr(self.spec, name))


def validate(cfg: VlmRunConfig) -> None:
    """Bad paths are usage errors (exit 2), said before anything starts."""
    if not (cfg.wrapper_dir / "evaluation_wrapper.py").is_file():
        raise ConfigError(
            f"no evaluation_wrapper.py in {cfg.wrapper_dir}",
            hint="--wrapper-dir is the folder holding the VLMModel class",
        )
    if not cfg.model_path.exists():
        raise DataMissingError(f"model path {cfg.model_path} does not exist")
    if not (cfg.dataset_path / "dataset_info.json").is_file():
        raise DataMissingError(
            f"{cfg.dataset_path} is not a datasets.save_to_disk folder (no dataset_info.json)",
            hint="point --dataset-path at the TextVQA validation folder",
        )
    unknown = set(cfg.overrides) - set(OVERRIDABLE)
    if unknown:
        raise ConfigError(f"cannot override {sorted(unknown)}", hint=f"only {OVERRIDABLE}")


def command(cfg: VlmRunConfig, records: Path) -> list[str]:
    cmd = [
        cfg.python,
        str(RUNNER),
        "--wrapper-dir",
        str(cfg.wrapper_dir.resolve()),
        "--model-path",
        str(cfg.model_path),
        "--dataset-path",
        str(cfg.dataset_path),
        "--records",
        str(records),
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


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line; a torn last line (a killed writer) is ignored."""
    out: list[dict[str, Any]] = []
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


def build_report(
    lines: list[dict[str, Any]], cfg: VlmRunConfig, provenance: Provenance
) -> VlmReport:
    start = next((x for x in lines if x.get("type") == "start"), {})
    ended = any(x.get("type") == "end" for x in lines)
    non_official = {n: cfg.overrides[n] for n in OVERRIDABLE if n in cfg.overrides}
    rep = VlmReport(
        provenance=provenance,
        official=not non_official,
        non_official=non_official,
        settings={
            "num_samples": cfg.num_samples,
            "seed": cfg.seed,
            "python": cfg.python,
            **{n: cfg.value(n) for n in OVERRIDABLE},
            "ttft_tokens": cfg.spec.ttft_tokens,
            "pause_s": cfg.spec.pause_s,
        },
        system_info=start.get("system_info", {}),
        environment={k: v for k, v in start.items() if k not in ("type", "system_info")},
        samples_planned=int(start.get("samples", 0)),
        samples=[
            VlmSample.model_validate({k: v for k, v in x.items() if k != "type"})
            for x in lines
            if x.get("type") == "sample"
        ],
        warmup_ms=[x.get("ms") for x in lines if x.get("type") == "warmup"],
        complete=ended,
        runner_log=LOG,
    )
    folder_cfg = None
    pre = cfg.model_path / "preprocessor_config.json"
    if pre.is_file():
        try:
            folder_cfg = json.loads(pre.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            folder_cfg = None
    analyze(
        rep,
        cfg.spec,
        folder_config=folder_cfg,
        baseline=cfg.baseline,
        baseline_name=cfg.baseline_name,
    )
    if non_official:
        rep.flags.append(f"non-official settings (tests / quick looks): {non_official}")
    return rep


def official_result_json(rep: VlmReport, path: Path) -> None:
    write_json(path, official_result(rep))


def save(rep: VlmReport, folder: Path) -> None:
    rep.save(folder)
    official_result_json(rep, folder / RESULT)


def _log_tail(path: Path, n: int = 3) -> str:
    try:
        lines = [x for x in path.read_text(encoding="utf-8", errors="replace").splitlines() if x]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[-400:]


def run_vlm(
    cfg: VlmRunConfig,
    provenance: Provenance,
    on_line: Callable[[dict[str, Any]], None] | None = None,
) -> VlmReport:
    """Run the runner to the end (or Ctrl-C), save ``vlm.json`` + ``result.json``, return the report.

    KeyboardInterrupt is re-raised after the partial reports are saved.
    """
    validate(cfg)
    records = cfg.folder / RECORDS
    records.unlink(missing_ok=True)
    log_path = cfg.folder / LOG
    seen = 0
    deadline = time.monotonic() + cfg.timeout_s if cfg.timeout_s else None
    with log_path.open("w", encoding="utf-8") as log:
        try:
            proc = subprocess.Popen(command(cfg, records), stdout=log, stderr=subprocess.STDOUT)
        except OSError as err:
            raise ConfigError(f"cannot start {cfg.python}: {err}", hint="--python PY") from None
        interrupted = False
        try:
            while proc.poll() is None:
                time.sleep(POLL_S)
                lines = read_records(records)
                for line in lines[seen:]:
                    if on_line:
                        on_line(line)
                seen = len(lines)
                if deadline and time.monotonic() > deadline:
                    proc.kill()
                    break
        except KeyboardInterrupt:
            interrupted = True
            proc.terminate()
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    lines = read_records(records)
    for line in lines[seen:]:
        if on_line:
            on_line(line)
    rep = build_report(lines, cfg, provenance)
    rep.runner_exit_code = proc.returncode
    if not rep.complete:
        rep.flags.append(
            f"the runner stopped early (exit {proc.returncode}): {_log_tail(log_path)}"
        )
    save(rep, cfg.folder)
    if interrupted:
        raise KeyboardInterrupt
    if not any(x.get("type") == "start" for x in lines):
        raise TargetError(
            f"the runner failed before measuring (exit {proc.returncode}): {_log_tail(log_path)}",
            hint=f"see {log_path}",
        )
    return rep
