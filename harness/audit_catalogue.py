"""What each audit rule is, as plain data a profile and the gate may read (docs/audit.md,
"Adding a rule").

One ordered :data:`CATALOGUE` of :class:`RuleEntry`: a rule's name (the profile's
``[audit] rules`` and ``audit.json`` spell it so), its title, the phases whose requests it
judges, whether those need the latency grader's raw-prompt route, the sections of
docs/audit.md that explain it, and the risk flag the gate adds when it fails. How a rule
is judged (its judge, its second-look test) is code over the audit's records, bound to
its entry in harness/audit/rules.py: ``RULES``, one record per entry, in this order.

Why two tuples: the profile is a foundation (layer 0) and refuses, when it is loaded, a
rule it does not know, a rule judged elsewhere (AICAS's, in-process) and one its workload
cannot send (tests/unit/test_audit_paris.py) — before any command measures, as the
``Literal`` of names did. The judges import the audit's records and statistics (layer 3),
which a foundation may not (tests/unit/test_layering.py). So what the profile, the gate
and the help need is here, the judges are bound in the audit, and
tests/unit/test_audit_rules.py holds that the two agree, entry by entry, in order.
Reading names, phases and flags imports nothing heavy: ``gate RUN_DIR`` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness.risk import FlagKind

# who sends a rule's requests, each phase a room of harness/audit/ by its name: the timed
# rounds (with their second set and the one-token requests), the probe phase, the quality
# items against paraphrases, the continuations of answers that end early; or the
# participant's own process (``harness vlm audit``)
RulePhase = Literal["timed", "probes", "paraphrases", "continuations", "in-process"]


@dataclass(frozen=True)
class RuleEntry:
    name: str
    title: str  # what the rule holds, in a few words (--help, docs)
    phases: tuple[RulePhase, ...]  # the phases whose requests it judges; the first its own
    prompt_route: bool = False  # its requests need the latency grader's raw-prompt route
    docs: tuple[str, ...] = ("The rules",)  # docs/audit.md headings (a heading's start)
    flag: FlagKind | None = None  # the risk flag the gate adds when the rule fails
    flag_words: str = ""  # that flag's text, before the rule's why

    @property
    def phase(self) -> RulePhase:
        return self.phases[0]

    @property
    def in_process(self) -> bool:
        """Judged in the participant's process (``harness vlm audit``), not over HTTP."""
        return self.phase == "in-process"


CACHED_ANSWERS = RuleEntry(
    "cached_answers",
    "no cached answers",
    ("timed",),
    docs=("The rules", "Failed requests"),
)
BENCHMARK_DETECTION = RuleEntry(
    "benchmark_detection",
    "no benchmark detection",
    ("timed", "paraphrases"),
    docs=("The rules", "The quality prompts against paraphrases"),
)
PHYSICALLY_POSSIBLE = RuleEntry("physically_possible", "physically possible", ("timed",))
ONE_STACK = RuleEntry(
    "one_stack",
    "one model stack",
    ("probes",),
    prompt_route=True,
    docs=("The rules", "The probe phase"),
    flag=FlagKind.ENDPOINT_ROUTING,  # the same risk harness check's one_stack names
    flag_words="a second model stack",
)
STREAM_CONSISTENCY = RuleEntry(
    "stream_consistency",
    "stream consistency",
    ("probes",),
    prompt_route=True,
    docs=("The rules", "The probe phase"),
)
COMPLETE_OUTPUTS = RuleEntry(
    "complete_outputs",
    "complete outputs",
    ("continuations",),
    prompt_route=True,
    docs=("The rules", "complete outputs: the seam"),
)
HARD_CODED_ANSWERS = RuleEntry(
    "hard_coded_answers", "no hard-coded answers", ("in-process",), docs=("AICAS",)
)

CATALOGUE: tuple[RuleEntry, ...] = (
    CACHED_ANSWERS,
    BENCHMARK_DETECTION,
    PHYSICALLY_POSSIBLE,
    ONE_STACK,
    STREAM_CONSISTENCY,
    COMPLETE_OUTPUTS,
    HARD_CODED_ANSWERS,
)


def entries() -> tuple[RuleEntry, ...]:
    """The catalogue as it is now (read at call time: a test may add an entry)."""
    return CATALOGUE


def entry_named(name: str) -> RuleEntry | None:
    return next((e for e in entries() if e.name == name), None)


def listable() -> list[str]:
    """The rules a profile's ``[audit] rules`` may name (those ``harness audit`` judges)."""
    return [e.name for e in entries() if not e.in_process]


def prompt_route_rules() -> tuple[str, ...]:
    """The rules whose requests need the latency grader's prompt route (a raw prompt: the
    probes' templated prompt, complete_outputs' continuation) or a second way of asking."""
    return tuple(e.name for e in entries() if e.prompt_route)
