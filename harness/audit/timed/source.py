"""The prompts of a workload's rounds: the latency grader's filler and its controls
(harness/audit/timed/controls.py), or the sweep's random-token prompt and its controls
(harness/audit/timed/sweep.py); the repeated prompt is built once per audit."""

from __future__ import annotations

from collections.abc import Callable

from harness.audit.config import AuditConfig
from harness.audit.timed.controls import Prompt, round_prompts
from harness.audit.timed.sweep import sweep_prompt, sweep_round_prompts
from harness.audit.workload import Workload
from harness.prompts import regular_ids
from harness.tokenizer import Tokenizer

# round index → that round's three prompts, in the order they are sent
RoundSource = Callable[[int], list[Prompt]]


def round_source(cfg: AuditConfig, w: Workload, tok: Tokenizer) -> RoundSource:
    if not w.random_tokens:
        repeats = w.filler_repeats
        return lambda i: round_prompts(tok, cfg.sentence, repeats, seed=cfg.seed, index=i)
    base = sweep_prompt(tok, w.prompt_tokens, seed=cfg.seed, rounds=cfg.prompt_rounds)
    pool = regular_ids(tok)
    return lambda i: sweep_round_prompts(tok, base, pool, seed=cfg.seed, index=i)
