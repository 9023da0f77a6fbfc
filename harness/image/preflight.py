"""Image pre-flight, before any upload: the platform rule and a size breakdown with hints.

The grader runs linux/amd64; an arm64 image (built on an Apple-silicon laptop,
say) is accepted by the upload and then dies there with "exec format error".
The size breakdown says where the bytes are, per layer (with the Dockerfile step
that made it) and per directory, and names the usual waste: pip and Hugging Face
caches, compilers and CUDA toolkits in a runtime image, apt lists, files deleted
in a later layer (they still ship). Pure functions over the archive inspection.
See docs/package.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from harness.image.archive import WEIGHT_SUFFIXES, ImageContents
from harness.image.rules import RuleResult, human_bytes

TARGET_OS = "linux"
TARGET_ARCH = "amd64"
_TOP_PATHS = 10

_CUDA = r"/cuda(?:-[0-9.]+)?/"
_SPLIT = "build in a -devel stage, ship a -runtime base (multi-stage build)"
# (kind, regex searched in "/" + path + "/", hint), first match wins.
_KINDS: tuple[tuple[str, re.Pattern[str], str | None], ...] = tuple(
    (kind, re.compile(rx), hint)
    for kind, rx, hint in (
        ("pip cache", r"/\.cache/pip/", "pip's download cache: `pip install --no-cache-dir`"),
        ("hf cache", r"/\.cache/huggingface/",
         "a Hugging Face cache: weights belong once, in the model folder"),
        ("cuda toolkit", _CUDA + r"(?:bin|nvvm|include|nsight[^/]*)/", f"CUDA compilers/headers: {_SPLIT}"),
        ("compilers", r"/usr/(?:lib|libexec)/gcc/", f"a C/C++ compiler: {_SPLIT}"),
        ("apt lists", r"/var/lib/apt/lists/", "`rm -rf /var/lib/apt/lists/*` in the same RUN step"),
        ("apt cache", r"/var/cache/apt/", "`apt-get clean` in the same RUN step"),
        ("conda pkgs", r"/opt/conda/pkgs/", "`conda clean -afy` in the same RUN step"),
        ("python packages", r"/(?:site|dist)-packages/", None),
        ("cuda libraries", _CUDA, None),
    )
)  # fmt: skip


class LayerSize(BaseModel):
    index: int  # 0 = bottom
    bytes: int
    files: int
    created_by: str | None = None  # the Dockerfile step, from the config's history


class PathSize(BaseModel):
    path: str  # a directory (absolute), summed over every layer that ships bytes there
    bytes: int
    kind: str


class SizeBreakdown(BaseModel):
    total_bytes: int  # uncompressed, every layer (deleted files included: they still ship)
    layers: list[LayerSize] = Field(default_factory=list)
    largest_paths: list[PathSize] = Field(default_factory=list)
    largest_files: list[PathSize] = Field(default_factory=list)
    by_kind: dict[str, int] = Field(default_factory=dict)
    hints: list[str] = Field(default_factory=list)


def classify(path: str, model_dir: str) -> str:
    """What a path is, for the breakdown: weights, a cache, a toolkit, packages, other."""
    p = "/" + path.strip("/") + "/"
    model = "/" + model_dir.strip("/") + "/"
    if p.startswith(model) or p.rstrip("/").endswith(WEIGHT_SUFFIXES):
        return "model weights"
    for kind, rx, _ in _KINDS:
        if rx.search(p):
            return kind
    return "other"


def _hint_for(kind: str) -> str | None:
    return next((h for k, _, h in _KINDS if k == kind and h), None)


def platform_rule(config: dict[str, Any]) -> RuleResult:
    """linux/amd64 or a FAIL: anything else fails on the grader with "exec format error"."""
    os_ = config.get("os") or ""
    arch = config.get("architecture") or ""
    variant = config.get("variant")
    shown = "/".join(x for x in (os_ or "?", arch or "?", variant) if x)
    if not os_ or not arch:
        return RuleResult(
            rule="platform",
            status="warn",
            detail=f"the image config does not say its platform ({shown}); the grader runs "
            f"{TARGET_OS}/{TARGET_ARCH}",
        )
    if os_ == TARGET_OS and arch == TARGET_ARCH:
        return RuleResult(rule="platform", status="pass", detail=shown)
    return RuleResult(
        rule="platform",
        status="fail",
        detail=f"{shown}: the grader runs {TARGET_OS}/{TARGET_ARCH} and this image would fail "
        f'there with "exec format error"; rebuild with `docker build --platform '
        f"{TARGET_OS}/{TARGET_ARCH}`",
    )


def platform_failure(folder: Path) -> str | None:
    """The failed platform rule's detail from a run folder's package.json, else None.
    ``gate --image`` stops there: an image for another platform cannot start."""
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for rule in data.get("rules") or [] if isinstance(data, dict) else []:
        if (
            isinstance(rule, dict)
            and rule.get("rule") == "platform"
            and rule.get("status") == "fail"
        ):
            return str(rule.get("detail", ""))
    return None


def _history(config: dict[str, Any]) -> list[str | None]:
    """The created_by of each non-empty layer, bottom-up (history lists empty steps too)."""
    steps = [h for h in config.get("history") or [] if isinstance(h, dict)]
    return [str(h.get("created_by") or "") or None for h in steps if not h.get("empty_layer")]


def size_breakdown(contents: ImageContents, model_dir: str) -> SizeBreakdown:
    history = _history(contents.config)
    if len(history) != len(contents.layers):
        history = [None] * len(contents.layers)  # a history that does not line up says nothing
    layers = [
        LayerSize(index=i, bytes=lay.total_bytes, files=lay.file_count, created_by=step)
        for i, (lay, step) in enumerate(zip(contents.layers, history, strict=True))
    ]
    dirs: dict[str, int] = {}
    files: list[tuple[int, str]] = []
    for lay in contents.layers:
        for d, n in lay.dir_bytes.items():
            dirs[d] = dirs.get(d, 0) + n
        files.extend(lay.largest)
    by_kind: dict[str, int] = {}
    for d, n in dirs.items():
        kind = classify(d, model_dir)
        by_kind[kind] = by_kind.get(kind, 0) + n
    top = sorted(dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:_TOP_PATHS]
    total = sum(lay.total_bytes for lay in contents.layers)
    out = SizeBreakdown(
        total_bytes=total,
        layers=layers,
        largest_paths=[
            PathSize(path="/" + d, bytes=n, kind=classify(d, model_dir)) for d, n in top
        ],
        largest_files=[
            PathSize(path="/" + p, bytes=n, kind=classify(p, model_dir))
            for n, p in sorted(files, reverse=True)[:_TOP_PATHS]
        ],
        by_kind=dict(sorted(by_kind.items(), key=lambda kv: -kv[1])),
    )
    for kind, n in out.by_kind.items():
        hint = _hint_for(kind)
        if hint and n > 0:
            out.hints.append(f"{kind}: {human_bytes(n)} — {hint}")
    shipped_dead = _deleted_but_shipped(contents)
    if shipped_dead:
        out.hints.append(
            f"{human_bytes(shipped_dead)} in files deleted by a later layer still ship: "
            "delete in the same RUN step that created them"
        )
    return out


def _deleted_but_shipped(contents: ImageContents) -> int:
    """Bytes of the largest files that a later layer's whiteout hides (a lower bound)."""
    total = 0
    for i, lay in enumerate(contents.layers):
        later = contents.layers[i + 1 :]
        gone = [w for up in later for w in up.deleted]
        for size, path in lay.largest:
            if any(path == g or path.startswith(g + "/") for g in gone):
                total += size
    return total
