"""Reading ``harness/`` (and the layering test) as text, from the working tree or any git
ref (bench/house_figures.py). Not a bench."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYERING_TEST = "tests/unit/test_layering.py"


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
