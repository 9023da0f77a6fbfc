"""Console output of ``harness audit``: a live line per request, then the rules' table."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from harness.audit.continuations.record import Continuation
from harness.audit.hooks import AuditHooks
from harness.audit.paraphrases.record import Asked
from harness.audit.probes.record import Probe
from harness.audit.report import AuditReport, Sample
from harness.audit.views import sections
from harness.client.readiness import ReadyResult
from harness.console_hooks import WaitingLines
from harness.view.console import print_sections


def render_report(console: Console, report: AuditReport, folder: str) -> None:
    print_sections(console, sections(report))
    console.print(f"report: {folder}/audit.json", style="dim")


class ConsoleHooks(AuditHooks):
    """An audit on a rich console: the wait, one dim line per request, the partial save."""

    def __init__(self, console: Console, profile: str) -> None:
        self.console = console
        self.profile = profile
        self._url = ""
        self._lines = WaitingLines()

    def waiting(self, url: str) -> None:
        self._url = url

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        self._lines.say(self.console, self._url, elapsed_s, last)

    def ready(self, result: ReadyResult) -> None:
        self.console.print(f"auditing (profile {self.profile})", style="dim")

    def sample(self, sample: Sample) -> None:
        took = f"{sample.e2e_ms:.1f} ms" if sample.e2e_ms is not None else sample.error or ""
        self.console.print(
            f"  {sample.bucket} {sample.phase} {sample.role}: {took}, "
            f"{sample.output_tokens} tokens",
            style="dim",
        )

    def probe(self, probe: Probe) -> None:
        took = f"{probe.e2e_ms:.1f} ms" if probe.e2e_ms is not None else probe.error or ""
        self.console.print(
            f"  probe {probe.label}: {took}, {probe.output_tokens} tokens", style="dim"
        )

    def asked(self, asked: Asked) -> None:
        took = f"{asked.e2e_ms:.1f} ms" if asked.e2e_ms is not None else asked.error or ""
        self.console.print(
            f"  {asked.benchmark} {asked.item} {asked.form}: {took}, {asked.output_tokens} tokens",
            style="dim",
        )

    def continuation(self, check: Continuation) -> None:
        went_on = (
            f"; continued: {check.continued_tokens} tokens ({check.continued_finish})"
            if check.continued_tokens is not None
            else ""
        )
        what = (
            f"from inside the answer, after {check.start} tokens"
            if check.inside
            else f"answer {check.answer_tokens} of {check.max_tokens} tokens "
            f"({check.error or check.answer_finish})"
        )
        self.console.print(f"  {check.bucket} complete_outputs: {what}{went_on}", style="dim")

    def partial(self, path: Path) -> None:
        print(
            f"harness: partial audit report saved: {path} (every request measured is kept: "
            f"finish it with the same command and --out {path.parent} --resume)",
            file=sys.stderr,
        )
