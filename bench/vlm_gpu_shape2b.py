"""Build a random Qwen3-VL with the real 2B shape (for CUDA timing of the procedure only).

Sizes as Qwen3-VL-2B-Instruct's config (28 text layers of width 2048, GQA 16/8
heads of 128, a 24-block vision tower of width 1024 with deepstack at 5/11/17);
weights are random (seeded), so answers are noise: only the timings mean anything.
Reuses the tiny builder's tokenizer, chat template and the real pixel budget.

    python bench/vlm_gpu_shape2b.py OUT_DIR --ranks qwen.tiktoken
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
from transformers import AutoModelForImageTextToText, GenerationConfig, Qwen3VLConfig

from reference_server.build_test_vlm import CHAT_TEMPLATE, IMAGE_PROCESSOR, build_tokenizer


def config() -> Qwen3VLConfig:
    text = {
        "vocab_size": 151936,
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": 262144,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 5_000_000.0,
            "mrope_section": [24, 20, 20],
            "mrope_interleaved": True,
        },
        "eos_token_id": 151645,
        "bos_token_id": 151643,
    }
    vision = {
        "depth": 24,
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "num_heads": 16,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "out_hidden_size": 2048,
        "num_position_embeddings": 2304,
        "deepstack_visual_indexes": [5, 11, 17],
    }
    return Qwen3VLConfig(text_config=text, vision_config=vision, tie_word_embeddings=True)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--ranks", type=Path, required=True)
    a = p.parse_args()
    t = time.perf_counter()
    torch.manual_seed(1234)
    with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
        model = AutoModelForImageTextToText.from_config(config(), dtype=torch.bfloat16)
    model.generation_config = GenerationConfig(eos_token_id=[151645, 151643], pad_token_id=151643)
    model.save_pretrained(a.out)
    build_tokenizer(a.ranks).save_pretrained(a.out)
    (a.out / "chat_template.jinja").write_text(CHAT_TEMPLATE)
    real = dict(IMAGE_PROCESSOR, size={"shortest_edge": 65536, "longest_edge": 16777216})
    (a.out / "preprocessor_config.json").write_text(json.dumps(real, indent=2) + "\n")
    n = sum(x.numel() for x in model.parameters())
    print(f"built {n / 1e9:.2f} B parameters in {time.perf_counter() - t:.1f} s -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
