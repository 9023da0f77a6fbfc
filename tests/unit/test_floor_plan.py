"""One floor plan for every measurement kind's package (docs/architecture.md, "Adding a
measurement kind"): the same file names for the same roles, read from the source (ast).

A package is a kind's when it has a ``kind.py`` (its record). Each then has:

- ``config.py``: the typed overrides record (an ``Overrides`` subclass) and ``from_profile``;
- ``core.py``: the core (the procedure; it renders nothing);
- ``report.py``: the report class (a ``Report`` subclass, or a ``RuleReport`` one);
- ``hooks.py``: the no-op hooks class and ``NO_HOOKS`` (no console, no core);
- ``console.py``: ``ConsoleHooks`` (the rich console's hooks and rendering);
- ``gate_rules.py``: the gate's rules (``<name>_rules``);
- ``views.py``: ``sections``, the report's tables, texts and charts;
- ``kind.py``: ``KIND``, the record the registry lists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import harness

PACKAGE = Path(harness.__file__).resolve().parent
KIND_PACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/kind.py"))
FLOOR_PLAN = (
    "config.py",
    "core.py",
    "report.py",
    "hooks.py",
    "console.py",
    "gate_rules.py",
    "views.py",
    "kind.py",
)

# a report class's base: the report base, or the rule audit's head that the audit's report
# extends (harness/report_base.py, harness/rule_report.py)
REPORT_BASES = {"Report", "RuleReport"}


def _tree(pkg: str, name: str) -> ast.Module:
    return ast.parse((PACKAGE / pkg / name).read_text(encoding="utf-8"))


def _functions(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _classes(tree: ast.Module) -> dict[str, set[str]]:
    """Top-level class → the names of its bases (``Overrides``, ``Report`` ...)."""
    return {
        n.name: {b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in n.bases}
        for n in tree.body
        if isinstance(n, ast.ClassDef)
    }


def _assigned(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for n in tree.body:
        if isinstance(n, ast.Assign):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
    return out


def _imports(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.add(n.module)
    return out


def test_every_kind_package_is_found() -> None:
    assert {"latency", "throughput", "quality", "conformance", "image", "vlm"} <= set(KIND_PACKAGES)


@pytest.mark.parametrize("pkg", KIND_PACKAGES)
def test_the_package_has_the_floor_plans_files(pkg: str) -> None:
    missing = [f for f in FLOOR_PLAN if not (PACKAGE / pkg / f).is_file()]
    assert not missing, f"harness/{pkg}/ lacks {missing} (docs/architecture.md)"


@pytest.mark.parametrize("pkg", KIND_PACKAGES)
def test_each_file_holds_its_role(pkg: str) -> None:
    config = _tree(pkg, "config.py")
    assert "from_profile" in _functions(config)
    assert any("Overrides" in bases for bases in _classes(config).values())
    reports = _classes(_tree(pkg, "report.py")).values()
    assert any(bases & REPORT_BASES for bases in reports)
    hooks = _tree(pkg, "hooks.py")
    assert "NO_HOOKS" in _assigned(hooks)
    assert any(name.endswith("Hooks") for name in _classes(hooks))
    assert "ConsoleHooks" in _classes(_tree(pkg, "console.py"))
    assert any(f.endswith("_rules") for f in _functions(_tree(pkg, "gate_rules.py")))
    assert "sections" in _functions(_tree(pkg, "views.py"))
    assert "KIND" in _assigned(_tree(pkg, "kind.py"))


@pytest.mark.parametrize("pkg", KIND_PACKAGES)
def test_the_core_and_the_silent_hooks_never_reach_the_console(pkg: str) -> None:
    console = {f"harness.{pkg}.console", "rich", "rich.console"}
    for name in ("core.py", "hooks.py"):
        imports = _imports(_tree(pkg, name))
        assert not imports & console, f"harness/{pkg}/{name} imports {imports & console}"
    assert f"harness.{pkg}.core" not in _imports(_tree(pkg, "hooks.py"))
