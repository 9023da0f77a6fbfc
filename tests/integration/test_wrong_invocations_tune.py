"""Wrong invocations of ``harness tune`` (issue 27's table, for the command added since):
each is one line naming what to do, exit 2, no traceback, and nothing started."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.data.layout import SAMPLES_DIR
from tests.fixtures.wrong_invocation import assert_told, run_harness

pytestmark = pytest.mark.timeout(120)

HEAD = 'name = "t"\n[serve]\n'
GOOD = (
    HEAD + 'command = "nosuchbinary --port {port} --a {a}"\n[params]\na = [1, 2]\n'
    f'[baseline]\na = 1\n[options]\ndata_dir = "{SAMPLES_DIR}"\n'
)
FILES = {
    "bad.toml": "x = [",
    "unknown.toml": GOOD.replace("--a {a}", "--a {a} {b}"),
    "conversion.toml": GOOD.replace("--a {a}", "--a {a!r}"),
    "brace.toml": GOOD.replace("--a {a}", "--a {a"),
    "empty.toml": GOOD.replace("a = [1, 2]", "a = []"),
    "baseline.toml": GOOD.replace("[baseline]\na = 1", "[baseline]\na = 3"),
    "misspelt.toml": GOOD.replace("[options]\n", "[options]\nrunz = 3\n"),
    "both.toml": GOOD.replace("[serve]\n", '[serve]\nimage = "x:y"\n'),
    "v1.toml": GOOD.replace("[params]", 'url = "http://127.0.0.1:{port}/v1"\n[params]'),
    "https.toml": GOOD.replace("[params]", 'url = "https://127.0.0.1:{port}"\n[params]'),
    "noport.toml": GOOD.replace("--port {port}", "--port 8000"),
    "quote.toml": GOOD.replace("--a {a}", "--a '{a}"),
    "relprofile.toml": 'profile = "nosuch/p.toml"\n' + GOOD,
    "reversed.toml": GOOD.replace("a = [1, 2]", "a = { low = 5, high = 1 }"),
    "twice.toml": GOOD.replace("a = [1, 2]", "a = [1, 2, 1]"),
    "mixed.toml": GOOD.replace("a = [1, 2]", 'a = [1, "2"]'),
    "good.toml": GOOD,
}

ROWS = [
    (("{W}/nosuch.toml",), "pass the path of a SPACE.toml"),
    (("{W}",), "Is a directory"),
    (("{W}/bad.toml",), "not valid TOML"),
    (("{W}/unknown.toml",), "unknown placeholder {b}"),
    (("{W}/conversion.toml",), "takes no format spec"),
    (("{W}/brace.toml",), "bad template"),
    (("{W}/empty.toml",), "params.a"),
    (("{W}/baseline.toml",), "not in its parameter's values"),
    (("{W}/misspelt.toml",), "options.runz"),
    (("{W}/both.toml",), "give command or image"),
    (("{W}/v1.toml",), "drop /v1 from serve.url: serve.url http://127.0.0.1:{port}"),
    (("{W}/https.toml",), "over plain HTTP"),
    (("{W}/noport.toml",), "command: no {port}"),
    (("{W}/quote.toml",), "serve.command: No closing quotation"),
    (("{W}/relprofile.toml",), "relprofile.toml: profile: no profile '{W}/nosuch/p.toml'"),
    (("{W}/reversed.toml",), "params.a: high 1 < low 5"),
    (("{W}/twice.toml",), "params.a: 1 is given twice"),
    (("{W}/mixed.toml",), "params.a: choices mix numbers and strings"),
    (("--resume", "{W}/nosuch"), "is not a tune folder"),
    (("--resume", "{W}"), "is not a tune folder"),
    (("{W}/good.toml", "--resume", "{W}"), "give SPACE.toml or --resume"),
    ((), "give SPACE.toml or --resume DIR"),
    (("{W}/good.toml", "--sampler", "nosuch"), "invalid choice: 'nosuch'"),
    (("{W}/good.toml", "--seed", "x"), "--seed"),
    (("{W}/good.toml", "--storage", "ftp://host/db"), "storage"),
    (("{W}/good.toml", "--storage", "sqlite:////nonexistent/dir/t.db"), "cannot open the study"),
    (("{W}/good.toml", "--out", "{W}/bad.toml/x"), "pass --out"),
    (("{W}/good.toml", "--bogus"), "see harness tune --help"),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tune-wrong")
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(("args", "says"), ROWS, ids=[" ".join(a) or "none" for a, _ in ROWS])
def test_wrong_tune_invocation(world: Path, args: tuple[str, ...], says: str) -> None:
    argv = ["tune", *(a.replace("{W}", str(world)) for a in args)]
    answer = run_harness(argv, reports=world / "reports", cwd=world / "..")
    assert_told(answer, 2, says.replace("{W}", str(world)))
    assert "--profile" not in answer.stderr  # tune has no such flag
    assert not list(world.glob("**/candidate.json"))  # no candidate was started


DEAD_ENDS = [
    ("quote.toml", ()),
    ("good.toml", ("--storage", "sqlite:////nonexistent/dir/t.db")),
    ("good.toml", ("--storage", "ftp://host/db")),
]


@pytest.mark.parametrize(
    ("space", "extra"), DEAD_ENDS, ids=[" ".join(e) or s for s, e in DEAD_ENDS]
)
def test_a_refused_start_leaves_no_folder(world: Path, space: str, extra: tuple[str, ...]) -> None:
    """Neither --resume nor a new start could take a folder a refused start left behind."""
    out = world / "refused" / space
    answer = run_harness(["tune", str(world / space), "--out", str(out), *extra], reports=world)
    assert answer.rc == 2, answer.stderr
    assert not out.exists()
