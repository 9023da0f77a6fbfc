"""Reading a run folder's reports and judging them (never re-measuring).

Every kind of the registry is read through the one reader; a file that cannot
be read is one INCOMPLETE line (and not also "missing"). ``folder_profile``
says which profile the folder's reports were measured under: ``gate RUN_DIR``
judges with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import HarnessError, UsageError
from harness.gate.report import GateReport, Verdict, headline_figures
from harness.gate.rules import GateInputs, judge, required_reports
from harness.profiles import Profile
from harness.provenance import Provenance
from harness.registry import KINDS
from harness.report_base import Report, load_report
from harness.verdict import Reason


def read_inputs(
    folder: Path,
    profile: Profile,
    *,
    image: bool = False,
    skipped: Sequence[str] = (),
    not_run: Mapping[str, str] | None = None,
) -> tuple[GateInputs, list[Reason]]:
    """Every report the gate reads, through the one reader; an unreadable one is a problem."""
    problems: list[Reason] = []
    inputs = GateInputs(
        profile=profile,
        required=required_reports(profile, image=image),
        skipped=list(skipped),
        not_run=dict(not_run or {}),
    )
    for kind in KINDS:
        try:
            report = load_report(folder, kind.report)
        except HarnessError as err:
            problems.append(Reason(source="gate", text=err.one_line(), incomplete=True))
            inputs.unreadable.append(kind.name)
            continue
        if report is not None:
            inputs.reports[kind.name] = report
    return inputs, problems


def measured_kinds(folder: Path) -> list[str]:
    """The kinds whose report the folder holds (partial or unreadable ones too)."""
    return [k.name for k in KINDS if (folder / k.filename).exists()]


@dataclass(frozen=True)
class Score:
    """The competition's score as the gate reads it from the folder."""

    value: float | None = None  # as measured
    name: str = ""
    graded: float | None = None  # what the grader would give
    caveat: str = ""  # while it is not yet the grader's (``KindScore.caveat``)


def _score(inputs: GateInputs) -> Score:
    """The competition's score: the first kind (registry order) that has one, else the first
    kind present that would carry one; with the score the grader would give for it and
    what qualifies it while it is not yet the grader's."""
    candidates = []
    for k in KINDS:
        if k.score is None or k.name not in inputs.reports:
            continue
        report = inputs.reports[k.name]
        value = k.score.of(report)
        graded = k.score.graded(report, inputs) if k.score.graded is not None else value
        caveat = k.score.caveat(report, inputs) if k.score.caveat is not None else ""
        candidates.append(Score(value, k.score.name, graded, caveat))
    measured = [c for c in candidates if c.value is not None]
    return (measured or candidates or [Score()])[0]


def judge_folder(
    folder: Path,
    profile: Profile,
    provenance: Provenance,
    *,
    strict: bool = False,
    image: bool = False,
    skipped: Sequence[str] = (),
    not_run: Mapping[str, str] | None = None,
) -> GateReport:
    # a step skipped or left unmeasured then, measured into the folder since, is judged
    there = set(measured_kinds(folder))
    inputs, problems = read_inputs(
        folder,
        profile,
        image=image,
        skipped=[s for s in skipped if s not in there],
        not_run={k: why for k, why in (not_run or {}).items() if k not in there},
    )
    verdict, reasons, flags = judge(inputs, strict=strict)
    if problems and verdict is Verdict.PASS:
        verdict = Verdict.INCOMPLETE
    score = _score(inputs)
    return GateReport(
        verdict=verdict,
        strict=strict,
        reasons=problems + reasons,
        flags=flags,
        score=score.value,
        score_name=score.name,
        score_caveat=score.caveat,
        grader_score=score.graded,
        figures=headline_figures(inputs.reports),
        reports=sorted(there, key=[k.name for k in KINDS].index),
        skipped=list(inputs.skipped),
        not_run=dict(inputs.not_run),
        image=image,
        folder=folder.name,
        provenance=provenance,
    )


@dataclass(frozen=True)
class Recorded:
    """What the gate that measured a folder recorded about how it measured (its
    ``gate.json``): a re-judge (``gate RUN_DIR``) keeps it, for it says what was run, not
    what was found."""

    skipped: tuple[str, ...] = ()  # --skip
    not_run: Mapping[str, str] = field(default_factory=dict)  # an earlier step stopped it
    strict: bool = False  # --strict
    image: bool = False  # gate --image: the package rules

    def kept(self) -> list[str]:
        """The options kept, as a command line spells them (for the console)."""
        out = [f"--skip {name}" for name in self.skipped]
        out += ["--strict"] if self.strict else []
        out += ["--image (the package rules)"] if self.image else []
        out += [f"{name} not run ({why})" for name, why in self.not_run.items()]
        return out


def recorded_run(folder: Path) -> Recorded:
    """What the folder's earlier ``gate.json`` recorded of its run (nothing when there is
    none or it cannot be read: the verdict is then the folder's alone)."""
    try:
        earlier = load_report(folder, GateReport)
    except HarnessError:
        return Recorded()
    if earlier is None:
        return Recorded()
    return Recorded(
        skipped=tuple(earlier.skipped),
        not_run=dict(earlier.not_run),
        strict=earlier.strict,
        image=earlier.image,
    )


def folder_profile(folder: Path) -> str | None:
    """The profile the folder's measurements were made under (None: no readable one says).

    Reports that disagree are a usage error naming them: such a folder has no one verdict.
    An earlier ``gate.json`` is not asked: it may be the very misjudgement being redone."""
    seen: dict[str, list[str]] = {}
    for kind in KINDS:
        try:
            report: Report | None = load_report(folder, kind.report)
        except HarnessError:
            continue  # the verdict names the unreadable file
        if report is not None and report.provenance.profile:
            seen.setdefault(report.provenance.profile, []).append(kind.filename)
    if len(seen) > 1:
        listed = "; ".join(f"{name} ({', '.join(files)})" for name, files in seen.items())
        raise UsageError(
            f"{folder}: its reports were measured under different profiles: {listed}",
            hint="judge a folder of one run; re-run the odd reports into a new folder",
        )
    return next(iter(seen), None)
