"""``harness data fetch``: download the benchmark datasets once, into a folder for offline runs.

Each split is written as JSON Lines in the dataset's own schema (the layout in
:mod:`harness.data.layout`). GPQA is gated on the Hugging Face hub: the user must
accept its terms and export ``HF_TOKEN``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness.data.benchmarks import DATASETS, GATED_NOTE, DatasetSource
from harness.data.hub import OFFLINE_HINT, library_logs_once, require_hub
from harness.data.layout import SAMPLES_DIR
from harness.errors import ConfigError, DataMissingError, TargetError


def select(only: list[str] | None) -> list[DatasetSource]:
    if not only:
        return [s for s in DATASETS.values() if s.fetched_by_default]
    unknown = [n for n in only if n not in DATASETS]
    if unknown:
        raise ConfigError(
            f"unknown dataset {', '.join(unknown)}", hint=f"choose from: {', '.join(DATASETS)}"
        )
    return [DATASETS[n] for n in only]


def fetch_source(src: DatasetSource, out: Path, token: str | None) -> list[Path]:
    """Download every split of one dataset into ``out``; return the files written."""
    try:
        import datasets
    except ImportError:
        raise DataMissingError(
            "the datasets package is missing", hint="pip install datasets"
        ) from None
    if src.gated and not token:
        raise DataMissingError(f"{src.hf_path} needs a token", hint=GATED_NOTE)
    written = []
    for split, rel in src.files.items():
        try:
            with library_logs_once():
                ds = datasets.load_dataset(src.hf_path, src.hf_config, split=split, token=token)
        except (OSError, ValueError, ConnectionError) as err:
            # datasets raises DatasetNotFoundError (a FileNotFoundError) for gated repos
            hint = GATED_NOTE if src.gated else f"check the network and the hub; {OFFLINE_HINT}"
            raise TargetError(
                f"cannot download {src.hf_path} [{split}]: {err}", hint=hint
            ) from None
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        ds.to_json(str(path), lines=True, force_ascii=False)
        written.append(path)
    return written


def fetch(out: Path, only: list[str] | None = None) -> list[Path]:
    """Every selected dataset into ``out``. What would stop it half-way is checked first:
    a gated dataset without a token, then the hub's reachability (offline fails at once)."""
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    sources = select(only)
    locked = [src.family for src in sources if src.gated and not token]
    if locked:
        free = [src.family for src in sources if src.family not in locked]
        rest = f"; or fetch the others: --only {','.join(free)}" if free else ""
        raise DataMissingError(f"{', '.join(locked)} needs a token", hint=f"{GATED_NOTE}{rest}")
    require_hub()
    written: list[Path] = []
    for src in sources:
        written += fetch_source(src, out, token)
    return written


def copy_samples(out: Path) -> list[Path]:
    """The small sample data written by us (tasks/samples), in the same layout."""
    written = []
    for path in sorted(SAMPLES_DIR.rglob("*.jsonl")):
        target = out / path.relative_to(SAMPLES_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        written.append(target)
    return written
