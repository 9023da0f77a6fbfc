"""The places a statistic is defined in ``harness/`` (bench/house_figures.py). Not a bench."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass

# --- statistics -----------------------------------------------------------------------


@dataclass(frozen=True)
class Statistic:
    name: str
    code: str = ""  # a regex on the definition's own code (ast.unparse), "" for none
    names: str = ""  # a regex on the function's name, "" for none
    median_or_none: bool = False  # the body is one `return median(…) if … else None`


STATISTICS = (
    Statistic(
        "binomial CDF/tail", code=r"\bcomb\(|\blog1p\(-q\)", names=r"binom\w*_(cdf|tail|pmf)"
    ),
    Statistic("Wilson interval", code=r"/ \(4(\.0)? \* n \* n\)"),
    Statistic("normal CDF", code=r"\berfc?\(|NormalDist\("),
    Statistic("95 % normal quantile", code=r"\b1\.959963|(?<![\d.])1\.96(?![\d])"),
    Statistic("median or None", median_or_none=True),
    Statistic("MAD sigma (1.4826 x MAD)", code=r"\b1\.4826\b|\bMAD_TO_SD \*"),
    # the median of every pair's mean (Walsh averages) or ratio, from a double comprehension
    Statistic(
        "Hodges-Lehmann",
        code=r"(?s)(?=.*\bmedian\().*\[\(?\w+(\[\w+\])? [+/] \w+(\[\w+\])?\)?( / 2)? "
        r"for \w+ in [^\n]*\bfor \w+ in ",
        names=r"hodges|lehmann",
    ),
    Statistic("bootstrap", code=r"size=\(resamples", names=r"bootstrap"),
    Statistic("Student t quantile", code=r"\b12\.706", names=r"^t975$|t_quantile|student"),
    Statistic("sequential boundary (miss probability)", names=r"^miss_probability$"),
)
LIMITS = re.compile(r"LENGTH_MATCH|NOISE_LIMIT\w*")  # the audit's named limits


@dataclass(frozen=True)
class Place:
    statistic: str
    where: str  # path:line name


def _own_code(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's code (its defaults and body) without its docstring and its nested
    functions and classes."""
    body = [
        s
        for i, s in enumerate(fn.body)
        if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not (i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    defaults = [ast.unparse(d) for d in (*fn.args.defaults, *fn.args.kw_defaults) if d]
    return "\n".join([*defaults, *(ast.unparse(s) for s in body)])


def _is_median_or_none(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """One ``return <…median(…)…> if … else None``, or a ``…median`` function that
    returns ``float | None`` (a median written out by hand)."""
    returns = ast.unparse(fn.returns) if fn.returns else ""
    if fn.name.endswith("median") and returns in ("float | None", "Optional[float]"):
        return True
    body = [
        s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return False
    value = body[0].value
    if not isinstance(value, ast.IfExp):
        return False
    none = isinstance(value.orelse, ast.Constant) and value.orelse.value is None
    return none and re.search(r"\bmedian\(", ast.unparse(value.body)) is not None


def statistic_places(files: Mapping[str, str]) -> list[Place]:
    """Every definition of a statistic of ``STATISTICS`` (and every numeric definition of
    the audit's named limits) in ``files``, in file order."""
    out: list[Place] = []
    for path, text in sorted(files.items()):
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                code = _own_code(node)
                where = f"{path}:{node.lineno} {node.name}"
                for s in STATISTICS:
                    hit = (
                        (s.code and re.search(s.code, code))
                        or (s.names and re.search(s.names, node.name))
                        or (s.median_or_none and _is_median_or_none(node))
                    )
                    if hit:
                        out.append(Place(s.name, where))
        for stmt in tree.body:  # module constants
            if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if not names:
                continue
            where = f"{path}:{stmt.lineno} {names[0]}"
            value = ast.unparse(stmt.value)
            for s in STATISTICS:
                if s.code and re.search(s.code, value):
                    out.append(Place(s.name, where))
            numeric = isinstance(stmt.value, ast.Constant) and isinstance(
                stmt.value.value, int | float
            )
            if numeric and LIMITS.fullmatch(names[0]):
                out.append(Place(f"audit limit {names[0]}", f"{where} = {value}"))
    return out
