"""What a quality run tells its caller as it goes (the console's bars, the gate's lines)."""

from __future__ import annotations

from harness.hooks import ServerHooks
from harness.profiles import Benchmark
from harness.quality.transport import NoProgress, ProgressSink


class QualityHooks(ServerHooks):
    """Progress and console callbacks of a quality run; every one is a no-op here
    (the wait, ``measuring`` and ``partial``: harness/hooks.py)."""

    def progress(self, bench: Benchmark) -> ProgressSink:
        """The progress sink of one benchmark's requests."""
        return NoProgress()

    def note(self, text: str) -> None:
        """One line the run has to say (e.g. why cached answers are not reused)."""

    def looked(self, bench: Benchmark, asked: int, total: int, risk: float | None) -> None:
        """``--decide`` checked ``bench`` after ``asked`` of ``total`` documents (risk: the
        chance the full set lands on the other side of the threshold, were it decided now)."""


NO_HOOKS = QualityHooks()
