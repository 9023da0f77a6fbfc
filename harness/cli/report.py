"""``harness report [RUN_DIR…]``: the ledger as a table plus report.html; or runs in detail."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from harness.cli.common import add_json, make_console, print_json
from harness.errors import EXIT_OK, UsageError
from harness.paths import reports_dir
from harness.profiles import available_profiles, load_profile
from harness.report.board import Board, arrange
from harness.report.entry import LedgerEntry, entry_for_folder
from harness.report.experiment import group_keys, in_experiment
from harness.report.fold import split
from harness.report.folder import is_run_folder, not_a_folder
from harness.report.hidden import set_hidden
from harness.report.html import write_page
from harness.report.ledger import (
    LEDGER_FILENAME,
    index_folders,
    ledger_path_for,
    ledgers_near,
    read_ledger,
    record_run,
)
from harness.report.pages import ledger_page, run_page
from harness.report.render import fold_text, render_ledger, render_run

TUNE_FILE = "tune.json"  # harness/tune/record/report.py: TuneReport.FILENAME


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report", help="the ledger of runs as a table and report.html; RUN_DIR: one run in detail"
    )
    p.add_argument(
        "run_dirs", nargs="*", metavar="RUN_DIR", help="run folder(s) to render in detail"
    )
    p.add_argument(
        "--reports-dir",
        metavar="DIR",
        help="the folder holding run folders and ledger.jsonl (default: $HARNESS_REPORTS_DIR or reports/)",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="where to write the HTML (default: report.html in the reports or run folder)",
    )
    p.add_argument("--no-html", action="store_true", help="console output only")
    p.add_argument(
        "--reindex",
        action="store_true",
        help="re-read every run folder into the ledger (keeps names and notes)",
    )
    p.add_argument("--profile", help="only runs recorded with this profile (default: all)")
    p.add_argument(
        "--experiment",
        metavar="NAME",
        help="only this group: an --experiment name, or a group's label as the table shows it "
        "(default: every group)",
    )
    p.add_argument(
        "--hide",
        nargs="+",
        metavar="RUN_DIR",
        help="hide these runs from the ledger's groups (a 'hidden' marker in each folder; "
        "default: none)",
    )
    p.add_argument(
        "--unhide",
        nargs="+",
        metavar="RUN_DIR",
        help="show these hidden runs again (default: none)",
    )
    p.add_argument("--all", action="store_true", help="show hidden runs too (marked; never ★)")
    add_json(p)
    p.add_argument("--quiet", action="store_true", help="no console tables")
    p.set_defaults(func=run)


def _dump(e: LedgerEntry) -> dict[str, object]:
    data: dict[str, object] = json.loads(e.to_line())
    return data


def _profile_filter(given: str, entries: list[LedgerEntry]) -> str:
    """The profile name ``--profile`` means; a name no profile and no run has is an error."""
    recorded = sorted({e.profile for e in entries if e.profile})
    if given in recorded or given in available_profiles():
        return given
    if given.endswith(".toml") and Path(given).is_file():
        return load_profile(given).name
    raise UsageError(
        f"--profile {given}: no such profile",
        hint=f"pass one of: {', '.join(available_profiles())}"
        + (f"; recorded in this ledger: {', '.join(recorded)}" if recorded else ""),
    )


def _experiment_filter(given: str, entries: list[LedgerEntry]) -> None:
    """``--experiment NAME`` names a group the table shows: folders folded out of it (an
    audit, a check, a package alone) form none."""
    rows, _ = split(entries)
    if in_experiment(rows, given, entries):
        return  # (its runs may all be hidden: then the ledger says there is nothing to show)
    names = sorted({k.experiment or k.label for k in group_keys(rows, entries).values()})
    raise UsageError(
        f"--experiment {given}: no run of this experiment",
        hint=f"pass one of the groups: {'; '.join(names)}" if names else "record runs first",
    )


def _board_json(board: Board) -> dict[str, object]:
    first = board.groups[0] if board.groups else None
    return {
        "best": board.best.id if board.best else None,
        "frontier": [e.id for e in first.frontier.points] if first else [],
        "frontier_basis": first.frontier.basis if first else None,
        "groups": [
            {
                "key": g.key.key,
                "label": g.key.label,
                "experiment": g.key.experiment,
                "best": g.best.id if g.best else None,
                "frontier": [e.id for e in g.frontier.points],
                "frontier_basis": g.frontier.basis,
                "runs": [e.id for e in reversed(g.entries)],
                "not_ranked": g.not_ranked,
            }
            for g in board.groups
        ],
        "changes": board.changes,
        "folded": board.folded,
        "hidden": board.hidden,
    }


def run_hide(args: argparse.Namespace) -> int:
    console = make_console(args)
    if args.run_dirs:
        raise UsageError(
            "--hide/--unhide take their run folders themselves",
            hint="e.g. harness report --hide reports/20260101-100000-x",
        )
    done: dict[str, list[str]] = {"hidden": [], "shown": []}
    for hidden, folders in ((True, args.hide or []), (False, args.unhide or [])):
        for raw in folders:
            changed = set_hidden(Path(raw), hidden)
            done["hidden" if hidden else "shown"].append(raw)
            word = "hidden" if hidden else "shown again"
            console.print(f"{raw}: {word}" + ("" if changed else " (already)"))
    if args.json:
        print_json(done)
    return EXIT_OK


def run_ledger(args: argparse.Namespace) -> int:
    console = make_console(args)
    root = Path(args.reports_dir) if args.reports_dir else _default_root(console)
    if not root.is_dir():
        raise UsageError(
            f"{root}: no such reports folder",
            hint="pass --reports-dir DIR, or the folder that holds ledger.jsonl (a run written "
            "with --out DIR records into DIR's parent folder)",
        )
    added = index_folders(root, reindex=args.reindex)
    if added:
        console.print(f"indexed {len(added)} run folder(s) into {root.name}/{LEDGER_FILENAME}")
    contents = read_ledger(root / LEDGER_FILENAME)
    if contents.skipped:
        console.print(f"[yellow]skipped {contents.skipped} unreadable ledger line(s)[/]")
    entries = contents.entries
    if args.profile:
        profile = _profile_filter(args.profile, entries)
        entries = [e for e in entries if e.profile == profile]
    if args.experiment:
        _experiment_filter(args.experiment, entries)
    board = arrange(entries, root, show_hidden=args.all, experiment=args.experiment)
    if not board.entries:
        which = f" with profile {args.profile!r}" if args.profile else ""
        console.print(
            f"no runs{which} recorded in {root} yet: run harness latency/quality/gate first"
        )
        for line in fold_text(board):
            console.print(line)
        if args.json:
            print_json({"runs": [], "best": None, "html": None})
        return EXIT_OK
    render_ledger(console, board, f"{root.name}/{LEDGER_FILENAME}")
    html_path = None
    if not args.no_html:
        html_path = Path(args.html) if args.html else root / "report.html"
        write_page(html_path, ledger_page(board, root))
        console.print(f"report: {html_path}")
    if args.json:
        out = {
            "runs": [_dump(e) for e in sorted(board.entries, key=_newest, reverse=True)],
            **_board_json(board),
            "html": str(html_path) if html_path else None,
        }
        print_json(out)
    return EXIT_OK


def _default_root(console: Console) -> Path:
    """The reports folder (``$HARNESS_REPORTS_DIR`` or reports/); where it does not exist,
    the ledger runs written with ``--out DIR`` left beside them (DIR's parent) in the working
    folder or one level below: the one found is used, several are named."""
    root = reports_dir()
    if root.is_dir():
        return root
    found = ledgers_near(Path.cwd())
    if len(found) == 1:
        console.print(
            f"{root} does not exist: the ledger of runs written with --out is {found[0]}",
            soft_wrap=True,
            markup=False,
        )
        return found[0]
    if found:
        raise UsageError(
            f"{root}: no such reports folder; ledgers of runs written with --out are in "
            + ", ".join(str(p) for p in found),
            hint=f"pass one: harness report {found[0]}",
        )
    return root


def _newest(e: LedgerEntry) -> tuple[str, str]:
    return (e.time, e.id)


def run_detail(args: argparse.Namespace) -> int:
    console = make_console(args)
    if args.html and len(args.run_dirs) > 1:
        raise UsageError(
            "--html takes one RUN_DIR", hint="omit --html: each run gets RUN_DIR/report.html"
        )
    out: list[dict[str, object]] = []
    for raw in args.run_dirs:
        folder = Path(raw)
        if not folder.is_dir():
            raise not_a_folder(folder)
        known = read_ledger(ledger_path_for(folder)).by_id().get(folder.resolve().name)
        if known is None or args.reindex:
            entry = record_run(folder, None, "")
        else:
            # Re-read the reports (a gate may have run since) but keep the recorded name and note.
            entry = entry_for_folder(folder.resolve(), name=known.name, note=known.note)
        render_run(console, entry, folder)
        data = _dump(entry)
        if not args.no_html:
            html_path = Path(args.html) if args.html else folder / "report.html"
            write_page(html_path, run_page(folder, entry))
            console.print(f"report: {html_path}")
            data["html"] = str(html_path)
        out.append(data)
    if args.json:
        print_json(out if len(out) > 1 else out[0])
    return EXIT_OK


def run_tune(args: argparse.Namespace, folder: Path) -> int:
    """A tune folder: its trials, score against trial, frontier and parameter importance."""
    from harness.tune.show.page import show_tune  # optuna: only for a tune folder

    console = make_console(args)
    html_path = None if args.no_html else Path(args.html) if args.html else folder / "report.html"
    report = show_tune(console, folder, html_path)
    if args.json:
        out = {"tune": json.loads(report.to_json()), "html": str(html_path) if html_path else None}
        print_json(out)
    return EXIT_OK


def _is_reports_folder(folder: Path) -> bool:
    if is_run_folder(folder) or not folder.is_dir():
        return False
    return (folder / LEDGER_FILENAME).is_file() or any(is_run_folder(p) for p in folder.iterdir())


def run(args: argparse.Namespace) -> int:
    if args.hide or args.unhide:
        return run_hide(args)
    if len(args.run_dirs) == 1 and (Path(args.run_dirs[0]) / TUNE_FILE).is_file():
        return run_tune(args, Path(args.run_dirs[0]))
    if len(args.run_dirs) == 1 and _is_reports_folder(Path(args.run_dirs[0])):
        # `harness report reports/` means the ledger of that folder, not one run.
        args.reports_dir, args.run_dirs = args.run_dirs[0], []
    return run_detail(args) if args.run_dirs else run_ledger(args)
