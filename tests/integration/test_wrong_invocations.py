"""Issue 27's table: wrong invocations across check, gate, compare, simulate, data, vlm,
demo, throughput and portal, each answered without a traceback, with the exit code the
README documents (2 usage or config, 3 target or transport, 1 FAIL, 4 INCOMPLETE) and one
last stderr line saying what is wrong and what to do. Every row runs ``harness.cli.main``
in this process (tests/fixtures/wrong_invocation.py); a handful run again as real
``python -m harness`` children and must answer the same. The placeholders ``{W}`` (bad inputs), ``{F}`` (a regular file), ``{DOWN}``
(nothing listens), ``{OTHER}`` (a server answering something else) and ``{BUSY}`` (a port
in use) are tests/fixtures/wrong_world.py's. The --out rows of every command and the
other areas' rows are in test_wrong_invocations_out.py.
"""

from __future__ import annotations

import pytest

from harness.data.layout import SAMPLES_DIR
from tests.fixtures.wrong_invocation import run_child, run_harness
from tests.fixtures.wrong_world import QUICK, World, judge_row, target, usage, verdict
from tests.fixtures.wrong_world import world as world  # the module's fixture

pytestmark = pytest.mark.timeout(180)

TLS = "https://127.0.0.1:{BUSY}"  # https:// to the plain-HTTP server of {OTHER}
NO_HOST = "http://nosuch.invalid:8080"  # a name no resolver knows
LONG = ("--ready-timeout", "600")  # what an early stop saves
SAMPLES = ("--limit", "0.01", "--data-dir", str(SAMPLES_DIR))
PARIS_DOWN = ("--url", "{DOWN}", "--profile", "gpumode-paris")
SKIP_ALL = ("--skip", "check", "--skip", "throughput", "--skip", "quality", "--skip", "audit")
WEB_PAGE = "a web page (HTML), not the API's JSON: this is a web page, not the model server"

CHECK = [
    usage("check", says="--url is required"),
    usage("check", "--url", "ftp://host:21", says="e.g. http://host:21"),
    usage("check", "--url", "127.0.0.1:8101", says="e.g. http://127.0.0.1:8101"),
    usage("check", "--url", "http://host:notaport", says="is not a valid URL"),
    usage("check", "--url", "{DOWN}", "--only", "nonsense", says="unknown check 'nonsense'"),
    usage("check", "--url", "{DOWN}", "--skip", "nonsense", says="unknown check 'nonsense'"),
    usage("check", "--url", "{DOWN}", "--profile", "nosuch", says="no profile 'nosuch'"),
    usage("check", "--url", "{DOWN}", "--profile", "{W}/bad.toml", says="invalid TOML"),
    usage("check", "--url", "{DOWN}", "--profile", "{W}/foreign.toml", says="'bogus_key'"),
    usage("check", "--url", "{DOWN}", "--timeout", "-1", says="must be > 0"),
    usage("check", "--url", "{DOWN}", "--ready-timeout", "abc", says="is not a number"),
    usage("check", "--bogus", says="see harness check --help"),
    usage("check", "--url", "{DOWN}", "--tokenizer", "nosuch", *QUICK, says="unknown tokenizer"),
    target("check", "--url", "{DOWN}", *QUICK, says="is unreachable"),
    # answers no wait outgrows, told on the first poll whatever --ready-timeout (issue 34)
    usage("check", "--url", TLS, *LONG, says="— use http://: --url http://127.0.0.1:"),
    target("check", "--url", NO_HOST, *LONG, says="host 'nosuch.invalid' not found"),
    usage("quality", "--url", TLS, *SAMPLES, says="— use http://: --url http://127.0.0.1:"),
    target("check", "--url", "{DOWN}", *QUICK, "--json", says="is unreachable"),
    verdict(1, "check", "--url", "{OTHER}", "--ready-timeout", "5", "--only", "readiness,shapes"),
    verdict(1, "check", "--url", "{OTHER}", "--only", "readiness,served_model", "--json",
            says=WEB_PAGE),
]  # fmt: skip

GATE = [
    usage("gate", says="give exactly one of RUN_DIR, --url or --image"),
    usage("gate", "/nonexistent/run", says="is not a run folder"),
    usage("gate", "README.md", says="is not a run folder"),
    usage("gate", "{W}/corrupt", "--url", "{DOWN}", says="give exactly one of"),
    usage("gate", "--url", "{DOWN}", "--image", "team/server:v1", says="give exactly one of"),
    usage("gate", "--url", "ftp://host", says="e.g. http://host"),
    usage("gate", "{W}/corrupt", "--profile", "nosuch", says="no profile 'nosuch'"),
    usage("gate", "{W}/corrupt", "--out", "{W}/elsewhere", says="writes gate.json into"),
    usage("gate", "{W}/paris", "--profile", "efficient-qwen", says="'gpumode-paris'"),
    usage("gate", "--url", "{DOWN}", "--skip", "bogus", says="invalid choice: 'bogus'"),
    usage("gate", "--url", "{DOWN}", "--latency-mode", "fast", says="invalid choice: 'fast'"),
    usage("gate", "--url", "{DOWN}", "--image-id", "", says="'' names no image — pass the"),
    target("gate", "--url", "{DOWN}", *QUICK, "--skip", "quality", says="is unreachable"),
    # a gate that measures nothing: the data line, and no verdict after it (issue 47)
    usage("gate", *PARIS_DOWN, "--data-dir", "{W}/nodata", says="— run: harness data fetch"),
    usage("gate", *PARIS_DOWN, *SKIP_ALL, says="no step of this gate is left to measure"),
    verdict(4, "gate", "{W}/corrupt", says="check.json: not valid JSON"),
    verdict(4, "gate", "{W}/foreign", says="a 'gate' report, not 'latency'"),
    verdict(4, "gate", "{W}/future", says="schema_version 99"),
    verdict(4, "gate", "{W}/future", "--json", says="schema_version 99"),
    verdict(4, "gate", "{W}/empty", says="is missing"),
]

COMPARE = [
    usage("compare", says="the following arguments are required: RUN_A, RUN_B"),
    usage("compare", "{W}/empty", says="the following arguments are required: RUN_B"),
    usage("compare", "/nonexistent/a", "/nonexistent/b", says="not a run folder"),
    usage("compare", "{W}/empty", "{W}/empty", says="the same folder"),
    usage("compare", "{W}/empty", "{W}/empty2", says="compare needs run folders"),
    usage("compare", "{W}/corrupt_latency", "{W}/empty", says="latency.json: not valid JSON"),
    usage("compare", "{W}/foreign", "{W}/empty", says="a 'gate' report, not 'latency'"),
    usage("compare", "{W}/empty", "{W}/empty2", "--min-effect", "-5", says="must be >= 0"),
    usage("compare", "README.md", "pyproject.toml", says="not a run folder"),
    usage("compare", "{W}/empty", "{W}/empty2", "extra", says="unrecognized arguments: extra"),
]

SIMULATE = [
    usage("simulate", "--port", "99999", says="is not a port (0-65535)"),
    usage("simulate", "--port", "abc", says="is not a whole number"),
    usage("simulate", "--ttft-ms", "-1", says="ttft_ms"),
    usage("simulate", "--error-rate", "2", says="error_rate"),
    usage("simulate", "--disable-route", "/nope", says="invalid choice: '/nope'"),
    usage("simulate", "--port", "{BUSY}", says="pick another --port"),
    usage("simulate", "--host", "999.1.1.1", "--port", "0", says="cannot listen on 999.1.1.1"),
    usage("simulate", "--tokenizer", "nosuch", "--port", "0", says="unknown tokenizer"),
    usage(
        "simulate",
        "--log-file",
        "{F}/x.jsonl",
        "--port",
        "0",
        says="cannot open --log-file {F}/x.jsonl: Not a directory",
    ),
]

DATA = [
    usage("data", says="the following arguments are required: ACTION"),
    usage("data", "frobnicate", says="invalid choice: 'frobnicate'"),
    usage("data", "fetch", "--only", "nonsense", "--out", "{W}/data", says="unknown dataset"),
    usage("data", "fetch", "--bogus", says="see harness data fetch --help"),
    usage("data", "fetch", "--samples", "--out", "{F}/x", says="cannot create data folder"),
    usage("data", "prepare", "--out", "{F}/x", says="cannot create NLTK data folder"),
    usage("data", "prepare", "--nltk-data", "{F}/x", says="pass --nltk-data to a writable"),
]

VLM = [
    usage("vlm", says="the following arguments are required: SUBCOMMAND"),
    usage("vlm", "run", says="the following arguments are required: --wrapper-dir"),
    usage(
        "vlm",
        "run",
        "--wrapper-dir",
        "/nonexistent",
        "--model-path",
        "/nonexistent",
        "--dataset-path",
        "/nonexistent",
        says="no evaluation_wrapper.py in /nonexistent",
    ),
    usage("vlm", "import", "/nonexistent/records.jsonl", says="no such records file"),
    usage("vlm", "import", "{W}/records.jsonl", says="no start record"),
    usage("vlm", "import", "README.md", says="no start record"),
    usage("vlm", "latency", "--url", "ftp://host", "--dataset-path", "/y", says="e.g. http://host"),
    usage(
        "vlm", "latency", "--url", "{DOWN}", "--dataset-path", "/nonexistent", says="--dataset-path"
    ),
]

DEMO = [
    usage("demo", "--runs", "0", says="must be > 0"),
    usage("demo", "--port", "abc", says="is not a whole number"),
    usage("demo", "--profile", "nosuch", says="no profile 'nosuch'"),
    usage("demo", "--latency-mode", "fast", says="invalid choice: 'fast'"),
    # refused before the model is built and the reference server started (minutes)
    usage("demo", "--buckets", "short,short", says="names short twice"),
    usage("demo", "--buckets", "nosuch", "--out", "{W}/demo-out", says="unknown bucket 'nosuch'"),
]

THROUGHPUT = [
    usage("throughput", "--profile", "gpumode-paris", says="--url is required"),
    usage("throughput", "--url", "ftp://host", "--profile", "gpumode-paris", says="http://host"),
    usage("throughput", "--url", "{DOWN}", says="has no [throughput] section"),
    usage("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris", "--levels", "0,1"),
    usage("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris", "--levels", "a,b"),
    usage("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris", "--mode", "fast"),
    target("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris", says="connection"),
    target(
        "throughput",
        "--url",
        "{OTHER}",
        "--profile",
        "gpumode-paris",
        "--levels",
        "1",
        "--requests-per-level",
        "2",
        "--warmup",
        "0",
        "--spot-checks",
        "0",
        "--no-chart",
        says="no request succeeded at c=1",
    ),
]

PORTAL = [
    usage("portal", "--port", "99999", says="is not a port (0-65535)"),
    usage("portal", "--profile", "nosuch", says="no profile 'nosuch'"),
    usage("portal", "--s3-endpoint", "ftp://host", says="e.g. http://host"),
    usage("portal", "--part-size", "0", says="must be > 0"),
    usage("portal", "--api-key", says="expected one argument"),
    usage("portal", "--port", "{BUSY}", says="pick another --port"),
]


CASES = [*CHECK, *GATE, *COMPARE, *SIMULATE, *DATA, *VLM, *DEMO, *THROUGHPUT, *PORTAL]


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 50
    commands = {p.values[0][0] for p in CASES}  # type: ignore[attr-defined]
    expected = {"check", "gate", "compare", "simulate", "data", "vlm", "demo"}
    assert expected | {"throughput", "portal"} <= commands


@pytest.mark.parametrize(("args", "rc", "says", "how"), CASES)
def test_wrong_invocation(
    world: World, args: tuple[str, ...], rc: int, says: str | None, how: str
) -> None:
    judge_row(world, args, rc, says, how)


def test_demo_refuses_bad_buckets_before_building_and_leaves_no_folder(world: World) -> None:
    """Every step's settings are checked before the small model is built and the reference
    server started (minutes): a bad ``--buckets`` is one line, exit 2, and no run folder."""
    out = world.folder / "demo-refused"
    answer = run_harness(
        ["demo", "--buckets", "long,nosuch", "--out", str(out)], reports=world.folder / "reports"
    )
    assert answer.rc == 2
    assert "unknown bucket 'nosuch'" in answer.stderr and "Traceback" not in answer.stderr
    assert not out.exists()


# One row of each way to fail, run as a real ``python -m harness`` child as well: the
# in-process answers the tables rely on are the interpreter's, code and line.
AS_CHILD = [
    ("check", "--bogus"),  # argparse's own error
    ("check", "--url", "{DOWN}", "--profile", "nosuch"),  # a HarnessError mapped to 2
    ("check", "--url", "{DOWN}", *QUICK),  # target unreachable: 3
    ("gate", "{W}/corrupt"),  # a verdict: 4 INCOMPLETE
    ("simulate", "--port", "{BUSY}"),  # a listening socket refused
    ("portal", "--api-key"),  # a sub-command's argparse
    (),  # no command at all: the help, exit 2
]


@pytest.mark.parametrize("args", AS_CHILD, ids=lambda a: " ".join(a) or "(none)")
def test_a_child_answers_as_the_in_process_run(world: World, args: tuple[str, ...]) -> None:
    argv = world.fill(args)
    child = run_child(argv, reports=world.folder / "reports", timeout_s=120)
    here = run_harness(argv, reports=world.folder / "reports")
    assert "Traceback" not in child.stderr + here.stderr
    assert (here.rc, here.last_line) == (child.rc, child.last_line), (here, child)
    assert here.stdout == child.stdout
