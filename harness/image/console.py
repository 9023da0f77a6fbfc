"""``harness package``'s verdict on the console (also shown by ``gate --image``)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from harness.image.package import PackageReport
from harness.image.rules import human_bytes


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
    render_sizes(report, console)
    verdict = "[green]PASS[/]" if report.passed else "[bold red]FAIL[/]"
    console.print(
        f"{verdict}: "
        + (
            "ready to submit"
            if report.passed
            else "; ".join(f"{r.rule}: {r.detail}" for r in report.failures())
        )
    )


def render_sizes(report: PackageReport, console: Console, *, top: int = 5) -> None:
    """The pre-flight size breakdown: largest layers and directories, then the hints."""
    sizes = report.sizes
    if sizes is None or not sizes.layers:
        return
    console.print(
        f"size: {human_bytes(sizes.total_bytes)} uncompressed in {len(sizes.layers)} layers"
    )
    for lay in sorted(sizes.layers, key=lambda x: -x.bytes)[:top]:
        step = (lay.created_by or "").replace("\n", " ")[:70]
        console.print(f"  layer {lay.index}: {human_bytes(lay.bytes)}  {step}", markup=False)
    for p in sizes.largest_paths[:top]:
        console.print(f"  {human_bytes(p.bytes):>14}  {p.path}  ({p.kind})", markup=False)
    for hint in sizes.hints:
        console.print(f"  hint: {hint}", markup=False)
