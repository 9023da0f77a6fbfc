"""Submit what was gated: the archive's image must have a gate verdict, and the last one PASS.

The gate records the image it judged (``gate.json`` → ``image_id``: ``gate --image``
knows it, ``gate --url U --image-id ID`` ties a server run to an image). ``harness
submit`` reads the archive's image id (the sha256 of its config, which is the image
id Docker and Podman show; ``package.json``'s ``image_id`` beside the archive too)
and looks for those records before any organiser call (docs/submit.md, "Submit what
was gated"). The records are read by the caller (the gate's reader) and handed in as
plain :class:`GateRecord` rows; this module only decides.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from harness.errors import VerdictFailed

UNGATED_FLAG = "--ungated-ok"
_SHORT_ID = 12  # the shortest id prefix taken as naming an image (Docker shows 12)


@dataclass(frozen=True)
class GateRecord:
    """One ``gate.json`` that names an image: its verdict, when, and where it is."""

    image_id: str
    verdict: str  # "PASS", "FAIL" or "INCOMPLETE"
    at: str  # ISO time the gate was run
    folder: str
    # the reasons that decided it, one line each: FAIL's blocking ones, INCOMPLETE's missing,
    # skipped or partial measurements
    blocking: tuple[str, ...] = ()


@dataclass(frozen=True)
class GatedCheck:
    """What ``submit.json`` records of the check."""

    status: str  # "passed": the last gate of this image said PASS; "ungated_ok": the override
    image_id: str | None
    record: GateRecord | None = None  # the gate verdict the check read (None: never gated)


def bare_id(image_id: str) -> str:
    """``sha256:ABCD…`` → ``abcd…`` (Docker's and Podman's spellings of one id)."""
    return image_id.strip().lower().removeprefix("sha256:")


def is_image_id(text: str) -> bool:
    """Whether ``text`` is spelled like an image id (full or ≥ 12 hex digits), not a name."""
    bare = bare_id(text)
    return len(bare) >= _SHORT_ID and all(c in "0123456789abcdef" for c in bare)


def same_image(recorded: str, ids: Iterable[str]) -> bool:
    """A recorded id (maybe a short prefix) names one of the archive's ids."""
    mine = bare_id(recorded)
    return len(mine) >= _SHORT_ID and any(bare_id(i).startswith(mine) for i in ids if i)


def short(image_id: str) -> str:
    return "sha256:" + bare_id(image_id)[:_SHORT_ID] + "…"


def check_gated(
    archive: str,
    ids: list[str],
    records: Iterable[GateRecord],
    *,
    ungated_ok: bool,
    where: str,
) -> GatedCheck:
    """The last gate of the archive's image, judged; refused (exit 1) unless PASS or overridden.

    ``ids`` are the archive's image ids (config digest, package.json's id), ``where``
    the folders searched, in words."""
    first = ids[0] if ids else None
    mine = sorted((r for r in records if same_image(r.image_id, ids)), key=lambda r: r.at)
    last = mine[-1] if mine else None
    if last is not None and last.verdict == "PASS":
        return GatedCheck("passed", first, last)
    if ungated_ok:
        return GatedCheck("ungated_ok", first, last)
    name = short(first) if first else "of this archive"
    gate_it = f"run `harness gate --image IMAGE` or `harness gate --url URL --image-id {short_arg(first)}`"
    if first is None:
        raise VerdictFailed(
            f"{archive}: its image id cannot be read (no config digest, no package.json), so"
            " no gate verdict can be tied to it; nothing was sent",
            hint=f"package it with `harness package`, or pass {UNGATED_FLAG} to submit anyway"
            " (recorded in submit.json)",
        )
    if last is None:
        raise VerdictFailed(
            f"image {name} was never gated (no gate.json names it in {where}); nothing was sent",
            hint=f"{gate_it}; or pass {UNGATED_FLAG} to submit anyway (recorded in submit.json)",
        )
    why = f": {last.blocking[0]}" if last.blocking else ""
    more = f" (and {len(last.blocking) - 1} more)" if len(last.blocking) > 1 else ""
    fix = "measure what is missing" if last.verdict == "INCOMPLETE" else "fix it"
    raise VerdictFailed(
        f"image {name} was last gated {last.at[:19].replace('T', ' ')} UTC in {last.folder}:"
        f" {last.verdict}{why}{more}; nothing was sent",
        hint=f"{fix} and gate it again ({gate_it}); or pass {UNGATED_FLAG} to submit anyway"
        " (recorded in submit.json)",
    )


def short_arg(image_id: str | None) -> str:
    return shlex.quote("sha256:" + bare_id(image_id)) if image_id else "ID"
