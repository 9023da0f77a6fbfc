"""The shape of ``harness/`` in figures (issue 44, item 6), for the tree or any git ref.

    python bench/house_figures.py [--ref REV] [--most N] [--json]

``--ref REV`` reads ``harness/`` and ``tests/unit/test_layering.py`` as they are at REV
(``git archive`` into a temporary folder; the checkout is not touched); without it, the
working tree. It prints:

1. **Modules and lines** of ``harness/`` (``*.py``; lines as ``splitlines`` counts them).
2. **Layers**: the units (a top-level folder or module) of each layer of the ref's own
   ``LAYERS``, and the graph of units its imports make, read as the layering test reads
   them (ast: lazy, type-only and ``"harness.pkg.module:name"`` references included);
   the **longest import chain** in units (how many levels the imports really stack, with
   and without the sideways edges); the **sideways edges**: the ref's own ``SIDEWAYS``
   (parsed from its test file) and the edges really present between two units of one
   layer above 0. The reading is a small copy of the test's (the test's functions read
   the imported package's files; a ref's files are text in a temporary folder), and
   tests/unit/test_house_figures.py holds the copy's layers, sideways edges and unit
   graph equal to the test's own on the tree.
3. The **largest modules** (lines).
4. **Repeated blocks**: pairs of files (or two places in one file) that share a run of
   six or more identical normalised lines. A line is normalised by folding its white
   space; blank lines, comments, lone punctuation (``)``, ``*,``, a docstring's closing
   quotes) and lines that start an import (``import …``, ``from … import``; the names on
   a wrapped import's further lines do count) are passed over; a run of six lines that
   stands in more than eight places is too common to list and left out. A pair counts
   once, with its longest run (``+N more runs``: the other runs it shares). This is the
   "exact" half of the ``duplicates`` tool's rows, the one the issue's "22 → 9" counted
   (its other rows are lines alike but for names and values, not counted here): at
   93ee2b4 both find the same 22 pairs of files, at c4c9e34 the same 10.
5. **Places a statistic is defined**: every ``def`` (and module constant) in ``harness/``
   whose own code (its defaults and body: docstring and nested functions left out)
   carries a statistic's formula fingerprint, or its known name (``STATISTICS``): the
   binomial CDF/tail (``comb(``, ``log1p(-q)``), Wilson's interval (``z²/(4n²)``), the
   normal CDF (``erf``), the 95 % normal quantile (``1.96``, ``1.959963…``),
   median-or-None (one ``return …median(…) if … else None``, or a ``…median`` returning
   ``float | None``), the MAD σ (``1.4826``), Hodges–Lehmann (the median of a double
   comprehension of pair means or ratios), bootstraps, Student's t quantile, sequential
   boundaries (``miss_probability``), and the audit's named limits (``LENGTH_MATCH``,
   ``NOISE_LIMIT…`` given a number; an alias is not a definition). A function that only
   calls a formula is not a place, unless a name rule matches it (bootstraps,
   Hodges–Lehmann, t, boundaries: ``bootstrap_median_ci`` counts beside ``bootstrap_ci``);
   one function may be two statistics (``t975`` holds the normal 1.96 above 120 degrees
   of freedom).
6. **Files a new audit rule touches**: the files under ``harness/`` whose string literals
   (docstrings left out) name every one of the six audit rules (the lists a seventh rule
   joins), the files naming any, and per rule the files naming it.

Figures (11-29): 93ee2b4 is the issue's "before"; 98f5130^ the tree just before the
statistics moved to ``harness/stats/`` (about when the issue was written); c4c9e34 this
session's start (items 1–3 and 5 of the issue not landed yet). Rerun with ``--ref`` to
check; ``--json`` gives every figure.

======================================  ================  ==================  ================
figure                                  93ee2b4           98f5130^            c4c9e34
======================================  ================  ==================  ================
modules / lines in harness/             351 / 40,643      409 / 47,909        437 / 50,818
units / unit import edges               44 / 276          49 / 315            49 / 322
longest chain in units (no sideways)    15 (14)           17 (14)             17 (14)
the same above the foundations          10 (9)            12 (9)              12 (9)
SIDEWAYS declared / present             4 / 4             6 / 6               6 / 6
largest module (lines)                  tune/search 432   tune/study/search   audit/analysis
                                                          440                 435
repeated blocks: pairs (runs)           22 (25)           10 (11)             10 (11)
statistic places / modules / units      24 / 8 / 6        39 / 14 / 8         26 / 9 / 3
  median-or-None, binomial, MAD σ       4, 2, 2           6, 5, 4             1, 4, 2
  LENGTH_MATCH, NOISE_LIMIT             0, 0              3, 2                1, 2 (named)
files naming all six rules / any        0 / 2             1 / 13              2 / 14
======================================  ================  ==================  ================

The sideways edges vlm → audit → throughput → quality stack four units of layer 3 on one
another: the longest chain above the foundations is 12 units with them, 9 (one a layer)
without; at 93ee2b4 only throughput → quality did (10).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYERING_TEST = "tests/unit/test_layering.py"
RULES = (
    "cached_answers",
    "benchmark_detection",
    "physically_possible",
    "one_stack",
    "stream_consistency",
    "complete_outputs",
)
# "harness.latency.core:exit_code", a kind record's lazy reference (harness/kinds/lazy.py)
LAZY_REF = re.compile(r"(?P<module>harness(?:\.[A-Za-z_]\w*)+):(?P<name>[A-Za-z_]\w*)")

# --- reading a tree -------------------------------------------------------------------


def read_tree(ref: str | None, repo: Path = REPO) -> dict[str, str]:
    """``{path: text}`` of every ``harness/**.py`` and the layering test, at ``ref`` or in
    the working tree (paths relative to the repository root, with ``/``)."""
    if ref is None:
        return _read_folder(repo)
    for path, why in (("harness", "no harness/"), (LAYERING_TEST, "no layering test")):
        probe = ["git", "-C", str(repo), "cat-file", "-e", f"{ref}:{path}"]
        if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
            sys.exit(f"{ref}: {why} ({path}) at that revision, or no such revision")
    with tempfile.TemporaryDirectory(prefix="house_figures.") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", "--format=tar", ref, "harness", LAYERING_TEST],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            sys.exit(f"git archive {ref} failed: {archive.stderr.decode().strip()}")
        tar_path = Path(tmp) / "tree.tar"
        tar_path.write_bytes(archive.stdout)
        with tarfile.open(tar_path) as tar:
            tar.extractall(tmp, filter="data")
        return _read_folder(Path(tmp))


def _read_folder(root: Path) -> dict[str, str]:
    paths = sorted((root / "harness").rglob("*.py"))
    test = root / LAYERING_TEST
    if test.is_file():
        paths.append(test)
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def package_files(tree: Mapping[str, str]) -> dict[str, str]:
    return {p: t for p, t in tree.items() if p.startswith("harness/")}


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


# --- repeated blocks ------------------------------------------------------------------

_PUNCT = re.compile(r"[\s()\[\]{},:;.*\"']*")
_IMPORT = re.compile(r"(import|from)\s+[\w.]+(\s|$)")


def normalised_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line with its white space folded), blank lines, comments, lone
    punctuation and imports (with their continuation lines) passed over."""
    out: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = " ".join(raw.split())
        if not line or line.startswith("#") or _PUNCT.fullmatch(line) or _IMPORT.match(line):
            continue
        out.append((number, line))
    return out


@dataclass(frozen=True)
class Run:
    a: str  # path:first-last
    b: str
    lines: int  # normalised lines shared


@dataclass
class Repeats:
    pairs: list[tuple[Run, int]] = field(default_factory=list)  # longest run, other runs
    too_common: int = 0  # runs of min_lines standing in more than `most_places` places

    @property
    def runs(self) -> int:
        return sum(1 + more for _, more in self.pairs)


def repeated_blocks(files: Mapping[str, str], min_lines: int = 6, most_places: int = 8) -> Repeats:
    """The pairs of places in ``files`` that share ``min_lines`` or more consecutive
    identical normalised lines (``normalised_lines``), longest first."""
    norm = {p: normalised_lines(t) for p, t in sorted(files.items())}
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for path, lines in norm.items():
        texts = [t for _, t in lines]
        for i in range(len(texts) - min_lines + 1):
            places[tuple(texts[i : i + min_lines])].append((path, i))
    found = Repeats()
    # (file a, file b, offset b - a) → start indexes in a of shared windows
    starts: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    for where in places.values():
        if len(where) > most_places:
            found.too_common += 1
            continue
        for (pa, ia), (pb, ib) in combinations(where, 2):
            if pa == pb and ib - ia < min_lines:
                continue  # one place overlapping itself
            starts[(pa, pb, ib - ia)].add(ia)
    runs: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for (pa, pb, offset), idxs in starts.items():
        for first, last in _spans(sorted(idxs)):
            n = last - first + min_lines
            la, lb = norm[pa], norm[pb]
            runs[(pa, pb)].append(
                Run(
                    f"{pa}:{la[first][0]}-{la[first + n - 1][0]}",
                    f"{pb}:{lb[first + offset][0]}-{lb[first + offset + n - 1][0]}",
                    n,
                )
            )
    for rs in runs.values():
        rs.sort(key=lambda r: (-r.lines, r.a, r.b))
        found.pairs.append((rs[0], len(rs) - 1))
    found.pairs.sort(key=lambda pr: (-pr[0].lines, pr[0].a, pr[0].b))
    return found


def _spans(idxs: list[int]) -> Iterator[tuple[int, int]]:
    """Runs of consecutive integers as (first, last)."""
    first = prev = idxs[0]
    for i in idxs[1:]:
        if i != prev + 1:
            yield first, prev
            first = i
        prev = i
    yield first, prev


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


# --- the figures ----------------------------------------------------------------------


@dataclass
class Figures:
    modules: int
    lines: int
    largest: list[tuple[str, int]]  # (path under harness/, lines)
    layers: dict[int, list[str]]  # layer → its units that hold modules
    unit_edges: int
    chain: list[str]  # the longest import chain of units
    chain_upright: list[str]  # the same without the sideways edges
    chain_above: list[str]  # units of layers above 0 only
    chain_above_upright: list[str]
    sideways_declared: list[str]  # the ref's SIDEWAYS
    sideways_present: list[str]  # same-layer edges above 0, with the import that ties them
    sideways_undeclared: list[str]
    repeated_pairs: int
    repeated_runs: int
    repeated_too_common: int
    repeated_top: list[str]
    statistics: dict[str, list[str]]  # statistic → where it is defined
    statistic_places: int
    statistic_modules: int
    statistic_units: int  # top-level folders (or modules) of harness/ holding them
    rule_files_all: list[str]  # files naming all six rules
    rule_files: dict[str, int]  # rule → files naming it
    rule_files_named: dict[str, int]  # file → rules it names

    @property
    def units(self) -> int:
        return sum(len(v) for v in self.layers.values())


def _short(path: str) -> str:
    return path.removeprefix("harness/")


def figures(tree: Mapping[str, str], most: int = 10) -> Figures:
    files = package_files(tree)
    sizes = sorted(
        ((len(t.splitlines()), p) for p, t in files.items()), key=lambda x: (-x[0], x[1])
    )
    layers, sideways = layering_tables(tree[LAYERING_TEST])
    graph = unit_graph(files, set(layers))
    present = sorted(
        (a, b) for a, edges in graph.items() for b in edges if layers.get(a) == layers[b] > 0
    )

    def upright(g: Mapping[str, Set[str]]) -> dict[str, set[str]]:
        return {a: {b for b in e if (a, b) not in present} for a, e in g.items()}

    above = {a: {b for b in e if layers[b] > 0} for a, e in graph.items() if layers.get(a, 0) > 0}
    by_layer: dict[int, list[str]] = defaultdict(list)
    for u in sorted(graph):
        by_layer[layers.get(u, -1)].append(u or "(root)")
    repeats = repeated_blocks(files)
    places = statistic_places(files)
    mentions = rule_mentions(files)
    return Figures(
        modules=len(files),
        lines=sum(n for n, _ in sizes),
        largest=[(_short(p), n) for n, p in sizes[:most]],
        layers=dict(sorted(by_layer.items(), reverse=True)),
        unit_edges=sum(len(e) for e in graph.values()),
        chain=longest_chain(graph),
        chain_upright=longest_chain(upright({a: set(e) for a, e in graph.items()})),
        chain_above=longest_chain(above),
        chain_above_upright=longest_chain(upright(above)),
        sideways_declared=sorted(f"{a} → {b}" for a, b in sideways),
        sideways_present=[f"{a} → {b}  ({graph[a][b]})" for a, b in present],
        sideways_undeclared=[f"{a} → {b}" for a, b in present if (a, b) not in sideways],
        repeated_pairs=len(repeats.pairs),
        repeated_runs=repeats.runs,
        repeated_too_common=repeats.too_common,
        repeated_top=[
            f"{_short(r.a)} ~ {_short(r.b)} ({r.lines} lines"
            + (f", +{more} more runs)" if more else ")")
            for r, more in repeats.pairs[:most]
        ],
        statistics={
            name: [_short(p.where) for p in places if p.statistic == name]
            for name in dict.fromkeys(p.statistic for p in places)
        },
        statistic_places=len(places),
        statistic_modules=len({p.where.split(":")[0] for p in places}),
        statistic_units=len({unit(module_name(p.where.split(":")[0])) for p in places}),
        rule_files_all=sorted(_short(p) for p, r in mentions.items() if len(r) == len(RULES)),
        rule_files={r: sum(r in named for named in mentions.values()) for r in RULES},
        rule_files_named={
            _short(p): len(r) for p, r in sorted(mentions.items(), key=lambda x: (-len(x[1]), x[0]))
        },
    )


def _chain(units: list[str]) -> str:
    return f"{len(units)} units: {' → '.join(u or '(root)' for u in units)}"


def render(f: Figures, label: str) -> str:
    def listed(rows: list[str]) -> list[str]:
        return [f"  {r}" for r in rows] or ["  (none)"]

    return "\n".join(
        [
            f"harness/ at {label}: {f.modules} modules, {f.lines:,} lines",
            f"layers ({f.units} units, {f.unit_edges} unit import edges):",
            *(f"  {k:>2}: {', '.join(v)}" for k, v in f.layers.items()),
            f"longest import chain: {_chain(f.chain)}",
            f"  without the sideways edges: {_chain(f.chain_upright)}",
            f"  above the foundations: {_chain(f.chain_above)}",
            f"  above the foundations, without the sideways edges: {_chain(f.chain_above_upright)}",
            f"sideways edges declared in SIDEWAYS: {len(f.sideways_declared)}",
            *listed(f.sideways_declared),
            f"sideways edges present (same layer above 0): {len(f.sideways_present)}",
            *listed(f.sideways_present),
            f"  undeclared: {', '.join(f.sideways_undeclared) or 'none'}",
            f"largest modules ({len(f.largest)}):",
            *(f"  {n:>5}  {p}" for p, n in f.largest),
            f"repeated blocks (6+ identical normalised lines): {f.repeated_pairs} pairs, "
            f"{f.repeated_runs} runs ({f.repeated_too_common} runs too common to list)",
            *listed(f.repeated_top),
            f"places a statistic is defined: {f.statistic_places} in {f.statistic_modules} modules "
            f"of {f.statistic_units} units",
            *(f"  {name} ({len(ws)}): {', '.join(ws)}" for name, ws in f.statistics.items()),
            "files naming all six audit rules in a string (the lists a seventh rule joins): "
            f"{len(f.rule_files_all)}",
            *listed(f.rule_files_all),
            f"files naming any audit rule: {len(f.rule_files_named)}; per rule: "
            + ", ".join(f"{r} {n}" for r, n in f.rule_files.items()),
            *(f"  {n} rules: {p}" for p, n in f.rule_files_named.items()),
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--ref", help="a git revision (read with git archive); default the tree")
    ap.add_argument("--most", type=int, default=10, help="rows of the largest and repeated")
    ap.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = ap.parse_args()
    fig = figures(read_tree(args.ref), args.most)
    label = args.ref or "the working tree"
    if args.json:
        out = {"ref": label, "units": fig.units, **asdict(fig)}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(render(fig, label))


if __name__ == "__main__":
    main()
