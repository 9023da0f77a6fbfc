"""The verdict on the console."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel

from harness.gate.report import GateReport, Verdict

_STYLE = {Verdict.PASS: "bold green", Verdict.FAIL: "bold red", Verdict.INCOMPLETE: "bold yellow"}


def render_gate(console: Console, rep: GateReport, folder: str, *, judged_as: str = "") -> None:
    """The verdict panel; ``judged_as``: the profile's title (a folder is judged under its own)."""
    lines: list[str] = []
    for r in rep.reasons:
        mark = "[red]✗[/]" if r.blocking else "[yellow]…[/]" if r.incomplete else "[green]✓[/]"
        lines.append(f"{mark} {r.text}")
    if rep.flags:
        lines.append("")
        lines.append(
            "[bold]risk flags[/] "
            + (
                "(failing: --strict)"
                if rep.strict
                else "(do not fail the gate; --strict to make them)"
            )
        )
        lines += [f"[yellow]⚠[/] {f.text}" for f in rep.flags]
    title = f"[{_STYLE[rep.verdict]}]{rep.verdict.value}[/]"
    if rep.score is not None:
        title += f"  score {rep.score:.2f} ({rep.score_name})"
    console.print(Panel("\n".join(lines) or "no reports", title=title, title_align="left"))
    under = f" (judged as {judged_as})" if judged_as else ""
    console.print(f"verdict: {folder}/gate.json{under}")
