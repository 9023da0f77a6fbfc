"""Not a timing: the chat-templated counts of the Paris grader's random prompts, with each
content wrapped as it is (untrimmed, harness's count before issue 35) and trimmed as
Qwen3.5's chat template trims it (the grader's count, harness's now).

Prints, for ``--count`` prompts of ``--tokens`` tokens from ``grader_prompts`` (seeded
``--seed``): how many begin or end with whitespace, the distribution of the counts each
way and their totals. Deterministic: one run is the figure (docs/throughput.md,
"Verified tokens").

Usage: .venv/bin/python bench/paris_prompt_counts.py [--count 62] [--tokens 1024]
       [--seed 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from harness.chat_template import GENERATION, THINK_OFF
from harness.cli.common import positive_int
from harness.graders.paris import grader_prompts
from harness.throughput.chat_count import chat_prompt_tokens
from harness.tokenizer import load_tokenizer

TOKENIZER = "qwen:Qwen/Qwen3.5-35B-A3B"


def untrimmed(content: str) -> str:
    """The form harness rendered before: the content wrapped as it is."""
    return f"<|im_start|>user\n{content}<|im_end|>\n{GENERATION}{THINK_OFF}"


def measure(args: argparse.Namespace) -> dict[str, Any]:
    tok = load_tokenizer(TOKENIZER)
    prompts = grader_prompts(tok, args.count, args.tokens, np.random.default_rng(args.seed))
    before = [tok.count(untrimmed(p)) for p in prompts]
    after = [chat_prompt_tokens(tok, [{"role": "user", "content": p}]) for p in prompts]
    return {
        "settings": vars(args) | {"tokenizer": TOKENIZER},
        "whitespace_at_an_end": sum(p != p.strip() for p in prompts),
        "untrimmed": dict(sorted(Counter(before).items())),
        "trimmed": dict(sorted(Counter(after).items())),
        "untrimmed_total": sum(before),
        "trimmed_total": sum(after),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=positive_int, default=62)
    parser.add_argument("--tokens", type=positive_int, default=1024)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = measure(args)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{args.count} grader prompts of {args.tokens} tokens, seed {args.seed}: "
        f"{out['whitespace_at_an_end']} begin or end with whitespace",
        file=sys.stderr,
    )
    for form in ("untrimmed", "trimmed"):
        dist = ", ".join(f"{n}: {k}" for n, k in out[form].items())
        print(f"  {form:<9} {{{dist}}}  total {out[form + '_total']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
