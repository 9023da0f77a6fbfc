"""What a quality run tells its caller as it goes (the console's bars, the gate's lines)."""

from __future__ import annotations

from pathlib import Path

from harness.client.readiness import ReadyResult
from harness.profiles import Benchmark
from harness.quality.transport import NoProgress, ProgressSink


class QualityHooks:
    """Progress and console callbacks of a quality run; every one is a no-op here."""

    def waiting(self, url: str) -> None:
        """Readiness polling starts on ``url``."""

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        """One readiness poll was not ready: ``last`` says what it saw, with the time."""

    def ready(self, result: ReadyResult) -> None:
        """The server answered 200 on its ready path."""

    def measuring(self, started: bool) -> None:
        """The benchmarks start (True) or have stopped, done or not (False)."""

    def progress(self, bench: Benchmark) -> ProgressSink:
        """The progress sink of one benchmark's requests."""
        return NoProgress()

    def note(self, text: str) -> None:
        """One line the run has to say (e.g. why cached answers are not reused)."""

    def partial(self, path: Path) -> None:
        """The run stopped early; what it measured is saved at ``path``."""

    def looked(self, bench: Benchmark, asked: int, total: int, risk: float | None) -> None:
        """``--decide`` checked ``bench`` after ``asked`` of ``total`` documents (risk: the
        chance the full set lands on the other side of the threshold, were it decided now)."""


NO_HOOKS = QualityHooks()
