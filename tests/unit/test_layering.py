"""Import layering of the ``harness`` package, read from the source (ast), never imported.

Layers, top to bottom (a module may import its own layer's package and any lower layer):

3. ``cli``: argparse, consoles, exit codes. Nothing imports it but ``__main__``.
2. ``gate``, ``demo``: orchestrate the measurement cores with typed configs; ``report``:
   reads every kind of report (the gate's too) into the ledger and report.html.
1. measurement and other packages: latency, throughput, quality, conformance,
   image, submit, portal, simulate, data, compare, vlm.
0. foundations: client, stats, profiles, errors, runs, risk, attribution, console_hooks,
   tokenizer,
   prompts, paths (and the package root, ``harness/__init__.py``, which holds the version).

Within layer 1, packages are side by side: one may import another only along an
edge listed in ``SIDEWAYS`` (each a deliberate use of a tool, with its reason),
and never another package's ``core`` module (a core is called by gate, demo and
cli only, so no measurement runs another's procedure behind the user's back).
A new top-level module must be placed in a layer here first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import harness

PACKAGE = Path(harness.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "cli": 3,
    "__main__": 3,
    "gate": 2,
    "demo": 2,
    "report": 2,
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
            "runs",
            "risk",
            "attribution",
            "console_hooks",
            "tokenizer",
            "prompts",
            "paths",
            "",
        ),
        0,
    ),
}

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
    src = top(module or module_name(path))
    out: list[str] = []
    for line, target in harness_imports(path):
        dst = top(target)
        where = f"{(module or module_name(path))}:{line} imports {target}"
        if dst == src:
            continue
        if dst not in LAYERS:
            continue  # `from harness import __version__` names an attribute, not a module
        if LAYERS[dst] > LAYERS[src]:
            out.append(f"{where}: layer {LAYERS[src]} ({src}) imports layer {LAYERS[dst]}")
        elif LAYERS[dst] == LAYERS[src] == 1:
            if (src, dst) not in SIDEWAYS:
                out.append(f"{where}: {src} and {dst} are side by side (see SIDEWAYS)")
            elif target.split(".")[2:3] == ["core"]:
                out.append(f"{where}: only gate, demo and cli call a measurement's core")
    return out


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_top_level_module_has_a_layer() -> None:
    unplaced = sorted({top(module_name(p)) for p in sources()} - set(LAYERS))
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
    )
    assert violations(probe, "harness.latency.probe") == [
        "harness.latency.probe:3 imports harness.cli.common: layer 1 (latency) imports layer 3",
        "harness.latency.probe:4 imports harness.throughput.report: "
        "latency and throughput are side by side (see SIDEWAYS)",
        "harness.latency.probe:5 imports harness.simulate.core: "
        "only gate, demo and cli call a measurement's core",
    ]
    assert violations(probe, "harness.gate.probe") == [
        "harness.gate.probe:3 imports harness.cli.common: layer 2 (gate) imports layer 3"
    ]


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
