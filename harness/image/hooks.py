"""What packaging tells its caller as it goes (the console's byte bar):
:class:`PackageHooks`, a no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from harness.hooks import RunHooks


class PackageHooks(RunHooks):
    """Progress of the package core; a no-op here (the console's is in image/console.py)."""

    def bytes(self, done: int, total: int) -> None:
        """``done`` of ``total`` bytes saved (``total`` 0 while unknown)."""


NO_HOOKS = PackageHooks()
