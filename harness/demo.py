"""``harness demo``: the main job on the embedded default.

Builds the small model (first run only), starts the CPU reference server,
runs the gate's steps on it with quick settings and the sample quality data
(the same cores ``harness gate --url`` calls), judges, writes ``report.html``,
and always stops the server it started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from rich.console import Console

from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK, HarnessError
from harness.manifest.launch import launched_process
from harness.manifest.model import Launched
from harness.paths import cache_dir
from harness.profiles import Profile

# The gate options ``harness demo`` offers (harness/gate/options.py keys; their flags, types
# and help are the gate's declarations), with the demo's quick defaults.
QUICK: Mapping[str, object] = MappingProxyType(
    {"latency_mode": "official", "runs": 3, "warmup": 1, "buckets": None, "max_gen_toks": 24}
)


@dataclass(frozen=True)
class DemoConfig:
    folder: Path
    profile: Profile
    # the gate options given (QUICK's keys)
    options: Mapping[str, object] = field(default_factory=lambda: dict(QUICK))
    ready_timeout_s: float = 300.0
    port: int = 0
    name: str = "demo"
    note: str = ""
    experiment: str | None = None  # the ledger group (--experiment)

    def gate_options(self, data_dir: Path, model_dir: Path) -> dict[str, object]:
        """The gate's step options for the demo's quick run (harness/gate/options.py keys)."""
        return {
            **self.options,
            "data_dir": data_dir,
            "tokenizer": str(model_dir),
            "ready_timeout": 60.0,
        }


def prepare_sample_data(cache: Path | None = None) -> Path:
    """The sample benchmark data (written by us) and NLTK punkt_tab, laid out for offline runs."""
    from harness.data.fetch import copy_samples
    from harness.data.layout import nltk_dir
    from harness.data.punkt import has_punkt, write_punkt_tab

    data = (cache or cache_dir()) / "demo-data"
    copy_samples(data)
    if not has_punkt(nltk_dir(data)):
        write_punkt_tab(nltk_dir(data))
    return data


def write_run_report(folder: Path, console: Console) -> Path:
    """``harness report FOLDER``: the run on the console and in ``FOLDER/report.html``."""
    from harness.report.entry import entry_for_folder
    from harness.report.html import write_page
    from harness.report.ledger import ledger_path_for, read_ledger, record_run
    from harness.report.pages import run_page
    from harness.report.render import render_run

    known = read_ledger(ledger_path_for(folder)).by_id().get(folder.resolve().name)
    if known is None:
        entry = record_run(folder, None, "")
    else:  # re-read the reports, keep the recorded name and note
        entry = entry_for_folder(folder.resolve(), name=known.name, note=known.note)
    render_run(console, entry)
    path = folder / "report.html"
    write_page(path, run_page(folder, entry))
    console.print(f"report: {path}")
    return path


def demo_launch(model_dir: Path, port: int) -> Launched:
    """What the demo's server was started with: the cpu recipe's vLLM command line and env."""
    from reference_server.recipes import command, get_recipe

    launch = command(get_recipe("cpu"), model_dir, port=port, host="127.0.0.1")
    return launched_process("harness demo", launch.argv, launch.env)


def run_demo(cfg: DemoConfig, console: Console) -> int:
    from harness.gate.console import ConsoleGateHooks
    from harness.gate.orchestrate import (
        UNSTARTED,
        GatePlan,
        check_plan,
        conclude,
        exit_code,
        measured,
        run_steps,
    )
    from harness.gate.render import render_gate
    from harness.manifest.record import record_manifest
    from harness.report.ledger import record_run
    from reference_server.build_test_model import ensure_test_model, test_model_folder
    from reference_server.launch import ServerProcess

    data_dir = prepare_sample_data()
    options = cfg.gate_options(data_dir, test_model_folder())
    # every step's settings (--buckets, …) and data, before the model is built and the
    # server takes minutes to start
    try:
        check_plan(GatePlan(url=UNSTARTED, folder=cfg.folder, profile=cfg.profile, options=options))
    except HarnessError:
        if cfg.folder.is_dir() and not any(cfg.folder.iterdir()):
            cfg.folder.rmdir()  # refused before anything ran: no empty run folder left
        raise
    with console.status("building the small test model (SmolLM2-135M, first run only) …"):
        model_dir = ensure_test_model()
    cfg.folder.mkdir(parents=True, exist_ok=True)
    server = ServerProcess.start(
        "cpu", model_dir, port=cfg.port, log_path=cfg.folder / "server.log"
    )
    try:
        with console.status(f"starting the CPU reference server (vLLM) at {server.url} …"):
            ready_s = server.wait_ready(timeout_s=cfg.ready_timeout_s)
        console.print(
            f"reference server ready at {server.url} after {ready_s:.0f} s (log: {cfg.folder}/server.log)"
        )
        # what ran, with the command line only the launcher knows (docs/manifest.md)
        asyncio.run(
            record_manifest(
                cfg.folder, server.url, taken="before", launched=demo_launch(model_dir, server.port)
            )
        )
        plan = GatePlan(
            url=server.url,
            folder=cfg.folder,
            profile=cfg.profile,
            options=options,
            name=cfg.name,
            note=cfg.note,
            experiment=cfg.experiment,
        )
        hooks = ConsoleGateHooks(console, profile=cfg.profile.name, folder=str(cfg.folder))
        ran = run_steps(plan, hooks)
        if not measured(cfg.folder):  # no verdict on nothing (the step's error said why)
            rc = ran.rc or EXIT_INCOMPLETE
        else:
            gate = conclude(
                cfg.folder,
                cfg.profile,
                plan.provenance(plan.command_line()),
                not_run=ran.not_run,
            )
            record_run(cfg.folder, cfg.name, cfg.note)
            render_gate(console, gate, str(cfg.folder), judged_as=cfg.profile.title)
            rc = exit_code(gate, ran.rc)
    finally:
        with console.status("stopping the reference server …"):
            server.stop()
    if rc == EXIT_INTERRUPTED or not measured(cfg.folder):
        return rc
    write_run_report(cfg.folder, console)
    console.print(
        "[dim]FAIL is the honest verdict for a 135M model: it is the reference server's plumbing "
        "being judged, not Qwen3.5-4B. Point harness gate --url at your own server next.[/]"
    )
    # The demo's job is done when a verdict was reached, PASS or FAIL (harness gate itself
    # exits 1 on FAIL); INCOMPLETE or an error keeps its own exit code.
    return EXIT_OK if rc in (EXIT_OK, EXIT_FAIL) else rc
