"""The manifest of a ``vlm`` run: what ran in the participant's Python (docs/manifest.md).

``vlm run`` has no server to ask: what ran is the runner's own account (its ``start``
record: the official ``system_info``, the model's dtype, device and attention
implementation, the processor's pixel budget, the wrapper's digest), the model files'
identity (``weights_id`` of their safetensors headers), the run's knobs and the
runner's command line. Settings say what ran, not how fast: timestamps and
free-memory-like figures of ``system_info`` are left out, and every path is reduced to
its last name, so two runs of one configuration share a ``config_id`` wherever their
folders are. ``vlm import`` records the same from the imported records (no command
line: the runner was started elsewhere). Taken ``after`` the runner has stopped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from harness.manifest.canonical import config_id, flatten, normalise
from harness.manifest.launch import launched_process
from harness.manifest.model import Launched, Manifest, Scalar
from harness.manifest.sources import from_launch
from harness.manifest.weights import folder_headers, weights_id
from harness.vlm.config import OVERRIDABLE, VlmRunConfig
from harness.vlm.run import RECORDS, Record, command

BY_RUN = "harness vlm run"
BY_IMPORT = "harness vlm import"

# the official system_info keys that say what ran; left out: the timestamp, free and total
# memory, the CPU's current frequency, the kernel build (they move between two runs of one
# configuration or say nothing of it)
SYSTEM_KEYS = (
    "python_version",
    "torch_version",
    "cuda_available",
    "cuda_version",
    "cudnn_version",
    "gpu_count",
    "gpu_name",
    "gpu_compute_capability",
    "gpu_driver_version",
    "cpu_model",
    "cpu_count_logical",
    "platform_system",
    "platform_machine",
)
# the run's knobs (the runner's arguments that shape its answers or its timing)
KNOBS = (
    "max_samples",
    "num_samples",
    "seed",
    "warmup_samples",
    "warmup_tokens",
    "ttft_tokens",
    "throughput_tokens",
    "answer_tokens",
    "pause_s",
    "min_time_s",
)
# the runner's arguments that name a file or folder: written by their last name only
PATH_FLAGS = ("--wrapper-dir", "--model-path", "--dataset-path", "--records")


def path_name(path: str | Path) -> str:
    """A path's last name (``/data/models/Qwen3-VL-2B`` → ``Qwen3-VL-2B``), never a machine
    path; ``.`` and other relative names resolve first when they are local."""
    name = PurePath(str(path)).name
    if not name and isinstance(path, Path):
        name = path.resolve().name
    return name


def run_knobs(cfg: VlmRunConfig) -> dict[str, object]:
    """The knobs of ``vlm run``'s config, named as the runner's arguments."""
    return {
        "max_samples": cfg.spec.max_samples,
        "num_samples": cfg.num_samples,
        "seed": cfg.seed,
        "ttft_tokens": cfg.spec.ttft_tokens,
        "pause_s": cfg.spec.pause_s,
        "min_time_s": cfg.spec.min_time_s,
        **{name: cfg.value(name) for name in OVERRIDABLE},
    }


def runner_argv(argv: Sequence[str]) -> list[str]:
    """The runner's command line with every path by its last name (the interpreter and the
    runner script included): what ran, not where."""
    out: list[str] = []
    after_path_flag = False
    for i, arg in enumerate(argv):
        if after_path_flag or i < 2:  # the interpreter and the runner script
            out.append(PurePath(arg).name)
        else:
            out.append(arg)
        after_path_flag = arg in PATH_FLAGS
    return out


def start_record(lines: Sequence[Record]) -> Record | None:
    return next((x for x in lines if x.get("type") == "start"), None)


def _put(out: dict[str, Scalar], key: str, value: object) -> None:
    v = normalise(value)
    if v is not None:
        out[key] = v


def settings_of(
    start: Mapping[str, Any] | None,
    knobs: Mapping[str, object],
    *,
    model_name: str,
    weights: str | None,
) -> dict[str, Scalar]:
    """Pure: the settings of one run (launch settings are added by :func:`build`)."""
    out: dict[str, Scalar] = {}
    _put(out, "model.path", model_name)
    _put(out, "model.weights_id", weights)
    for name in KNOBS:
        _put(out, f"run.{name}", knobs.get(name))
    if start is None:
        return out
    _put(out, "model.dtype", start.get("model_dtype"))
    _put(out, "model.device", start.get("device"))
    _put(out, "model.attn_implementation", start.get("attn_implementation"))
    _put(out, "wrapper.evaluation_wrapper_sha256", start.get("wrapper_sha256"))
    _put(out, "processor.class", start.get("processor_class"))
    pixels = start.get("processor_pixels")
    if isinstance(pixels, Mapping):
        for key in ("min_pixels", "max_pixels"):
            _put(out, f"processor.{key}", pixels.get(key))
        size = pixels.get("size")
        if isinstance(size, Mapping) and size:
            flatten("processor.size", dict(size), out)
    info = start.get("system_info")
    if isinstance(info, Mapping):
        for key in SYSTEM_KEYS:
            _put(out, f"system.{key}", info.get(key))
    _put(out, "system.transformers_version", start.get("transformers_version"))
    return {k: v for k, v in out.items() if v is not None}


def build(
    start: Mapping[str, Any] | None,
    knobs: Mapping[str, object],
    *,
    model_name: str,
    headers: Mapping[str, str],
    launched: Launched,
    system_source: str,
) -> Manifest:
    """Pure: the manifest of one run from the runner's start record and the model files."""
    settings = settings_of(start, knobs, model_name=model_name, weights=weights_id(headers))
    settings.update(from_launch(launched))
    sources = {
        "system_info": system_source if start is not None else "no start record",
        "model": f"{len(headers)} safetensors",
        "launch": launched.by,
    }
    return Manifest(
        config_id=config_id(settings), settings=settings, sources=sources, taken="after"
    )


def _headers(model_dir: Path | None) -> dict[str, str]:
    return folder_headers(model_dir) if model_dir is not None and model_dir.is_dir() else {}


def record_run_manifest(cfg: VlmRunConfig, lines: Sequence[Record], folder: Path) -> Manifest:
    """``vlm run``: the manifest from the runner's records, saved as ``folder/manifest.json``."""
    argv = runner_argv(command(cfg, folder / RECORDS))
    manifest = build(
        start_record(lines),
        run_knobs(cfg),
        model_name=path_name(cfg.model_path),
        headers=_headers(cfg.model_path),
        launched=launched_process(BY_RUN, argv, {}),
        system_source="result.json",
    )
    manifest.save(folder)
    return manifest


def record_import_manifest(start: Record, model_dir: Path | None, folder: Path) -> Manifest:
    """``vlm import``: the same from the imported records; the runner's arguments give the
    knobs and the model's name, ``model_dir`` (``--model-path``, when given) the weights."""
    ran = start.get("runner_args")
    args: Mapping[str, object] = ran if isinstance(ran, Mapping) else {}
    model_path = args.get("model_path")
    name = path_name(model_path) if isinstance(model_path, str) else ""
    manifest = build(
        start,
        args,
        model_name=name or (path_name(model_dir) if model_dir is not None else ""),
        headers=_headers(model_dir),
        launched=Launched(by=BY_IMPORT),
        system_source="result.json (imported records)",
    )
    manifest.save(folder)
    return manifest
