"""What an audit tells its caller as it goes: :class:`AuditHooks`, whose every method is a
no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from harness.audit.continuations.record import Continuation
from harness.audit.paraphrases.record import Asked
from harness.audit.probes.record import Probe
from harness.audit.report import Sample
from harness.hooks import ServerHooks
from harness.rule_report import RuleVerdict


class AuditHooks(ServerHooks):
    """Console callbacks of an audit; every one is a no-op here (the wait, ``measuring`` and
    ``partial``: harness/hooks.py)."""

    def sample(self, sample: Sample) -> None:
        """One request of the audit ended."""

    def probe(self, probe: Probe) -> None:
        """One request of the probe phase ended."""

    def asked(self, asked: Asked) -> None:
        """One quality item or paraphrase of ``benchmark_detection`` was answered."""

    def verdict(self, verdict: RuleVerdict) -> None:
        """One rule was judged."""

    def continuation(self, check: Continuation) -> None:
        """One ``complete_outputs`` check ended (its answer and continuation)."""


NO_HOOKS = AuditHooks()
