"""The VLM core: one typed config in, one :class:`VlmReport` out (``vlm.json`` + ``result.json``).

``measure_vlm`` owns ``harness vlm run``: it starts the runner script in the
participant's Python (harness/vlm/run.py), turns its records into the report
(official means, harness's own figures, scores, typed flags), and saves
``vlm.json``, the official ``result.json`` and ``manifest.json`` (what ran,
harness/vlm/manifest.py). On Ctrl-C (KeyboardInterrupt) or
an error mid-run, whatever the runner recorded is saved as a partial report
(``complete: false``) before the exception goes on. ``measure_vlm_http`` is the
same over HTTP (``vlm latency``), ``import_vlm`` the same from records written
elsewhere (``vlm import``). No state is kept between calls. Console output goes
through :class:`VlmHooks`; the CLI passes its own, tests pass none. The command line
that re-runs a config is the registry's (harness/vlm/kind.py: ``KIND.command_line``,
from the overrides record), as for every kind.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from harness.errors import (
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_TARGET,
    ConfigError,
    TargetError,
)
from harness.kinds.record import RunEnv
from harness.manifest.record import record_manifest
from harness.provenance import Provenance, with_facts
from harness.report_base import load_report
from harness.run_folder import write_json
from harness.vlm import flags as flag_rules
from harness.vlm.analysis import analyze, official_result
from harness.vlm.config import NO_MODEL_PATH, OVERRIDABLE, VlmHttpConfig, VlmRunConfig
from harness.vlm.hooks import NO_HOOKS, VlmHooks
from harness.vlm.manifest import record_import_manifest, record_run_manifest
from harness.vlm.over_http import measure_http
from harness.vlm.report import VlmReport, VlmSample
from harness.vlm.run import LOG, RECORDS, Record, RunnerOutcome, log_tail, read_records, run_runner

RESULT = "result.json"


def _sample(line: Record) -> VlmSample:
    return VlmSample.model_validate({k: v for k, v in line.items() if k != "type"})


def _folder_config(model_path: Path) -> dict[str, Any] | None:
    """The model folder's ``preprocessor_config.json`` (the pixel-budget flag compares it)."""
    pre = model_path / "preprocessor_config.json"
    if not pre.is_file():
        return None
    try:
        data = json.loads(pre.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def load_baseline(folder: Path | None) -> VlmReport | None:
    """``--baseline RUN``: the template wrapper's ``vlm.json`` on the same machine."""
    if folder is None:
        return None
    rep = load_report(folder, VlmReport)
    if rep is None:
        raise ConfigError(f"--baseline {folder}: no vlm.json there", hint="a `vlm run` folder")
    return rep


def report_from_records(
    lines: list[Record],
    cfg: VlmRunConfig,
    provenance: Provenance,
    *,
    baseline: VlmReport | None,
) -> VlmReport:
    """The runner's records → ``vlm.json``'s report (complete when the ``end`` record is there)."""
    start = next((x for x in lines if x.get("type") == "start"), {})
    rep = VlmReport(
        provenance=provenance,
        official=not cfg.non_official,
        non_official=dict(cfg.non_official),
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
        samples=[_sample(x) for x in lines if x.get("type") == "sample"],
        warmup_ms=[x.get("ms") for x in lines if x.get("type") == "warmup"],
        complete=any(x.get("type") == "end" for x in lines),
        runner_log=LOG,
    )
    return analyze(
        rep,
        cfg.spec,
        folder_config=_folder_config(cfg.model_path),
        baseline=baseline,
        baseline_name=cfg.baseline_name,
    )


def save(rep: VlmReport, folder: Path) -> Path:
    """``vlm.json`` and, beside it, ``result.json`` exactly as the official script writes it."""
    path = rep.save(folder)
    write_json(folder / RESULT, official_result(rep))
    return path


def measure_vlm(
    cfg: VlmRunConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: VlmHooks = NO_HOOKS,
) -> VlmReport:
    """Run the official procedure on ``cfg``'s wrapper and save ``vlm.json`` + ``result.json``.

    Bad paths are a ConfigError / DataMissingError before anything starts. A
    runner that dies before its first record is a TargetError (the report is
    saved first, with the log's last lines in its flag). Ctrl-C saves the
    partial report, then re-raises."""
    baseline = load_baseline(cfg.baseline)
    provenance = with_facts(provenance, seed=cfg.seed)  # the caller's record stays as it was
    outcome = RunnerOutcome()

    def on_line(line: Record) -> None:
        kind = line.get("type")
        if kind == "start":
            hooks.measuring(int(line.get("samples", 0)))
        elif kind == "sample":
            hooks.sample(_sample(line))

    def finish(why: str = "") -> VlmReport:
        rep = report_from_records(outcome.lines, cfg, provenance, baseline=baseline)
        rep.runner_exit_code = outcome.exit_code
        if not rep.complete:
            why = why or (f"timeout after {cfg.timeout_s:g} s" if outcome.timed_out else "")
            rep.flags.append(
                flag_rules.runner_stopped(outcome.exit_code, why or log_tail(folder / LOG))
            )
        return rep

    hooks.loading()
    try:
        run_runner(cfg, folder, on_line, outcome)
    except (ConfigError, TargetError):
        raise  # nothing ran
    except BaseException as err:
        if outcome.lines:
            hooks.partial(save(finish(f"interrupted ({type(err).__name__})"), folder))
            record_run_manifest(cfg, outcome.lines, folder)
        raise
    rep = finish()
    save(rep, folder)
    record_run_manifest(cfg, outcome.lines, folder)  # what ran, once the runner has stopped
    if not outcome.started:
        raise TargetError(
            f"the runner failed before measuring (exit {outcome.exit_code}): "
            f"{log_tail(folder / LOG)}",
            hint=f"see {folder / LOG}",
        )
    return rep


def import_vlm(
    records: Path, cfg: VlmRunConfig, *, provenance: Provenance, folder: Path
) -> VlmReport:
    """Records written by the runner elsewhere (e.g. a GPU machine) → the same two reports.

    The settings the runner ran with (its ``runner_args``) decide what was non-official."""
    if not records.is_file():
        raise ConfigError(
            f"{records}: no such records file",
            hint="pass the records.jsonl that harness vlm run's runner wrote",
        )
    lines = read_records(records)
    start = next((x for x in lines if x.get("type") == "start"), None)
    if start is None:
        raise ConfigError(
            f"{records}: no start record (not a runner output?)",
            hint="pass the records.jsonl that harness vlm run's runner wrote",
        )
    ran = start.get("runner_args") or {}
    non_official = dict(cfg.non_official)
    for name in OVERRIDABLE:
        if isinstance(ran.get(name), int) and ran[name] != getattr(cfg.spec, name):
            non_official[name] = int(ran[name])
    cfg = dataclasses.replace(cfg, non_official=non_official, python="(imported)")
    rep = report_from_records(lines, cfg, provenance, baseline=load_baseline(cfg.baseline))
    if records.resolve() != (folder / RECORDS).resolve():
        (folder / RECORDS).write_text(records.read_text(encoding="utf-8"), encoding="utf-8")
    save(rep, folder)
    # the model folder's weights only when --model-path named one (import's default is ".")
    model_dir = cfg.model_path if cfg.model_path != NO_MODEL_PATH else None
    record_import_manifest(start, model_dir, folder)
    return rep


def _http_non_official(cfg: VlmHttpConfig) -> dict[str, int]:
    given = {"throughput_tokens": cfg.throughput_tokens, "answer_tokens": cfg.answer_tokens}
    return {k: v for k, v in given.items() if v is not None and v != getattr(cfg.spec, k)}


async def measure_vlm_http(
    cfg: VlmHttpConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: VlmHooks = NO_HOOKS,
) -> VlmReport:
    """``vlm latency``: the same figures from a served VLM, saved like ``measure_vlm``'s."""
    samples: list[VlmSample] = []
    non_official = _http_non_official(cfg)

    def on_sample(s: VlmSample) -> None:
        samples.append(s)
        hooks.sample(s)

    def finish(complete: bool) -> VlmReport:
        rep = VlmReport(
            provenance=provenance,
            mode="http",
            official=not non_official,
            non_official=non_official,
            settings={"url": cfg.url, "model": cfg.model, "num_samples": cfg.num_samples},
            samples=list(samples),
            samples_planned=len(samples),
            complete=complete,
        )
        return analyze(rep, cfg.spec)

    async def manifest_before() -> None:
        # what the server tells about itself, before the first request (docs/manifest.md)
        await record_manifest(folder, cfg.url, taken="before")

    hooks.measuring(cfg.num_samples or 0)
    try:
        await measure_http(cfg, on_sample, before=manifest_before)
    except BaseException:
        if samples:
            hooks.partial(save(finish(False), folder))
        raise
    rep = finish(True)
    save(rep, folder)
    return rep


def exit_code(report: VlmReport) -> int:
    """3 when no sample counted (the official TTFT is null), 4 when the runner stopped early."""
    if report.counted == 0:
        return EXIT_TARGET
    if not report.complete:
        return EXIT_INCOMPLETE
    return EXIT_OK


def run(cfg: VlmRunConfig, env: RunEnv[VlmHooks]) -> VlmReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return measure_vlm(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
