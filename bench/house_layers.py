"""The layers of ``harness/`` as the layering test reads them, over text (bench/house_figures.py;
a small copy of tests/unit/test_layering.py's reading, held equal to it by
tests/unit/test_house_figures.py). Not a bench."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Set

# "harness.latency.core:exit_code", a kind record's lazy reference (harness/kinds/lazy.py)
LAZY_REF = re.compile(r"(?P<module>harness(?:\.[A-Za-z_]\w*)+):(?P<name>[A-Za-z_]\w*)")


# --- layers ---------------------------------------------------------------------------


def layering_tables(test_text: str) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """The ``LAYERS`` and ``SIDEWAYS`` of a layering test's source: their assignments are
    evaluated alone (they are literals and ``dict.fromkeys``), nothing else is run."""
    found: dict[str, object] = {}
    for node in ast.parse(test_text).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id in ("LAYERS", "SIDEWAYS") and value:
            expr = ast.Expression(value)
            code = compile(expr, "<layering>", "eval")
            found[target.id] = eval(code, {"__builtins__": {"dict": dict}})
    layers = found.get("LAYERS")
    sideways = found.get("SIDEWAYS", {})
    if not isinstance(layers, dict) or not isinstance(sideways, dict):
        raise ValueError("the layering test has no LAYERS dict")
    return dict(layers), set(sideways)


def unit(module: str) -> str:
    """``harness.latency.kind`` → ``latency``; ``harness`` → ``""`` (the test's rule)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def harness_imports(text: str) -> list[tuple[int, str]]:
    """(line, module) of every absolute ``harness`` import, lazy references included: the
    reading of tests/unit/test_layering.py ``harness_imports``, on text."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if LAZY_REF.fullmatch(node.value):
                out.append((node.lineno, node.value.partition(":")[0]))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.core") for a in node.names if a.name == "core"]
    return [(line, m) for line, m in out if m == "harness" or m.startswith("harness.")]


def unit_graph(files: Mapping[str, str], layers: Set[str]) -> dict[str, dict[str, str]]:
    """unit → {imported unit: the first import that ties them (``module:line → target``)},
    as the test's ``folder_graph``."""
    graph: dict[str, dict[str, str]] = {}
    for path, text in sorted(files.items()):
        importer = module_name(path)
        src = unit(importer)
        edges = graph.setdefault(src, {})
        for line, target in harness_imports(text):
            dst = unit(target)
            if dst != src and dst in layers:
                edges.setdefault(dst, f"{importer}:{line} → {target}")
    return graph


def longest_chain(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """The longest path of units (the first such in name order); an edge that would close
    a circle is not followed."""
    best: dict[str, list[str]] = {}

    def walk(u: str, seen: frozenset[str]) -> list[str]:
        if u in best:
            return best[u]
        tails = [walk(v, seen | {u}) for v in sorted(graph.get(u, ())) if v not in seen | {u}]
        chain = [u, *max(tails, key=len, default=[])]
        best[u] = chain
        return chain

    return max((walk(u, frozenset()) for u in sorted(graph)), key=len, default=[])
