"""The rule ``complete_outputs`` (MLPerf TEST09 analogue) as a pure function over its
checks (docs/audit.md).

An answer to the grader's request that ends before ``max_tokens`` must have been ended by
the model, not cut by the server: the same prompt continued with that answer, at
temperature 0, gives end-of-sequence next. vLLM counts that EOS (harness/usage.py), so a
finished answer's continuation comes back ``stop`` with 0 or 1 tokens; the join is
re-tokenised (prompt + answer text is not always the token sequence the model saw), so
``SEAM_TOKENS`` more are allowed. A server that stops at a fixed count answers the
continuation with that count again, or runs on to the continuation's limit: it fails, on
the first look and on a second, independent one.

Answers that ran to ``max_tokens`` are no evidence: when no audited answer ended early,
the rule is inconclusive by design (nothing was cut, or nothing can show it).

No I/O: tested with literal values (tests/unit/test_audit_complete.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.audit.continuation import Continuation
from harness.audit.report import RuleResult, RuleVerdict
from harness.usage import EOS_TOKENS

RULE = "complete_outputs"
TITLE = "complete outputs: an answer that ends early was ended by the model"
# tokens a finished answer's continuation may still bring: a different split at the join
# of prompt and answer, or special tokens the detokeniser left out of the answer's text
# (the CPU reference server's continuation of its short answer brings the EOS alone)
SEAM_TOKENS = 2
# the continuation's own max_tokens: enough to see a model that goes on past the seam
CONTINUE_MAX_TOKENS = 16


def finished(c: Continuation) -> bool | None:
    """True: the continuation ended at once (the answer was complete); False: it went on
    (the answer was cut); None: nothing to judge (an error, or no early end)."""
    if not c.ended_early or c.continued_tokens is None:
        return None
    # "stop", or no finish reason at all (a server that reports none is not failed for it)
    ended = c.continued_finish != "length"
    return ended and c.continued_tokens <= EOS_TOKENS + SEAM_TOKENS


def _line(c: Continuation) -> str:
    text = c.continued_text[:40].replace("\n", "\\n")
    return (
        f"{c.bucket}: the answer ended at {c.answer_tokens} of {c.max_tokens} tokens "
        f"({c.answer_finish!r}), but continued with it the prompt brought "
        f"{c.continued_tokens} more ({c.continued_finish!r}: {text!r}…)"
    )


def complete_outputs(checks: Sequence[Continuation]) -> RuleVerdict:
    """The verdict over every bucket's checks: FAIL when a bucket's answer was cut on the
    first look and on the second; PASS when an early-ended answer was finished."""
    evidence: dict[str, object] = {"seam_tokens": SEAM_TOKENS}
    cut: list[str] = []
    passed = broken = 0
    for bucket in dict.fromkeys(c.bucket for c in checks):
        mine = [c for c in checks if c.bucket == bucket]
        looks = [finished(c) for c in mine]
        evidence[bucket] = [
            {
                "answer": f"{c.answer_tokens} of {c.max_tokens} tokens, {c.answer_finish}",
                "continued": f"{c.continued_tokens} tokens, {c.continued_finish}"
                if c.continued_tokens is not None
                else None,
                **({"error": c.error} if c.error else {}),
            }
            for c in mine
        ]
        broken += any(c.error for c in mine)
        if len(looks) >= 2 and all(x is False for x in looks):
            cut.append(_line(mine[-1]))
        elif True in looks:
            passed += 1
    if cut:
        return RuleVerdict(
            rule=RULE,
            title=TITLE,
            result=RuleResult.FAIL,
            why="the server cut the answer, the model had not ended it (twice): " + "; ".join(cut),
            evidence=evidence,
        )
    if passed:
        return RuleVerdict(
            rule=RULE,
            title=TITLE,
            result=RuleResult.PASS,
            why="the answer that ended before max_tokens was finished: continued with it, "
            "the prompt ends at once",
            evidence=evidence,
        )
    if broken:
        return RuleVerdict(
            rule=RULE,
            title=TITLE,
            result=RuleResult.INCONCLUSIVE,
            why="the answer or its continuation failed: nothing to judge",
            evidence=evidence,
        )
    return RuleVerdict(
        rule=RULE,
        title=TITLE,
        result=RuleResult.INCONCLUSIVE,
        why="every audited answer ran to max_tokens: no answer ended early, nothing was cut",
        by_design=True,
        evidence=evidence,
    )
