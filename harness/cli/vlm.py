"""``harness vlm run | import | audit | latency``: the AICAS VLM benchmark in-process, its
rule against hard-coded answers, or the benchmark over HTTP.

The kind's one front end (harness/cli/kind_command.py) with four sub-commands: ``run``
is the kind's core as it is; ``import`` reads records the runner wrote elsewhere;
``audit`` asks the wrapper about changed inputs and writes the audit's ``audit.json``
(rendered and exit-coded as the audit kind's); ``latency`` measures the same figures over
HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.common import RunContext
from harness.cli.front import Front, KindRun, Outcome, url_target
from harness.target import Target
from harness.vlm.config import (
    AUDIT_FLAGS,
    HTTP_FLAGS,
    IMPORT_FLAGS,
    RUN_FLAGS,
    RUN_REQUIRED,
    VlmOverrides,
    http_from_profile,
    import_from_profile,
)

if TYPE_CHECKING:
    from harness.vlm.hooks import VlmHooks

AICAS = "aicas-vlm"  # the contest these commands measure for


def _import_config(args: argparse.Namespace, ctx: RunContext) -> Any:
    return import_from_profile(ctx.profile, VlmOverrides.from_args(args))


def _import(run: KindRun, hooks: None) -> Outcome:
    from harness.vlm.core import import_vlm

    records = Path(run.args.records)
    return Outcome(
        import_vlm(records, run.cfg, provenance=run.ctx.provenance, folder=run.ctx.folder)
    )


def _http_config(args: argparse.Namespace, ctx: RunContext) -> Any:
    target = Target(folder=ctx.folder, url=args.url)
    return http_from_profile(ctx.profile, target, VlmOverrides.from_args(args))


def _http(run: KindRun, hooks: VlmHooks) -> Outcome:
    from harness.vlm.core import measure_vlm_http

    ctx = run.ctx
    return Outcome(
        asyncio.run(
            measure_vlm_http(run.cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
        )
    )


def _audit_config(args: argparse.Namespace, ctx: RunContext) -> Any:
    from harness.vlm.audit.config import audit_from_profile

    return audit_from_profile(ctx.profile, VlmOverrides.from_args(args))


def _audit(run: KindRun, hooks: None) -> Outcome:
    from harness.audit.report import AuditReport
    from harness.vlm.audit.core import audit_vlm

    # the audit kind's report class: the audit.json the gate reads, rendered as the audit's
    ctx = run.ctx
    return Outcome(
        audit_vlm(run.cfg, provenance=ctx.provenance, folder=ctx.folder, report=AuditReport)
    )


FRONT = Front(
    summary="AICAS VLM benchmark: in-process call for call (run) or over HTTP (latency)",
    help="AICAS VLM benchmark: in-process (run) or over HTTP (latency)",
    subcommands={
        "run": Front(
            summary="the organisers' procedure, call for call, on your wrapper",
            target=None,
            profile=AICAS,
            only=RUN_FLAGS,
            required=RUN_REQUIRED,
        ),
        "import": Front(
            summary="records written by the runner elsewhere (e.g. a GPU box) → "
            "vlm.json + result.json",
            target=None,
            profile=AICAS,
            positionals=(("records", "FILE", "the runner's JSON-lines file (vlm-records.jsonl)"),),
            only=IMPORT_FLAGS,
            config=_import_config,
            hooks=lambda run: None,
            measure=_import,
        ),
        "audit": Front(
            summary="the rule against hard-coded answers: your wrapper asked about changed "
            "images and questions, in-process → audit.json",
            description="Asks the wrapper each sample's question as the benchmark does, then on "
            "another sample's image, on a blank image and with another sample's question "
            "(the benchmark's answer call, in your Python). Answers that stay the same "
            "whatever the image or the question, on more samples than an honest model "
            "gives and again in a second set, fail. Exit 0: passes (or nothing to judge); "
            "1: fails; 3: the wrapper's calls failed.",
            target=None,
            profile=AICAS,
            run_name="vlm-audit",
            only=AUDIT_FLAGS,
            required=RUN_REQUIRED,
            config=_audit_config,
            hooks=lambda run: None,
            measure=_audit,
            report_kind="audit",
        ),
        "latency": Front(
            summary="the same figures over HTTP (OpenAI chat with image_url)",
            target=url_target(
                "the server's base URL, e.g. http://127.0.0.1:8000", required=True, checked=False
            ),
            profile=AICAS,
            run_name="vlm-latency",
            only=HTTP_FLAGS,
            required=("dataset_path",),
            config=_http_config,
            measure=_http,
        ),
    },
)
