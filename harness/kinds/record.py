"""One measurement kind as one record: what the gate, the report reader and compare need.

A kind (check, latency, throughput, quality, package, vlm) is one
:class:`MeasurementKind` exported by its own package (``harness/<pkg>/kind.py``:
``KIND``) and listed once, in order, in the registry (``harness/registry/``). The gate
(steps, required reports, rules, hooks), the report reader and ``compare``
iterate the registry; none of them names a kind. Adding a measurement is one
record: its report class, its typed overrides (the flags), the one function
that builds its config from a profile, its core, exit code, gate rules,
console hooks and comparison.

Heavy facets are bound lazily: a record names its core (``run``), ``exit_code``, silent
hooks, console, preflight and summary by ``"module:attribute"`` reference
(``harness/kinds/lazy.py``), imported when first used through the record's methods
(:meth:`MeasurementKind.measure`, :meth:`~MeasurementKind.exit_code_of`, …), so building
the registry and judging a run folder (``gate RUN_DIR``, ``harness report``) import no
aiohttp, matplotlib, prometheus_client or docker (tests/unit/test_light_judging.py).

Layering: this record type sits below the measurement packages (each package's
``kind.py`` builds its record from it) and imports none of them; the registry sits
above them, below the gate, ``compare`` and the report reader, which iterate it
(tests/unit/test_layering.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar, cast, runtime_checkable

from rich.console import Console

from harness.errors import HarnessError
from harness.kinds.lazy import checked, resolve
from harness.overrides import Overrides
from harness.paired.model import CompareSection
from harness.paired.side import CompareSettings, Side
from harness.profiles import Profile
from harness.provenance import Provenance
from harness.report_base import Report
from harness.target import Target
from harness.verdict import Judgement
from harness.view.fmt import DASH
from harness.view.model import Block, Section
from harness.view.summary import KindSummary

C = TypeVar("C")  # the kind's config (LatencyConfig, ...)
Ov = TypeVar("Ov", bound=Overrides)  # its typed overrides record
R = TypeVar("R", bound=Report)  # its report class
H = TypeVar("H")  # its core's hooks
T = TypeVar("T", bound=Report)
S = TypeVar("S", bound=CompareSection)  # its section of a comparison

# A heavy facet, named not imported: "harness.<pkg>.<module>:<name>" (harness/kinds/lazy.py)
Ref = str

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
    # not run because an earlier step stopped the gate: kind name → why ("check failed …")
    not_run: dict[str, str] = field(default_factory=dict)
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

    name: str  # e.g. "mean speedup": what a page calls the score (gate.json's score_name)
    of: Callable[[R], float | None]
    # the score the grader would give, given the folder's other reports (Paris: 0 when
    # its correctness gate fails); None: the measured score is the grader's
    graded: Callable[[R, GateInputs], float | None] | None = None
    unit: str = ""  # written after the figure ("×" for a speedup; tok/s is in the name)
    # how every page writes the figure: ".2f" (1.47), ",.0f" (5,800,834: whole tok/s)
    spec: str = ".2f"
    # what qualifies the score while it is not the grader's as it stands, given the folder's
    # other reports (``mean speedup: short only``, a mean over fewer buckets; Paris:
    # ``weighted tok/s: scored 0 unless gsm8k passes``, its correctness gate not measured);
    # "" when it is; None: never qualified
    caveat: Callable[[R, GateInputs], str] | None = None

    def text(self, value: float | None, digits: int | None = None) -> str:
        """``1.47×``, ``5,800,834``: the figure as every page writes it (the gate's headline
        and reasons, the kind's console and report.html), its unit after it (— when none);
        ``digits``: that many decimals instead, without thousands commas (tune's tables)."""
        if value is None:
            return DASH
        spec = self.spec if digits is None else f".{digits}f"
        return f"{value:{spec}}{self.unit}"


@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class KindConsole(Generic[R, H]):
    """The kind on a rich console while the gate runs it: the core's console hooks, and the
    report's rendering once it is done (the command shows the same)."""

    hooks: Ref  # a function (console, profile name) → hooks
    render: Ref  # a function (console, report, run folder) → None

    def __post_init__(self) -> None:
        checked(self.hooks)
        checked(self.render)

    def make_hooks(self, console: Console, profile: str) -> H:
        return cast(Callable[[Console, str], H], resolve(self.hooks))(console, profile)

    def show(self, console: Console, report: R, folder: str) -> None:
        cast(Callable[[Console, R, str], None], resolve(self.render))(console, report, folder)


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
class ImageRun:
    """What the gate hands the kind that starts the image it packaged (``gate --image``)."""

    image: str
    overrides: Any  # the kind's overrides record, from the gate's options
    profile: Profile
    folder: Path  # the run folder: the kind's report there records an image that did not start
    ready_timeout_s: float
    say: Callable[[str], None]  # a line for the user
    error: Callable[[HarnessError], None]  # an error shown in one line
    # the gate's server steps against the running image's URL → their worst stop code
    measure: Callable[[str], int]


@dataclass(frozen=True)
class KindImage:
    """The container engine behind a kind that packages an image: starting it for the gate's
    server steps (``gate --image``) and naming an image by its id (``gate --image-id``)."""

    serve: Ref  # a function (ImageRun) → the worst stop code
    identify: Ref  # a function (name, overrides) → "sha256:…"; raises a HarnessError

    def __post_init__(self) -> None:
        checked(self.serve)
        checked(self.identify)

    def serve_image(self, run: ImageRun) -> int:
        """Start the packaged image with no route out, measure it, stop it."""
        return cast(Callable[[ImageRun], int], resolve(self.serve))(run)

    def image_id(self, name: str, overrides: Any) -> str:
        """``name``'s full id in the engine the overrides name."""
        return cast(Callable[[str, Any], str], resolve(self.identify))(name, overrides)


@dataclass(frozen=True)
class MeasurementKind(Generic[C, Ov, R, H]):
    name: str  # = the report's ``kind`` and file stem
    command: tuple[str, ...]  # the ``harness`` command that runs it: ("latency",)
    report: type[R]
    overrides: type[Ov]
    # the one builder of the kind's config: the profile's values, then the overrides
    from_profile: Callable[[Profile, Target, Ov], C]
    # the heavy facets are references (``Ref``), resolved on first use: ``measure``, …
    run: Ref  # the core, (cfg, RunEnv) → report; saves the report (partial on Ctrl-C)
    exit_code: Ref  # (report) → the command's exit code; its policy, reused by the gate
    silent_hooks: Ref  # the core's silent hooks, an object (``no_hooks``)
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
    # step's before its first step measures; raises a HarnessError (usage: exit 2).
    # A function (cfg) → None
    preflight: Ref | None = None
    # what its options must satisfy under a profile, said before a run folder exists
    # (latency: --buckets names the profile's buckets); raises a HarnessError (exit 2)
    usage: Callable[[Profile, Ov], None] | None = None
    # the container engine behind the image it packages (package: gate --image, --image-id)
    image: KindImage | None = None
    score: KindScore[R] | None = None
    console: KindConsole[R, H] | None = None
    compare: KindCompare[R, Any] | None = None
    # its sections in ``harness report`` (console and report.html): ``<pkg>/views.py``'s
    # ``sections``; None: the run's summary line only
    views: Callable[[R], list[Section]] | None = None
    # what one run shows outside its sections: its ledger fields and cells, its lines of the
    # run summary, its gate.json figures (harness/view/summary.py): its package's
    # ``summary.SUMMARY``, by reference (``summary_facet``). None: it shows none
    summary: Ref | None = None

    def __post_init__(self) -> None:
        for ref in (self.run, self.exit_code, self.silent_hooks, self.preflight, self.summary):
            if ref is not None:
                checked(ref)

    def measure(self, cfg: C, env: RunEnv[H]) -> R:
        """Run the core (imported now): its report, saved (partial on Ctrl-C)."""
        return cast(Callable[[C, RunEnv[H]], R], resolve(self.run))(cfg, env)

    def exit_code_of(self, report: R) -> int:
        """The command's exit code for ``report`` (the gate reuses it)."""
        return cast(Callable[[R], int], resolve(self.exit_code))(report)

    def check_first(self, cfg: C) -> None:
        """Its preflight over ``cfg``, when it has one (raises a HarnessError)."""
        if self.preflight is not None:
            cast(Callable[[C], None], resolve(self.preflight))(cfg)

    def check_usage(self, profile: Profile, overrides: Ov) -> None:
        """Its options' usage check under ``profile``, when it has one."""
        if self.usage is not None:
            self.usage(profile, overrides)

    def summary_facet(self) -> KindSummary[R, Any] | None:
        """Its summary facet (harness/view/summary.py), None when it shows none."""
        return None if self.summary is None else cast(KindSummary[R, Any], resolve(self.summary))

    @property
    def no_hooks(self) -> H:
        """The hooks the core is run with when nobody watches (tests, the gate's silent steps)."""
        return cast(H, resolve(self.silent_hooks))

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
