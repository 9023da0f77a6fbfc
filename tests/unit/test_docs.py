"""The repository stands alone: docs/profiles.md matches the profile models, and every
doc path the code, profiles and docs cite exists in the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from harness import profiles

ROOT = Path(__file__).resolve().parents[2]
PROFILES_DOC = ROOT / "docs" / "profiles.md"
SCANNED = ("harness", "reference_server", "tasks", "tests", "bench", "docs")
TOP_FILES = ("README.md", "Makefile", "pyproject.toml")
SUFFIXES = {".py", ".md", ".toml", ".sh", ".jinja", ".yaml", ".yml", ""}

# A cited doc: docs/<name>.md, spec/<name>.md, or the bare style / design rule files
# (the project's rules, outside the repository): each must exist here.
CITATION = re.compile(r"(?<![\w/.-])((?:docs|spec)/[\w.-]+\.md|(?:style|design)\.md)")
OUTSIDE = re.compile(r"\.\./" + "shared|/work/" + "(?:shared|main|wt)/")


def _texts() -> list[tuple[Path, str]]:
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for top in SCANNED:
        files += [
            p
            for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts
        ]
    return [(p, p.read_text(encoding="utf-8", errors="replace")) for p in sorted(files)]


def test_every_cited_doc_exists_in_the_repository() -> None:
    missing = []
    for path, text in _texts():
        for lineno, line in enumerate(text.splitlines(), 1):
            for cited in CITATION.findall(line):
                if not (ROOT / cited).is_file():
                    missing.append(f"{path.relative_to(ROOT)}:{lineno}: {cited}")
    assert missing == []


def test_nothing_points_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{lineno}"
        for path, text in _texts()
        for lineno, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def _models() -> dict[str, type[BaseModel]]:
    return {
        name: obj
        for name, obj in vars(profiles).items()
        if isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and obj.__module__ == profiles.__name__
    }


def _literal(value: Any) -> str:
    """A default as the doc writes it (TOML-like)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict) and not value:
        return "{}"
    return repr(value)


def _expected_default(field: Any) -> str:
    if field.default is PydanticUndefined and field.default_factory is None:
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is None:
        return "none"
    if isinstance(value, BaseModel):
        return "table"
    return f"`{_literal(value)}`"


def _documented() -> dict[str, dict[str, str]]:
    """Model name → {key: default cell}, from the tables under each ``: `Model` `` heading."""
    models = _models()
    out: dict[str, dict[str, str]] = {}
    current: str | None = None
    for line in PROFILES_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            names = [n for n in re.findall(r"`(\w+)`", line) if n in models]
            current = names[-1] if names else None
            if current:
                out.setdefault(current, {})
        elif current and line.startswith("| `"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            out[current][cells[0].strip("`")] = cells[2]
    return out


def test_profiles_doc_documents_every_field_with_its_default() -> None:
    documented = _documented()
    models = _models()
    assert set(documented) == set(models) - {"Strict"}, "a profile model has no section"
    for name, keys in documented.items():
        fields = models[name].model_fields
        assert set(keys) == set(fields), f"{name}: doc keys differ from the model's fields"
        for key, cell in keys.items():
            assert cell == _expected_default(fields[key]), f"{name}.{key}: doc says {cell}"


def test_the_shipped_profiles_use_only_documented_keys() -> None:
    documented = _documented()
    for name in profiles.available_profiles():
        profile = profiles.load_profile(name)
        for section, value in profile:
            if isinstance(value, BaseModel):
                model = type(value).__name__
                assert model in documented, f"{name}: [{section}] is not documented"
