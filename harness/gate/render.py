"""The verdict on the console: the gate's view (``gate/views.py``) in a panel."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from harness.gate.report import GateReport
from harness.gate.views import TONE, flag_lines, headline, reason_lines
from harness.view.console import STYLE, text_lines


def render_gate(console: Console, rep: GateReport, folder: str, *, judged_as: str = "") -> None:
    """The verdict panel; ``judged_as``: the profile's title (a folder is judged under its own)."""
    lines = [line for t in reason_lines(rep) for line in text_lines(t)]
    flags = [line for t in flag_lines(rep) for line in text_lines(t)]
    body = Group(*lines, *([Text("")] if flags and lines else []), *flags)
    title = Text(headline(rep), style="bold " + STYLE[TONE[rep.verdict]])
    empty = not lines and not flags
    console.print(Panel(Text("no reports") if empty else body, title=title, title_align="left"))
    under = f" (judged as {judged_as})" if judged_as else ""
    console.print(f"verdict: {folder}/gate.json{under}")
