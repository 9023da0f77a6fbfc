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
import json
from collections import defaultdict
from collections.abc import Mapping, Set
from dataclasses import asdict, dataclass

from house_layers import layering_tables, longest_chain, module_name, unit, unit_graph
from house_repeats import repeated_blocks
from house_rules import RULES, rule_mentions
from house_statistics import statistic_places
from house_tree import LAYERING_TEST, package_files, read_tree

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
