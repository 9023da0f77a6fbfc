"""What a launcher records of the server it starts: its command line and environment.

The environment a server inherits is large; :func:`serving_env` keeps the variables
that change how an engine serves (``VLLM_*``, ``CUDA_*``, ``OMP_*``, ``HF_*``, …) plus
what the launcher set itself. Values of secret-looking names are redacted when the
manifest is built (harness/manifest/sources.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import PurePath

from harness.manifest.model import Launched

SERVING_PREFIXES = (
    "VLLM_",
    "CUDA_",
    "NCCL_",
    "OMP_",
    "MKL_",
    "KMP_",
    "HF_",
    "TRANSFORMERS_",
    "TOKENIZERS_",
    "TORCH",
    "PYTORCH_",
)


def serving_env(
    added: Mapping[str, str], inherited: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables of ``inherited`` (default: this process's) that shape serving, with
    ``added`` (what the launcher sets on top) winning."""
    base = os.environ if inherited is None else inherited
    kept = {k: v for k, v in base.items() if k.startswith(SERVING_PREFIXES)}
    return dict(sorted({**kept, **added}.items()))


def launched_process(
    by: str,
    argv: Sequence[str],
    added_env: Mapping[str, str],
    inherited: Mapping[str, str] | None = None,
) -> Launched:
    """A server started as a process: ``argv`` (the interpreter named by its file name only,
    no machine path) and its serving environment."""
    args = list(argv)
    if args and PurePath(args[0]).is_absolute():
        args[0] = PurePath(args[0]).name
    return Launched(by=by, argv=tuple(args), env=serving_env(added_env, inherited))
