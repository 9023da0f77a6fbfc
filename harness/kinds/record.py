"""One measurement kind as one record: what the gate, the report reader and compare need.

A kind (check, latency, throughput, quality, package, vlm) is one
:class:`MeasurementKind` exported by its own package (``harness/<pkg>/kind.py``:
``KIND``) and listed once, in order, in the registry (``harness/registry/``). The gate
(steps, required reports, rules, hooks), the report reader and ``compare``
iterate the registry; none of them names a kind. Adding a measurement is one
record: its report class, its typed overrides (the flags), the one function
that builds its config from a profile, its core, exit code, gate rules,
console hooks and comparison.

Heavy facets are bound lazily: a record's ``run``, ``exit_code``, silent hooks, console,
preflight and summary are small functions in its ``kind.py`` that import the core, the console
and the HTTP client only when called, so judging a run folder (``gate RUN_DIR``,
``harness report``) imports no aiohttp, matplotlib, prometheus_client or docker
(tests/unit/test_light_judging.py).

Layering: this record type sits below the measurement packages (each package's
``kind.py`` builds its record from it) and imports none of them; the registry sits
above them, below the gate, ``compare`` and the report reader, which iterate it
(tests/unit/test_layering.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from rich.console import Console

from harness.overrides import Overrides
from harness.paired.model import CompareSection
from harness.paired.side import CompareSettings, Side
from harness.profiles import Profile
from harness.provenance import Provenance
from harness.report_base import Report
from harness.target import Target
from harness.verdict import Judgement
from harness.view.model import Block, Section
from harness.view.summary import KindSummary

C = TypeVar("C")  # the kind's config (LatencyConfig, ...)
Ov = TypeVar("Ov", bound=Overrides)  # its typed overrides record
R = TypeVar("R", bound=Report)  # its report class
H = TypeVar("H")  # its core's hooks
T = TypeVar("T", bound=Report)
S = TypeVar("S", bound=CompareSection)  # its section of a comparison

# Where the gate runs a kind: against the server ("server"), on the image before it
# runs ("image"), or never (the kind's own command writes its report).
GateStep = Literal["server", "image"] | None


@dataclass(frozen=True)
class RunEnv(Generic[H]):
    """What a core gets besides its config: provenance to record, the run folder, hooks."""

    provenance: Provenance
    folder: Path
    hooks: H


@dataclass
class GateInputs:
    """A run folder's reports as the gate judges them (the context every kind's rules read)."""

    profile: Profile
    reports: dict[str, Report] = field(default_factory=dict)  # by kind name
    required: list[str] = field(default_factory=list)  # kinds this verdict needs
    skipped: list[str] = field(default_factory=list)  # left out on purpose (--skip)
    unreadable: list[str] = field(default_factory=list)  # there, but could not be read

    @classmethod
    def of(cls, profile: Profile, *reports: Report, required: Sequence[str] = ()) -> GateInputs:
        return cls(profile=profile, reports={r.kind: r for r in reports}, required=list(required))

    def get(self, kind: type[T]) -> T | None:
        report = self.reports.get(kind.model_fields["kind"].default)
        return report if isinstance(report, kind) else None


@dataclass(frozen=True)
class KindScore(Generic[R]):
    """The competition score a report carries, for the gate's headline."""

    name: str  # e.g. "mean speedup"
    of: Callable[[R], float | None]
    # the score the grader would give, given the folder's other reports (Paris: 0 when
    # its correctness gate fails); None: the measured score is the grader's
    graded: Callable[[R, GateInputs], float | None] | None = None


@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class KindConsole(Generic[R, H]):
    """The kind on a rich console while the gate runs it: the core's console hooks, and the
    report's rendering once it is done (the command shows the same)."""

    hooks: Callable[[Console, str], H]  # (console, profile name) → hooks
    render: Callable[[Console, R, str], None]  # (console, report, run folder)


@dataclass(frozen=True)
class KindCompare(Generic[R, S]):
    """How ``compare`` reads, checks and compares two runs' reports of this kind
    (``harness/<pkg>/compare.py``) and draws its section (``<pkg>/compare_views.py``)."""

    section: type[S]  # this kind's section of the comparison (compare.json's sections[name])
    # what else to read beside the report (repeats, samples); the folder and the report
    load_extra: Callable[[Path, R], Any] | None
    # (refusals, notes): what makes the two runs measure different things
    differences: Callable[[Side[R], Side[R]], tuple[list[str], list[str]]]
    # this kind's section of the comparison
    compare: Callable[[Side[R], Side[R], CompareSettings], S]
    # the section's blocks (tables, texts, plots) on the console and in report.html
    views: Callable[[S], list[Block | None]]
    # its section from a compare.json before schema 4, its keys taken out of the top
    legacy: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None


@dataclass(frozen=True)
class MeasurementKind(Generic[C, Ov, R, H]):
    name: str  # = the report's ``kind`` and file stem
    command: tuple[str, ...]  # the ``harness`` command that runs it: ("latency",)
    report: type[R]
    overrides: type[Ov]
    # the one builder of the kind's config: the profile's values, then the overrides
    from_profile: Callable[[Profile, Target, Ov], C]
    run: Callable[[C, RunEnv[H]], R]  # the core; saves the report (partial on Ctrl-C)
    exit_code: Callable[[R], int]  # the command's exit policy, reused by the gate
    silent_hooks: Callable[[], H]  # the core's silent hooks (``no_hooks``)
    # whether a verdict under ``profile`` needs this report (``image``: gate --image)
    required: Callable[[Profile, bool], bool]
    # the gate's rules over its report (when the folder holds it) and the other inputs
    rules: Callable[[R, GateInputs], Judgement]
    gate_step: GateStep = None
    # when this step fails or finds no server, the gate runs no later step
    # (--keep-going measures anyway after a failure)
    prerequisite: bool = False
    # its blocking reasons say a contest rule is broken (the audit): the measured speed is
    # not to be believed, so tune makes such a trial infeasible (``audit-failed``)
    judges_rules: bool = False
    # what can fail before anything is measured (its data, …): the gate checks every
    # step's before its first step measures; raises a HarnessError (usage: exit 2)
    preflight: Callable[[C], None] | None = None
    score: KindScore[R] | None = None
    console: KindConsole[R, H] | None = None
    compare: KindCompare[R, Any] | None = None
    # its sections in ``harness report`` (console and report.html): ``<pkg>/views.py``'s
    # ``sections``; None: the run's summary line only
    views: Callable[[R], list[Section]] | None = None
    # what one run shows outside its sections: its ledger fields and cells, its lines of the
    # run summary, its gate.json figures (harness/view/summary.py); bound lazily: a function
    # in its kind.py returning its package's ``summary.SUMMARY``. None: it shows none
    summary: Callable[[], KindSummary[R, Any]] | None = None

    @property
    def no_hooks(self) -> H:
        """The hooks the core is run with when nobody watches (tests, the gate's silent steps)."""
        return self.silent_hooks()

    @property
    def filename(self) -> str:
        return self.report.FILENAME

    def judge(self, inputs: GateInputs) -> Judgement:
        """Its rules over the folder's report of this kind (nothing when there is none)."""
        report = inputs.reports.get(self.name)
        return self.rules(report, inputs) if isinstance(report, self.report) else ([], [])

    def command_line(self, target: Target, overrides: Ov, profile: str) -> list[str]:
        """The ``harness`` command that re-runs this config (recorded as provenance)."""
        return ["harness", *self.command, *target.argv(profile), *overrides.argv()]
