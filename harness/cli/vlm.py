"""``harness vlm run | latency``: the AICAS VLM benchmark in-process, or over HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.cli.common import (
    add_common,
    http_url,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.errors import EXIT_INTERRUPTED, EXIT_OK, ConfigError
from harness.profiles import VlmSpec
from harness.vlm.render import render_vlm
from harness.vlm.report import VlmReport, VlmSample


def _overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--warmup-samples",
        type=non_negative_int,
        metavar="N",
        help="NON-OFFICIAL: warm-up samples (default: the profile's, 10)",
    )
    p.add_argument(
        "--warmup-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: warm-up tokens (default: the profile's, 10)",
    )
    p.add_argument(
        "--throughput-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: tokens of the tok/s call (default: the profile's, 128)",
    )
    p.add_argument(
        "--answer-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: answer cap, for CPU tests (default: the profile's, 1024)",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vlm", help="AICAS VLM benchmark: in-process (run) or over HTTP (latency)")
    vsub = p.add_subparsers(dest="vlm_command", metavar="SUBCOMMAND")
    r = vsub.add_parser("run", help="the organisers' procedure, call for call, on your wrapper")
    r.add_argument(
        "--wrapper-dir", required=True, metavar="DIR", help="folder holding evaluation_wrapper.py"
    )
    r.add_argument(
        "--model-path", required=True, metavar="DIR", help="model folder passed to VLMModel()"
    )
    r.add_argument(
        "--dataset-path", required=True, metavar="DIR", help="TextVQA save_to_disk folder"
    )
    r.add_argument(
        "--num-samples",
        type=positive_int,
        metavar="N",
        help="first N rows (default: min(5000, len))",
    )
    r.add_argument(
        "--python",
        default=sys.executable,
        metavar="PATH",
        help="the participant's Python (default: the one running harness)",
    )
    r.add_argument(
        "--baseline",
        metavar="RUN",
        help="a run folder of the template wrapper, same machine (default: none)",
    )
    r.add_argument(
        "--seed",
        type=int,
        help="--random-seed: seeds RNGs, never the order (default: none, as the organisers')",
    )
    r.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        help="stop the runner after this many seconds (default: no limit)",
    )
    _overrides(r)
    add_common(r)
    r.set_defaults(func=run_cmd, profile="aicas-vlm")
    i = vsub.add_parser(
        "import",
        help="records written by the runner elsewhere (e.g. a GPU box) → vlm.json + result.json",
    )
    i.add_argument(
        "records", metavar="FILE", help="the runner's JSON-lines file (vlm-records.jsonl)"
    )
    i.add_argument(
        "--model-path",
        metavar="DIR",
        help="the model folder, for the pixel-budget check (default: none, check skipped)",
    )
    i.add_argument(
        "--baseline",
        metavar="RUN",
        help="a run folder of the template wrapper (default: none)",
    )
    _overrides(i)
    add_common(i)
    i.set_defaults(func=import_cmd, profile="aicas-vlm")
    h = vsub.add_parser("latency", help="the same figures over HTTP (OpenAI chat with image_url)")
    h.add_argument(
        "--url",
        required=True,
        type=http_url,
        metavar="URL",
        help="the server's base URL, e.g. http://127.0.0.1:8000",
    )
    h.add_argument(
        "--dataset-path", required=True, metavar="DIR", help="TextVQA save_to_disk folder"
    )
    h.add_argument(
        "--num-samples",
        type=positive_int,
        metavar="N",
        help="first N rows (default: min(5000, len))",
    )
    h.add_argument("--model", help="the model name sent (default: the profile's)")
    h.add_argument(
        "--throughput-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: tokens of the tok/s call (default: the profile's, 128)",
    )
    h.add_argument(
        "--answer-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: answer cap (default: the profile's, 1024)",
    )
    h.add_argument(
        "--request-timeout",
        type=positive_float,
        default=600.0,
        metavar="S",
        help="per-request timeout in s (default: %(default)g)",
    )
    add_common(h)
    h.set_defaults(func=latency_cmd, profile="aicas-vlm")


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
        transient=True,
    )


def _baseline(args: argparse.Namespace) -> VlmReport | None:
    if not args.baseline:
        return None
    base_dir = Path(args.baseline)
    if not (base_dir / VlmReport.FILENAME).is_file():
        raise ConfigError(f"--baseline {base_dir}: no vlm.json there", hint="a `vlm run` folder")
    return VlmReport.load(base_dir)


def _override_values(args: argparse.Namespace, spec: VlmSpec) -> dict[str, int]:
    from harness.vlm.run import OVERRIDABLE

    given = {n: getattr(args, n) for n in OVERRIDABLE if getattr(args, n, None) is not None}
    return {n: v for n, v in given.items() if v != getattr(spec, n)}


def import_cmd(args: argparse.Namespace) -> int:
    from harness.vlm.run import RECORDS, VlmRunConfig, build_report, read_records, save

    records = Path(args.records)
    if not records.is_file():
        raise ConfigError(f"{records}: no such records file")
    ctx = start_run(args, "vlm")
    spec = ctx.profile.require_vlm()
    lines = read_records(records)
    start = next((x for x in lines if x.get("type") == "start"), None)
    if start is None:
        raise ConfigError(f"{records}: no start record (not a runner output?)")
    overrides = _override_values(args, spec)
    ran = start.get("runner_args") or {}
    for name in ("warmup_samples", "warmup_tokens", "throughput_tokens", "answer_tokens"):
        if name in ran and ran[name] != getattr(spec, name):
            overrides[name] = int(ran[name])
    cfg = VlmRunConfig(
        wrapper_dir=Path("."),
        model_path=Path(args.model_path or "."),
        dataset_path=Path("."),
        folder=ctx.folder,
        spec=spec,
        python="(imported)",
        overrides=overrides,
        baseline=_baseline(args),
        baseline_name=Path(args.baseline).name if args.baseline else "",
    )
    rep = build_report(lines, cfg, ctx.provenance)
    if records.resolve() != (ctx.folder / RECORDS).resolve():
        (ctx.folder / RECORDS).write_text(records.read_text(encoding="utf-8"), encoding="utf-8")
    save(rep, ctx.folder)
    render_vlm(ctx.console, rep, str(ctx.folder))
    if args.json:
        sys.stdout.write(rep.to_json() + "\n")
    return EXIT_OK


def latency_cmd(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from harness.vlm.analysis import analyze
    from harness.vlm.over_http import VlmHttpConfig, measure_http
    from harness.vlm.run import RESULT, official_result_json

    ctx = start_run(args, "vlm-latency", url=args.url)
    spec = ctx.profile.require_vlm()
    overrides = _override_values(args, spec)
    cfg = VlmHttpConfig(
        url=args.url,
        dataset_path=Path(args.dataset_path),
        spec=spec,
        model=args.model or spec.model,
        num_samples=args.num_samples,
        answer_tokens=args.answer_tokens,
        throughput_tokens=args.throughput_tokens,
        timeout_s=args.request_timeout,
        api_key=os.environ.get("HARNESS_API_KEY"),
    )
    samples: list[VlmSample] = []
    interrupted = False
    with _progress(ctx.console) as bar:
        task = bar.add_task("samples", total=args.num_samples, last="")

        def on_sample(s: VlmSample) -> None:
            samples.append(s)
            last = f"ttft {s.ttft_ms:.1f} ms, {s.tok_s:.1f} tok/s" if s.ttft_ms else "failed"
            bar.update(task, advance=1, last=last)

        try:
            asyncio.run(measure_http(cfg, on_sample))
        except KeyboardInterrupt:
            interrupted = True
    rep = VlmReport(
        provenance=ctx.provenance,
        mode="http",
        official=not overrides,
        non_official=overrides,
        settings={"url": args.url, "model": cfg.model, "num_samples": args.num_samples},
        samples=samples,
        samples_planned=len(samples),
        complete=not interrupted,
    )
    analyze(rep, spec)
    if overrides:
        rep.flags.append(f"non-official settings: {overrides}")
    rep.save(ctx.folder)
    official_result_json(rep, ctx.folder / RESULT)
    if interrupted:
        ctx.console.print(f"interrupted: partial vlm.json in {ctx.folder}")
        return EXIT_INTERRUPTED
    render_vlm(ctx.console, rep, str(ctx.folder))
    if args.json:
        sys.stdout.write(rep.to_json() + "\n")
    return EXIT_OK


def run_cmd(args: argparse.Namespace) -> int:
    from harness.vlm.run import VlmRunConfig, run_vlm

    ctx = start_run(args, "vlm")
    spec = ctx.profile.require_vlm()
    overrides = _override_values(args, spec)
    baseline = _baseline(args)
    cfg = VlmRunConfig(
        wrapper_dir=Path(args.wrapper_dir),
        model_path=Path(args.model_path),
        dataset_path=Path(args.dataset_path),
        folder=ctx.folder,
        spec=spec,
        python=args.python,
        num_samples=args.num_samples,
        seed=args.seed,
        overrides=overrides,
        baseline=baseline,
        baseline_name=Path(args.baseline).name if args.baseline else "",
        timeout_s=args.timeout,
    )
    ctx.provenance.seed = args.seed
    with _progress(ctx.console) as bar:
        task = bar.add_task("loading", total=None, last="")

        def on_line(line: dict[str, Any]) -> None:
            kind = line.get("type")
            if kind == "start":
                bar.update(task, description="warm-up", total=line.get("samples"), completed=0)
            elif kind == "sample":
                ttft = line.get("ttft_ms")
                last = f"ttft {ttft:.1f} ms, {line.get('tok_s', 0):.1f} tok/s" if ttft else "failed"
                bar.update(task, description="samples", advance=1, last=last)

        try:
            rep = run_vlm(cfg, ctx.provenance, on_line)
        except KeyboardInterrupt:
            ctx.console.print(f"interrupted: partial vlm.json and result.json in {ctx.folder}")
            return EXIT_INTERRUPTED
    render_vlm(ctx.console, rep, str(ctx.folder))
    if args.json:
        sys.stdout.write(rep.to_json() + "\n")
    return EXIT_OK
