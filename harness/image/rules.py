"""The package rules: pure functions from what the archive holds to pass/fail reasons.

Each rule mirrors one line of the container contract (docs/graders.md, "Container contract"):
the file name, the size limit, port 8080, the offline env vars, weights baked
in at the model folder, and the parameter count.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from harness.image.archive import WEIGHT_SUFFIXES, FileEntry
from harness.image.program import ProgramCheck, check_program
from harness.profiles import PackageSpec

Status = Literal["pass", "fail", "warn"]


class RuleResult(BaseModel):
    rule: str
    status: Status
    detail: str


class ImageFacts(BaseModel):
    """The facts the rules judge; a plain record so rules are testable with literals."""

    filename: str
    compressed_bytes: int
    tags: list[str]
    entrypoint: list[str]
    cmd: list[str]
    exposed_ports: list[str]
    env: list[str]
    model_files: dict[str, int]  # path -> size
    parameters: int | None  # summed over safetensors headers, None if none were readable
    unreadable_headers: list[str] = []
    # the container's program (ENTRYPOINT[0], else CMD[0]) and its #! chain looked up in the
    # merged layers; None when the layers were not read (facts from literals) or there is none
    program: ProgramCheck | None = None


def facts_from_config(
    *,
    filename: str,
    compressed_bytes: int,
    tags: list[str],
    config: dict[str, Any],
    model_files: dict[str, FileEntry],
    tree: dict[str, str] | None = None,
) -> ImageFacts:
    inner = config.get("config") or config.get("Config") or {}
    entrypoint = list(inner.get("Entrypoint") or [])
    cmd = list(inner.get("Cmd") or [])
    env = list(inner.get("Env") or [])
    params = [e.parameters for p, e in model_files.items() if p.endswith(".safetensors")]
    readable = [p for p in params if p is not None]
    return ImageFacts(
        filename=filename,
        compressed_bytes=compressed_bytes,
        tags=tags,
        entrypoint=entrypoint,
        cmd=cmd,
        exposed_ports=sorted((inner.get("ExposedPorts") or {}).keys()),
        env=env,
        model_files={p: e.size for p, e in model_files.items()},
        parameters=sum(readable) if readable else None,
        unreadable_headers=[
            p for p, e in model_files.items() if p.endswith(".safetensors") and e.parameters is None
        ],
        program=None
        if tree is None
        else check_program(entrypoint, cmd, env, str(inner.get("WorkingDir") or "/"), tree),
    )


def human_bytes(n: int) -> str:
    """Decimal GB for image-sized numbers (the limit is read as 10^9), exact bytes below 0.1 GB."""
    return f"{n / 1e9:.2f} GB" if n >= 100_000_000 else f"{n:,} bytes"


def judge(facts: ImageFacts, spec: PackageSpec) -> list[RuleResult]:
    """Every rule, in contract order. A rule that cannot be decided is a warning, not a pass."""
    results: list[RuleResult] = []

    def add(rule: str, ok: bool, detail: str, *, warn_only: bool = False) -> None:
        status: Status = "pass" if ok else ("warn" if warn_only else "fail")
        results.append(RuleResult(rule=rule, status=status, detail=detail))

    add(
        "filename",
        facts.filename == spec.image_filename,
        f"named {facts.filename!r}"
        + (
            ""
            if facts.filename == spec.image_filename
            else f", must be exactly {spec.image_filename!r}"
        ),
    )
    add(
        "size",
        facts.compressed_bytes <= spec.max_compressed_bytes,
        f"{human_bytes(facts.compressed_bytes)} compressed, limit {human_bytes(spec.max_compressed_bytes)}",
    )
    add(
        "tag",
        bool(facts.tags),
        ", ".join(facts.tags) or "the archive carries no tag (save with a NAME:TAG)",
        warn_only=True,
    )
    command = facts.entrypoint + facts.cmd
    add("entrypoint", bool(command), " ".join(command) or "neither ENTRYPOINT nor CMD is set")
    if facts.program is not None:
        found = facts.program.found
        chain = facts.program.interpreters
        add(
            "entrypoint_exists",
            not facts.program.problem,
            facts.program.problem
            or f"{facts.program.program} is in the image"
            + (f" (→ {found})" if found != facts.program.program else "")
            + (f", run by {', then '.join(chain)}" if chain else ""),
        )
    port = f"{spec.port}/tcp"
    add(
        "port",
        port in facts.exposed_ports,
        f"exposes {', '.join(facts.exposed_ports) or 'nothing'}"
        + ("" if port in facts.exposed_ports else f"; EXPOSE {spec.port} is required"),
    )
    env = set(facts.env)
    missing_env = [e for e in spec.offline_env if e not in env]
    add(
        "offline_env",
        not missing_env,
        "all set"
        if not missing_env
        else f"missing {' '.join(missing_env)} (the evaluation machine has no internet)",
    )
    model_dir = spec.model_dir.rstrip("/")
    config_path = f"{model_dir}/config.json"
    add(
        "model_config",
        config_path in facts.model_files,
        f"{config_path} present"
        if config_path in facts.model_files
        else f"{config_path} missing: bake the model into the image",
    )
    weights = {p: s for p, s in facts.model_files.items() if p.endswith(WEIGHT_SUFFIXES)}
    weight_bytes = sum(weights.values())
    add(
        "weights",
        bool(weights) and weight_bytes > 0,
        f"{len(weights)} weight files, {human_bytes(weight_bytes)}"
        if weights
        else f"no weight files ({', '.join(WEIGHT_SUFFIXES)}) under {model_dir}",
    )
    if spec.max_parameters is not None:
        if facts.parameters is None:
            add(
                "parameters",
                False,
                "no readable safetensors header: parameter count unknown",
                warn_only=True,
            )
        else:
            add(
                "parameters",
                facts.parameters <= spec.max_parameters,
                f"{facts.parameters:,} parameters, limit {spec.max_parameters:,}",
            )
    if facts.unreadable_headers:
        add(
            "safetensors_headers",
            False,
            "unreadable: " + ", ".join(facts.unreadable_headers),
            warn_only=True,
        )
    return results


def failed(results: list[RuleResult]) -> list[RuleResult]:
    return [r for r in results if r.status == "fail"]
