"""The files of ``harness/`` that name the audit's rules (bench/house_figures.py). Not a bench."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping

RULES = (
    "cached_answers",
    "benchmark_detection",
    "physically_possible",
    "one_stack",
    "stream_consistency",
    "complete_outputs",
)


# --- audit rules ----------------------------------------------------------------------


def rule_mentions(files: Mapping[str, str], rules: Iterable[str] = RULES) -> dict[str, set[str]]:
    """path → the rules its string literals name as a word (docstrings left out)."""
    patterns = {r: re.compile(rf"\b{r}\b") for r in rules}
    out: dict[str, set[str]] = {}
    for path, text in sorted(files.items()):
        tree = ast.parse(text)
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        named = {
            r
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
            for r, pat in patterns.items()
            if pat.search(n.value)
        }
        if named:
            out[path] = named
    return out
