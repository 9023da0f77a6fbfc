"""Every bench script imports: a module moved or renamed in harness must not leave a bench
behind that fails only when someone runs it (mypy checks the package, not bench/)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_the_bench_script_imports(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))  # benches import their siblings
    name = f"bench_probe_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)  # runs only its top level: `main` waits for __main__
    if '__name__ == "__main__"' in path.read_text(encoding="utf-8"):
        assert callable(getattr(module, "main", None)), f"{path.name} runs but has no main()"
