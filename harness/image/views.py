"""What a package verdict shows, as view models: the rules, the archive, its sizes, the verdict.

Rendered by ``harness package`` and ``gate --image`` on the console
(image/console.py) and by ``harness report`` in report.html (the package
kind's record points here).
"""

from __future__ import annotations

from harness.image.report import PackageReport
from harness.image.rules import human_bytes
from harness.view.model import Cell, Column, Section, Table, Text, Tone, facts, section, table, text

TONE: dict[str, Tone] = {"pass": "good", "fail": "bad", "warn": "warn"}


def rules_table(rep: PackageReport) -> Table:
    rows: list[list[Cell | str]] = [
        [r.rule, Cell(r.status.upper(), TONE[r.status]), r.detail] for r in rep.rules
    ]
    cols = [Column("rule", "left"), Column("status", "left"), Column("detail", "left", wrap=True)]
    return table("package-rules", f"package {rep.archive}", cols, rows)


def archive_facts(rep: PackageReport) -> Table:
    pairs: list[tuple[str, str]] = [("archive", rep.archive)]
    if rep.image:
        pairs.append(("image", rep.image))
    pairs.append(("compressed", f"{rep.compressed_bytes:,} bytes"))
    if rep.mb_per_s is not None:
        pairs.append(
            (
                "saved",
                f"{rep.tar_bytes or 0:,} bytes → {rep.compressed_bytes:,} bytes in "
                f"{rep.seconds or 0:.1f} s ({rep.mb_per_s:.1f} MB/s, {rep.compressor})",
            )
        )
    pairs.append(("sha256", rep.sha256))
    pairs.append(("layout", f"{rep.layout}, {rep.layer_count} layers"))
    if rep.platform:
        pairs.append(("platform", rep.platform))
    if rep.entrypoint or rep.cmd:
        pairs.append(("entrypoint, cmd", " ".join([*rep.entrypoint, *rep.cmd])))
    return facts("package-archive", "", pairs)


def size_lines(rep: PackageReport, *, top: int = 5) -> list[Text]:
    """The pre-flight size breakdown: largest layers and directories, then the hints."""
    sizes = rep.sizes
    if sizes is None or not sizes.layers:
        return []
    lines = [f"size: {human_bytes(sizes.total_bytes)} uncompressed in {len(sizes.layers)} layers"]
    for lay in sorted(sizes.layers, key=lambda x: -x.bytes)[:top]:
        step = (lay.created_by or "").replace("\n", " ")[:70]
        lines.append(f"  layer {lay.index}: {human_bytes(lay.bytes)}  {step}")
    for p in sizes.largest_paths[:top]:
        lines.append(f"  {human_bytes(p.bytes):>14}  {p.path}  ({p.kind})")
    return [text(*lines), text(*sizes.hints, tone="warn", prefix="  hint: ")]


def parameters_text(n: int | None) -> str:
    if n is None:
        return "parameters unknown"
    return f"{n / 1e9:.2f} B parameters" if n >= 100_000_000 else f"{n:,} parameters"


def model_line(rep: PackageReport) -> Text:
    """``model files: 3 safetensors, 4.02 B parameters, weights id 3f0c9e1b6a2d4c77``."""
    count = sum(1 for p in rep.model_files if p.endswith(".safetensors"))
    ident = (
        f"weights id {rep.weights_id}"
        if rep.weights_id
        else f"no weights id: {rep.weights_note or 'unknown'}"
    )
    return text(f"model files: {count} safetensors, {parameters_text(rep.parameters)}, {ident}")


def verdict(rep: PackageReport) -> Text:
    if rep.passed:
        return text("PASS: ready to submit", tone="good")
    return text("FAIL: " + "; ".join(f"{r.rule}: {r.detail}" for r in rep.failures()), tone="bad")


def sections(rep: PackageReport) -> list[Section]:
    return [
        section(
            "package",
            "Package",
            rules_table(rep),
            archive_facts(rep),
            *size_lines(rep),
            model_line(rep),
            verdict(rep),
        )
    ]
