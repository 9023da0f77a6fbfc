"""Import layering of the ``harness`` package, read from the source (ast), never imported.

Layers, top to bottom (a module may import its own unit and any lower layer):

7. ``__main__``: ``python -m harness``.
6. ``cli``: argparse, consoles, exit codes. Nothing imports it but ``__main__``.
5. ``demo``: the reference server judged end to end (gate, then report).
4. ``report``: reads every kind's report and the gate's verdict into the ledger and
   report.html. It reads ``gate.json``; the gate never imports it (the caller records
   the gated run in the ledger).
3. ``gate``: runs and judges the kinds; ``compare_engine`` (``compare/load.py``,
   ``compare/core.py``): reads and compares two runs' kinds. Both iterate the registry.
2. ``kinds``: the record type and the registry (``harness/kinds/``) and every
   package's record (``harness/<pkg>/kind.py``): each binds its package's config,
   core, gate rules, console hooks and the comparisons of ``compare``.
1. measurement and other packages: latency, throughput, quality, conformance,
   image, submit, portal, simulate, data, compare (its per-kind comparisons), vlm.
0. foundations: client, stats, profiles, errors, provenance, run_folder, report_base, risk,
   verdict, target, argtypes, flags, overrides,
   attribution, console_hooks, hooks (the cores' no-op hooks base), view (view models and
   their console/PNG renderers),
   tokenizer, usage, prompts, paths, manifest (and the package root, ``harness/__init__.py``,
   which holds the version).

A unit is a top-level package or module, except the modules named in ``UNITS``
(and every ``<pkg>.kind``), which sit in the layer of the unit they name. Within
a layer above 0, units are side by side: one may import another only along an
edge listed in ``SIDEWAYS`` (each a deliberate use of a tool, with its reason).
A package's ``core`` is called by its own package (its record included), gate,
demo and cli only, so no measurement runs another's procedure behind the user's
back. A new top-level module must be placed in a layer here first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import harness

PACKAGE = Path(harness.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "__main__": 7,
    "cli": 6,
    "demo": 5,
    "tune": 5,  # drives the gate's steps per trial and records each in the ledger
    "report": 4,
    "gate": 3,
    "compare_engine": 3,
    "kinds": 2,
    **dict.fromkeys(
        (
            "latency",
            "throughput",
            "quality",
            "conformance",
            "image",
            "submit",
            "portal",
            "simulate",
            "data",
            "compare",
            "vlm",
        ),
        1,
    ),
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
            "usage",
            "prompts",
            "paths",
            "manifest",
            "",
        ),
        0,
    ),
}

# Modules that sit in another unit than their package's (besides every <pkg>.kind).
UNITS: dict[str, str] = {
    # compare's engine iterates the registry, whose records use compare's per-kind parts
    "harness.compare.load": "compare_engine",
    "harness.compare.core": "compare_engine",
}

# Units that may call another package's core.
CALLERS_OF_CORES = ("gate", "demo", "cli", "__main__")

# (importer, imported): why the edge is there.
SIDEWAYS: dict[tuple[str, str], str] = {
    ("latency", "simulate"): "the self-test measures the client against the simulator's log",
    ("quality", "data"): "quality reads the benchmark data layout and NLTK punkt",
    ("submit", "image"): "submit inspects the archive with the package rules",
    ("compare", "latency"): "compare reads latency reports and their statistics",
    ("compare", "quality"): "compare reads quality reports and their per-sample records",
    ("compare", "throughput"): "compare reads throughput reports",
    ("compare", "vlm"): "compare reads vlm.json and its per-sample records",
}


def top(module: str) -> str:
    """``harness.latency.core`` → ``latency``; ``harness`` → ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def unit(module: str) -> str:
    """The unit whose layer a module sits in (``harness.latency.kind`` → ``kinds``)."""
    for name, owner in UNITS.items():
        if module == name or module.startswith(name + "."):
            return owner
    parts = module.split(".")
    if len(parts) == 3 and parts[2] == "kind":
        return "kinds"
    return top(module)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def harness_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute ``harness`` import, lazy ones included."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
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
        calls_core = target.split(".")[2:3] == ["core"] and top(target) != top(importer)
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


def test_every_top_level_module_has_a_layer() -> None:
    unplaced = sorted({unit(module_name(p)) for p in sources()} - set(LAYERS))
    assert not unplaced, f"add these to LAYERS in {Path(__file__).name}: {unplaced}"


def test_no_import_goes_up_a_layer_or_sideways() -> None:
    found = [v for p in sources() for v in violations(p)]
    assert not found, "\n".join(found)


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
    )
    assert violations(probe, "harness.latency.probe") == [
        "harness.latency.probe:3 imports harness.cli.common: layer 1 (latency) imports layer 6",
        "harness.latency.probe:4 imports harness.throughput.report: "
        "latency and throughput are side by side (see SIDEWAYS)",
        "harness.latency.probe:5 imports harness.simulate.core: "
        "only gate, demo and cli call a measurement's core",
        "harness.latency.probe:6 imports harness.report.ledger: layer 1 (latency) imports layer 4",
        "harness.latency.probe:7 imports harness.gate.report: layer 1 (latency) imports layer 3",
        "harness.latency.probe:8 imports harness.compare.load: layer 1 (latency) imports layer 3",
    ]
    # the gate never imports the report reader: report reads gate.json, one direction
    assert violations(probe, "harness.gate.probe") == [
        "harness.gate.probe:3 imports harness.cli.common: layer 3 (gate) imports layer 6",
        "harness.gate.probe:6 imports harness.report.ledger: layer 3 (gate) imports layer 4",
        "harness.gate.probe:8 imports harness.compare.load: "
        "gate and compare_engine are side by side (see SIDEWAYS)",
    ]
    # a kind's record binds its own core and compare's per-kind parts, never the engines
    assert violations(probe, "harness.throughput.kind") == [
        "harness.throughput.kind:3 imports harness.cli.common: layer 2 (kinds) imports layer 6",
        "harness.throughput.kind:5 imports harness.simulate.core: "
        "only gate, demo and cli call a measurement's core",
        "harness.throughput.kind:6 imports harness.report.ledger: layer 2 (kinds) imports layer 4",
        "harness.throughput.kind:7 imports harness.gate.report: layer 2 (kinds) imports layer 3",
        "harness.throughput.kind:8 imports harness.compare.load: layer 2 (kinds) imports layer 3",
        "harness.throughput.kind:9 imports harness.latency.core: "
        "only gate, demo and cli call a measurement's core",
    ]


def test_the_report_reader_sits_above_the_gate() -> None:
    assert LAYERS["report"] > LAYERS["gate"] > LAYERS["kinds"] > LAYERS["latency"]
    assert unit("harness.latency.kind") == unit("harness.kinds.registry") == "kinds"
    assert unit("harness.compare.core") == "compare_engine" != unit("harness.compare.latency")


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
    graph = _module_graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append([*path[path.index(n) :], n])
            elif n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "\n".join(" → ".join(c) for c in circles)


# Pure statistics over plain data (docs/architecture.md, "Pure modules"): they read the runners' state
# records, never the runners (sockets, event loops) themselves.
PURE = ("harness.latency.analysis", "harness.throughput.analysis", "harness.stats")
IO = (".runner", "harness.client.http", "harness.client.loop")


def test_pure_analysis_imports_no_io() -> None:
    found = [
        f"{module_name(p)}:{line} imports {target}"
        for p in sources()
        if module_name(p) in PURE
        for line, target in harness_imports(p)
        if target.endswith(IO[0]) or target.startswith(IO[1:])
    ]
    assert not found, "\n".join(found)
