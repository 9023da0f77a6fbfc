"""lm-eval's environment report, computed once per process.

Every ``simple_evaluate`` ends with ``add_env_info``: torch's ``collect_env`` report
(subprocesses for pip, the compiler and the GPU driver: 2–3 s on a 2-core machine), the
lm-eval and transformers versions and the parent folder's git commit. None of it reaches
a score or a request. ``--decide`` calls ``simple_evaluate`` once per round and a gate
once per benchmark, so a run paid those seconds again for the same answer. After
:func:`install` the first call computes the report and every later call in the process
copies it: the same keys and values in lm-eval's results, fewer seconds.
"""

from __future__ import annotations

from typing import Any

_REPORT: dict[str, Any] = {}  # filled by the first call in this process


def _add_env_info_once(storage: dict[str, Any]) -> None:
    if not _REPORT:
        from lm_eval.loggers.utils import add_env_info

        add_env_info(_REPORT)
    storage.update(_REPORT)


def install() -> None:
    """Route lm-eval's ``add_env_info`` (as ``simple_evaluate`` calls it) through the cache."""
    import lm_eval.evaluator

    lm_eval.evaluator.add_env_info = _add_env_info_once
