"""What a VLM run tells its caller as it goes (the console's bar, the gate's lines):
:class:`VlmHooks`, whose every method is a no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from harness.hooks import RunHooks
from harness.vlm.report import VlmSample


class VlmHooks(RunHooks):
    """Progress and console callbacks of a VLM run; every one is a no-op here (``partial``:
    harness/hooks.py)."""

    def loading(self) -> None:
        """The runner starts: the wrapper loads its model."""

    def measuring(self, samples: int) -> None:
        """The wrapper is loaded; warm-up, then ``samples`` measured samples."""

    def sample(self, sample: VlmSample) -> None:
        """One sample is measured (its three calls done)."""


NO_HOOKS = VlmHooks()
