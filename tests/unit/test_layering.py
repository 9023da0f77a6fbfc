"""Import layering of the ``harness`` package, read from the source (ast), never imported.

The layers are folders: a unit is a top-level package (a folder under ``harness/``) or
module, and every module sits in its unit's layer, with no exception. Top to bottom (a
unit may import its own modules and any lower layer):

9. ``__main__``: ``python -m harness``.
8. ``cli``: argparse, consoles, exit codes. Nothing imports it but ``__main__``.
7. ``demo`` (the reference server judged end to end: gate, then report) and ``tune``
   (drives the gate's steps per trial and records each in the ledger).
6. ``report``: reads every kind's report, the gate's verdict and a saved comparison into
   the ledger and report.html. It reads ``gate.json``; the gate never imports it (the
   caller records the gated run in the ledger).
5. ``gate`` (runs and judges the kinds) and ``compare`` (reads and compares two runs'
   kinds: the engine, its report and views). Both iterate the registry.
4. ``registry``: the one ordered list of measurement kinds (it imports each package's
   record, ``harness/<pkg>/kind.py``).
3. measurement and other packages: latency, throughput, quality, conformance, image,
   vlm, submit, portal, simulate, data. Each holds its config, core, report, gate rules,
   views, its comparison (``compare.py``, returning its section) and its record
   (``kind.py``).
2. ``kinds``: the record type (``harness/kinds/record.py``), which every package's record
   is built from; it imports no package above it.
1. ``paired``: the paired A/B statistics every kind's comparison shares (bootstrap,
   drift, sides, comparability, the generic section records and their cells).
0. foundations: client, stats (the one home of statistics), profiles, audit_catalogue (the
   audit rules' names a profile is checked against), errors, provenance, run_folder,
   report_base, risk, verdict, rule_report (a rule audit's verdicts and ``audit.json``'s
   head, which the audit and vlm's in-process audit both write), target, argtypes, flags,
   overrides, attribution, console_hooks, hooks (the cores' no-op hooks base), view (view
   models and their console/PNG renderers), tokenizer, chat_template, sameness, usage,
   prompts, grader_items, graders (what each grader sends: Paris's sweep request and
   prompts, Efficient Qwen's latency body; the kind that reproduces a grader and the audit
   that sends as it does both import it), paths, manifest, engines, children (and the
   package root, ``harness/__init__.py``, which holds the version).

Within a layer above 0, units are side by side: one may import another only along an
edge listed in ``SIDEWAYS`` (each a deliberate use of a tool, with its reason). In every
layer, foundations included, no units import each other, directly or round a circle:
the graph of units is acyclic. A package's ``core`` is called by its own package (its
record included), gate, demo and cli only, so no measurement runs another's procedure
behind the user's back. A new top-level module or folder must be placed in a layer here
first.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Set
from itertools import pairwise
from pathlib import Path

import harness
from harness.kinds.lazy import REF, module_of

PACKAGE = Path(harness.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "__main__": 9,
    "cli": 8,
    "demo": 7,
    "tune": 7,
    "report": 6,
    "gate": 5,
    "compare": 5,
    "registry": 4,
    **dict.fromkeys(
        (
            "latency",
            "audit",
            "throughput",
            "quality",
            "conformance",
            "image",
            "vlm",
            "submit",
            "portal",
            "simulate",
            "data",
        ),
        3,
    ),
    "kinds": 2,
    "paired": 1,
    **dict.fromkeys(
        (
            "client",
            "stats",
            "profiles",
            "errors",
            "provenance",
            "run_folder",
            "report_base",
            "risk",
            "verdict",
            "target",
            "argtypes",
            "flags",
            "overrides",
            "attribution",
            "console_hooks",
            "hooks",
            "children",
            "view",
            "tokenizer",
            "chat_template",
            "sameness",
            "usage",
            "prompts",
            "grader_items",
            "rule_report",
            "graders",
            "paths",
            "manifest",
            "engines",
            "audit_catalogue",
            "",
        ),
        0,
    ),
}

# Units that may call another package's core.
CALLERS_OF_CORES = ("gate", "demo", "cli", "__main__")

# (importer, imported): why the edge is there.
SIDEWAYS: dict[tuple[str, str], str] = {
    ("latency", "simulate"): "the self-test measures the client against the simulator's log",
    ("quality", "data"): "quality reads the benchmark data layout and NLTK punkt",
    ("submit", "image"): "submit inspects the archive with the package rules",
    ("throughput", "quality"): "the correctness gate zeroes the throughput score when the "
    "quality report fails it (Paris: eval/score.py)",
}


def unit(module: str) -> str:
    """The unit, and so the layer, of a module: its top-level folder or module
    (``harness.latency.kind`` → ``latency``; ``harness`` → ``""``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def harness_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute ``harness`` import, lazy ones included: a kind
    record's ``"harness.<pkg>.<module>:<name>"`` reference (harness/kinds/lazy.py) imports
    its module when first used, so it counts as an import of it."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if REF.fullmatch(node.value):
                out.append((node.lineno, module_of(node.value)))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
            # `from harness.latency import core` imports the core module too
            out += [(node.lineno, f"{node.module}.core") for a in node.names if a.name == "core"]
    return [(line, m) for line, m in out if m == "harness" or m.startswith("harness.")]


def violations(path: Path, module: str | None = None) -> list[str]:
    importer = module or module_name(path)
    src = unit(importer)
    out: list[str] = []
    for line, target in harness_imports(path):
        dst = unit(target)
        where = f"{importer}:{line} imports {target}"
        calls_core = target.split(".")[2:3] == ["core"] and dst != src
        if calls_core and src not in CALLERS_OF_CORES:
            out.append(f"{where}: only gate, demo and cli call a measurement's core")
            continue
        if dst == src or dst not in LAYERS:
            continue  # `from harness import __version__` names an attribute, not a module
        if LAYERS[dst] > LAYERS[src]:
            out.append(f"{where}: layer {LAYERS[src]} ({src}) imports layer {LAYERS[dst]}")
        elif LAYERS[dst] == LAYERS[src] > 0 and (src, dst) not in SIDEWAYS:
            out.append(f"{where}: {src} and {dst} are side by side (see SIDEWAYS)")
    return out


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def circles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk meets (each as its path, first node repeated last)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                found.append([*path[path.index(n) :], n])
            elif n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return found


def folder_graph() -> dict[str, dict[str, str]]:
    """unit → {imported unit: the first import that ties them (``module:line → target``)}."""
    graph: dict[str, dict[str, str]] = {}
    for p in sources():
        importer = module_name(p)
        src = unit(importer)
        edges = graph.setdefault(src, {})
        for line, target in harness_imports(p):
            dst = unit(target)
            if dst != src and dst in LAYERS:
                edges.setdefault(dst, f"{importer}:{line} → {target}")
    return graph


def test_every_top_level_module_and_folder_has_a_layer() -> None:
    unplaced = sorted({unit(module_name(p)) for p in sources()} - set(LAYERS))
    assert not unplaced, f"add these to LAYERS in {Path(__file__).name}: {unplaced}"


def test_no_import_goes_up_a_layer_or_sideways() -> None:
    found = [v for p in sources() for v in violations(p)]
    assert not found, "\n".join(found)


def test_no_two_folders_import_each_other() -> None:
    """At folder level, foundations included: no circle of units, however long, lazy and
    type-only imports counted (each circle is shown with the import that closes each edge)."""
    graph = folder_graph()
    found = circles({u: set(edges) for u, edges in graph.items()})
    lines = [
        " → ".join(c) + "\n    " + "\n    ".join(graph[a][b] for a, b in pairwise(c)) for c in found
    ]
    assert not found, "\n".join(lines)


def test_the_checker_sees_upward_sideways_and_core_imports(tmp_path: Path) -> None:
    # The rules themselves, on modules written here (lazy imports count too).
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from harness.stats import summarize\n"
        "def f():\n"
        "    from harness.cli.common import make_console\n"
        "    import harness.throughput.report\n"
        "    from harness.simulate import core\n"
        "    from harness.report.ledger import record_run\n"
        "    from harness.gate.report import GateReport\n"
        "    from harness.compare.load import load_run\n"
        "    from harness.latency import core\n"
        "    from harness.registry import KINDS\n"
        'HOOKS = "harness.cli.common:make_console"\n'
    )
    assert violations(probe, "harness.latency.probe") == [
        "harness.latency.probe:3 imports harness.cli.common: layer 3 (latency) imports layer 8",
        "harness.latency.probe:4 imports harness.throughput.report: "
        "latency and throughput are side by side (see SIDEWAYS)",
        "harness.latency.probe:5 imports harness.simulate.core: "
        "only gate, demo and cli call a measurement's core",
        "harness.latency.probe:6 imports harness.report.ledger: layer 3 (latency) imports layer 6",
        "harness.latency.probe:7 imports harness.gate.report: layer 3 (latency) imports layer 5",
        "harness.latency.probe:8 imports harness.compare.load: layer 3 (latency) imports layer 5",
        "harness.latency.probe:10 imports harness.registry: layer 3 (latency) imports layer 4",
        # a record's reference is a lazy import of its module
        "harness.latency.probe:11 imports harness.cli.common: layer 3 (latency) imports layer 8",
    ]
    # the gate never imports the report reader: report reads gate.json, one direction
    assert violations(probe, "harness.gate.probe") == [
        "harness.gate.probe:3 imports harness.cli.common: layer 5 (gate) imports layer 8",
        "harness.gate.probe:6 imports harness.report.ledger: layer 5 (gate) imports layer 6",
        "harness.gate.probe:8 imports harness.compare.load: "
        "gate and compare are side by side (see SIDEWAYS)",
        "harness.gate.probe:11 imports harness.cli.common: layer 5 (gate) imports layer 8",
    ]
    # a kind's record is its package's: it binds its own core, never another's, nor the
    # registry or the engines above it
    assert violations(probe, "harness.throughput.kind") == [
        "harness.throughput.kind:3 imports harness.cli.common: "
        "layer 3 (throughput) imports layer 8",
        "harness.throughput.kind:5 imports harness.simulate: "
        "throughput and simulate are side by side (see SIDEWAYS)",
        "harness.throughput.kind:5 imports harness.simulate.core: "
        "only gate, demo and cli call a measurement's core",
        "harness.throughput.kind:6 imports harness.report.ledger: "
        "layer 3 (throughput) imports layer 6",
        "harness.throughput.kind:7 imports harness.gate.report: "
        "layer 3 (throughput) imports layer 5",
        "harness.throughput.kind:8 imports harness.compare.load: "
        "layer 3 (throughput) imports layer 5",
        "harness.throughput.kind:9 imports harness.latency: "
        "throughput and latency are side by side (see SIDEWAYS)",
        "harness.throughput.kind:9 imports harness.latency.core: "
        "only gate, demo and cli call a measurement's core",
        "harness.throughput.kind:10 imports harness.registry: layer 3 (throughput) imports layer 4",
        "harness.throughput.kind:11 imports harness.cli.common: "
        "layer 3 (throughput) imports layer 8",
    ]
    # the record type imports no package above it
    assert violations(probe, "harness.kinds.record")[1:3] == [
        "harness.kinds.record:4 imports harness.throughput.report: layer 2 (kinds) imports layer 3",
        "harness.kinds.record:5 imports harness.simulate: layer 2 (kinds) imports layer 3",
    ]


def test_the_checker_sees_circles_of_folders() -> None:
    # two folders of one layer, and a knot of three foundations
    graph = {"a": {"b"}, "b": {"a"}, "runs": {"flags"}, "flags": {"client"}, "client": {"runs"}}
    assert circles(graph) == [["a", "b", "a"], ["client", "runs", "flags", "client"]]
    assert circles({"gate": {"registry"}, "registry": {"latency"}, "latency": {"kinds"}}) == []


def test_the_folders_stack_as_the_docs_say() -> None:
    order = [
        "cli",
        "demo",
        "report",
        "gate",
        "registry",
        "latency",
        "kinds",
        "paired",
        "report_base",
    ]
    assert [LAYERS[u] for u in order] == sorted((LAYERS[u] for u in order), reverse=True)
    assert LAYERS["compare"] == LAYERS["gate"] and LAYERS["tune"] == LAYERS["demo"]
    assert unit("harness.latency.kind") == unit("harness.latency.compare") == "latency"
    assert unit("harness.kinds.record") == "kinds" != unit("harness.registry")


def _module_graph() -> dict[str, set[str]]:
    """Every module's harness imports, resolved to modules (lazy and type-only included)."""
    mods = {module_name(p): p for p in sources()}

    def resolve(target: str) -> str:
        while target and target not in mods:
            target = target.rpartition(".")[0]
        return target

    return {m: {resolve(t) for _, t in harness_imports(p)} - {"", m} for m, p in mods.items()}


def test_no_import_circle_between_modules() -> None:
    """No two modules import each other, even lazily or only for type checking (a circle
    that ``TYPE_CHECKING`` hides still ties the two modules into one)."""
    found = circles(_module_graph())
    assert not found, "\n".join(" → ".join(c) for c in found)


# Pure statistics over plain data (docs/architecture.md, "Pure modules"): they read the runners' state
# records, never the runners (sockets, event loops) themselves.
PURE = ("harness.latency.analysis", "harness.throughput.analysis", "harness.stats")
IO = (".runner", "harness.client.http", "harness.client.loop")


def test_pure_analysis_imports_no_io() -> None:
    found = [
        f"{module_name(p)}:{line} imports {target}"
        for p in sources()
        if module_name(p) in PURE or module_name(p).startswith("harness.stats.")
        for line, target in harness_imports(p)
        if target.endswith(IO[0]) or target.startswith(IO[1:])
    ]
    assert not found, "\n".join(found)
