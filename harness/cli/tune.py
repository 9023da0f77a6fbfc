"""``harness tune SPACE.toml``: search a candidate space for the profile's best score under
its gates (docs/tune.md); ``--resume DIR`` continues a tune."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.common import NEW_FOLDER, add_json, make_console, print_json
from harness.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from harness.run_folder import new_run_folder
from harness.tune.space import load_space, pinned_text, space_profile

if TYPE_CHECKING:
    from harness.tune.study.config import TuneConfig

EXIT_NO_FEASIBLE = 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tune", help="search serve settings for the best score under the gates")
    p.add_argument("space", nargs="?", metavar="SPACE.toml", help="the space to search")
    p.add_argument(
        "--resume",
        metavar="DIR",
        help="continue the tune in DIR (finished trials are not measured again; default: none)",
    )
    p.add_argument(
        "--sampler",
        choices=("auto", "grid", "tpe", "random"),
        default="auto",
        help="auto: grid when the whole grid fits the trial budget, else tpe",
    )
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed")
    p.add_argument(
        "--no-confirm",
        action="store_true",
        help="do not re-measure the winner against the runner-up and the baseline at the end "
        "(default: [confirm] rounds of SPACE.toml, 3)",
    )
    p.add_argument(
        "--storage",
        metavar="URL",
        help="a study shared by several workers, each with its own --out and server "
        "(sqlite:///FILE or an RDB URL; the study is named after the space; "
        "default: DIR/study.db, this tune's own)",
    )
    p.add_argument(
        "--out", metavar="DIR", help="tune folder (default: reports/<time>-tune-<name>/)"
    )
    add_json(p, help="tune.json on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> TuneConfig:
    from harness.tune.study.config import TuneConfig
    from harness.tune.study.storage import resume_url, shown
    from harness.tune.study.tune_folder import resume_space

    if bool(args.space) == bool(args.resume):
        raise UsageError("give SPACE.toml or --resume DIR", hint="e.g. harness tune space.toml")
    if args.resume:
        folder = Path(args.resume)
        space, text = resume_space(folder)
        source = str(folder / "space.toml")
        storage = resume_url(folder, args.storage)
    else:
        path = Path(args.space)
        source = path.name
        space = load_space(path)
        text = pinned_text(path.read_text(encoding="utf-8"), space)
        if args.out:
            folder = Path(args.out)
        else:  # a new folder (race-free: two workers started in one second get two)
            folder = new_run_folder(None, f"tune-{space.name}", "tune")
            setattr(args, NEW_FOLDER, folder)  # removed again if the tune fails before a trial
        storage = args.storage
        if storage is not None:
            shown(storage)  # a malformed URL is exit 2 before anything starts
    return TuneConfig(
        space=space,
        space_text=text,
        profile=space_profile(space, source),
        folder=folder,
        sampler=args.sampler,
        seed=args.seed,
        resume=bool(args.resume),
        confirm=not args.no_confirm,
        storage=storage,
    )


def run(args: argparse.Namespace) -> int:
    # tqdm reads TQDM_DISABLE once, when it is imported (Optuna imports it, so before the
    # search is): lm-eval's bars stay off the console, where the tune shows its own progress
    os.environ.setdefault("TQDM_DISABLE", "1")
    from harness.tune.record.score import score_name, unit_of
    from harness.tune.run import run_tune
    from harness.tune.show.render import ConsoleTuneHooks, render_tune

    cfg = _config(args)
    console = make_console(args)
    unit = unit_of(score_name(cfg.profile, cfg.space))
    hooks = ConsoleTuneHooks(console, cfg.profile.name, str(cfg.folder), unit)
    report = run_tune(cfg, hooks)
    render_tune(console, report, str(cfg.folder))
    if args.json:
        print_json(report)
    if report.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if report.best is not None else EXIT_NO_FEASIBLE
