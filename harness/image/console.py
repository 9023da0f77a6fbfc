"""``harness package``'s verdict on the console (also shown by ``gate --image``)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from harness.image.package import PackageReport


def render(report: PackageReport, console: Console) -> None:
    table = Table(title=f"package {report.archive}", show_lines=False)
    table.add_column("rule")
    table.add_column("status")
    table.add_column("detail")
    style = {"pass": "green", "fail": "bold red", "warn": "yellow"}
    for r in report.rules:
        table.add_row(r.rule, f"[{style[r.status]}]{r.status.upper()}[/]", r.detail)
    console.print(table)
    if report.mb_per_s is not None:
        console.print(
            f"saved {report.tar_bytes or 0:,} bytes → {report.compressed_bytes:,} bytes in "
            f"{report.seconds:.1f} s ({report.mb_per_s:.1f} MB/s, {report.compressor})"
        )
    console.print(f"sha256 {report.sha256}")
    verdict = "[green]PASS[/]" if report.passed else "[bold red]FAIL[/]"
    console.print(
        f"{verdict}: "
        + (
            "ready to submit"
            if report.passed
            else "; ".join(f"{r.rule}: {r.detail}" for r in report.failures())
        )
    )
