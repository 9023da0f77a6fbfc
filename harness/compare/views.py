"""What a comparison shows, as view models: what ran, then each kind's section (its
tables, plots and flips, drawn by its own ``harness/<pkg>/compare_views.py``), then notes.

``harness compare`` prints these sections and report.html draws them (the
run page of B, from compare.json): the one rendering of a comparison. Nothing
here names a kind: the sections come in the registry's order.
"""

from __future__ import annotations

from pathlib import PurePath

from harness.compare.model import COMPARED, CompareReport, ManifestDiff
from harness.view.model import Block, Section, Text, section, text

CHANGES_SHOWN = 20


def manifest_lines(m: ManifestDiff | None) -> list[Text]:
    """What ran in A and B and every setting that changed, shown above the verdicts."""
    if m is None:
        return []
    if m.config_a is None or m.config_b is None:
        missing = " and ".join(s for s, c in (("A", m.config_a), ("B", m.config_b)) if c is None)
        return [
            text(
                f"what ran: no manifest.json in {missing}: which settings changed is unknown",
                tone="warn",
            )
        ]
    if m.same:
        return [text(f"what ran: the same configuration in A and B (config {m.config_a})")]
    head = f"what ran: config A {m.config_a}, B {m.config_b}"
    if not m.changes:  # ids from another harness version's canonical form
        return [text(head)]
    lines = [f"B: {c.text}" for c in m.changes[:CHANGES_SHOWN]]
    if len(m.changes) > CHANGES_SHOWN:
        lines.append(f"… {len(m.changes) - CHANGES_SHOWN} more settings changed (--json)")
    return [text(head), text(*lines, tone="warn")]


def kind_blocks(rep: CompareReport) -> list[Block | None]:
    """Every compared kind's blocks, in the registry's order (its record's ``compare.views``)."""
    out: list[Block | None] = []
    for kind in COMPARED:
        assert kind.compare is not None
        sec = rep.sections.get(kind.name)
        if sec is not None:
            out += kind.compare.views(sec)
    return out


def sections(rep: CompareReport) -> list[Section]:
    return [
        section(
            "compare",
            f"Compare with {PurePath(rep.run_a).name}",
            text(f"A: {rep.run_a}", f"B: {rep.run_b}", f"profile: {rep.profile}"),
            *manifest_lines(rep.manifest),
            *kind_blocks(rep),
            text(*rep.notes, tone="warn", prefix="note: "),
        )
    ]
