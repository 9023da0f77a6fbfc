"""``harness gate --url``: run check → latency → quality (or throughput) into one run folder.

Each step is the real command (``harness.cli.main``), so the gate never
re-implements a measurement; the gate itself only judges what they wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_TARGET
from harness.profiles import Profile


@dataclass
class GatePlan:
    url: str
    folder: Path
    profile: Profile
    latency_mode: str = "both"
    runs: int | None = None
    warmup: int | None = None
    buckets: str | None = None
    limit: float | None = None
    data_dir: str | None = None
    max_gen_toks: int | None = None
    tokenizer: str | None = None
    ready_timeout: float | None = None
    quality_only: str | None = None
    throughput_args: list[str] = field(default_factory=list)
    skip: set[str] = field(default_factory=set)
    quiet: bool = False
    keep_going: bool = False  # measure latency and quality even when a required check failed

    def steps(self) -> list[tuple[str, list[str]]]:
        common = [
            "--url",
            self.url,
            "--profile",
            self.profile.source.removesuffix(".toml") or self.profile.name,
            "--out",
            str(self.folder),
        ]
        if self.quiet:
            common.append("--quiet")
        ready = ["--ready-timeout", str(self.ready_timeout)] if self.ready_timeout else []
        out: list[tuple[str, list[str]]] = []
        check = ["check", *common]
        if self.tokenizer:
            check += ["--tokenizer", self.tokenizer]
        out.append(("check", check))
        if self.profile.latency is not None:
            lat = ["latency", *common, "--mode", self.latency_mode, *ready]
            if self.tokenizer:
                lat += ["--tokenizer", self.tokenizer]
            lat_opts: tuple[tuple[str, object], ...] = (
                ("--runs", self.runs),
                ("--warmup", self.warmup),
                ("--buckets", self.buckets),
            )
            for flag, value in lat_opts:
                if value is not None:
                    lat += [flag, str(value)]
            out.append(("latency", lat))
        if self.profile.throughput is not None:
            out.append(("throughput", ["throughput", *common, *ready, *self.throughput_args]))
        if self.profile.quality is not None:
            q = ["quality", *common]
            q_opts: tuple[tuple[str, object], ...] = (
                ("--limit", self.limit),
                ("--data-dir", self.data_dir),
                ("--max-gen-toks", self.max_gen_toks),
                ("--only", self.quality_only),
            )
            for flag, value in q_opts:
                if value is not None:
                    q += [flag, str(value)]
            out.append(("quality", q))
        return [(name, argv) for name, argv in out if name not in self.skip]


def run_steps(plan: GatePlan, run: Callable[[list[str]], int], say: Callable[[str], None]) -> int:
    """Run each step; stop early on Ctrl-C or an unreachable server. Returns the worst stop code."""
    for name, argv in plan.steps():
        say(f"[bold]gate ▸ {name}[/]")
        rc = run(argv)
        if rc == EXIT_INTERRUPTED:
            return rc
        if rc == EXIT_TARGET and name == "check":
            return rc  # unreachable: the later steps would only wait for it again
        if rc == EXIT_FAIL and name == "check" and not plan.keep_going:
            # The verdict is FAIL already; a quality run on a GPU costs ~20 minutes.
            say(
                "[yellow]required checks failed: latency and quality skipped (--keep-going to measure anyway)[/]"
            )
            return 0
    return 0
