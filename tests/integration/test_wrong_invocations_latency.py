"""`harness latency` and `harness throughput` invoked wrongly, as a user would, each through
the entry point (tests/fixtures/wrong_invocation.py: ``main`` in-process, as a child would
answer): no traceback, the README's exit code (2 usage or
config, 3 target), and one last line that says what is wrong and what to do.

The servers are real: the simulator in its own process, a port where nothing listens,
and a tiny aiohttp app that answers HTML (200 on /ping, 404 elsewhere), as a web server
on the wrong port would. Bad --out paths are another table's (every command shares them).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web

from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(600)

SIM = "{sim}"  # the simulator's base URL
HTML = "{html}"  # the HTML app's base URL
DEAD = "{dead}"  # a port where nothing listens
TLS = "{tls}"  # the simulator's address as https://
PARIS = ("--profile", "gpumode-paris")
FAST = ("--runs", "1", "--warmup", "0", "--buckets", "short", "--no-calibrate")


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    code: int
    says: str  # in the last line: what is wrong or what to do
    within_s: float = 60.0


CASES = [
    # latency: flag values
    Case("runs-zero", ("latency", "--url", SIM, "--runs", "0"), 2, "--runs: '0' must be > 0"),
    Case("runs-word", ("latency", "--url", SIM, "--runs", "many"), 2, "'many' is not a whole number"),
    Case("runs-negative", ("latency", "--url", SIM, "--runs", "-3"), 2, "must be > 0"),
    Case("warmup-negative", ("latency", "--url", SIM, "--warmup", "-1"), 2, "--warmup: '-1' must be >= 0"),
    Case("warmup-float", ("latency", "--url", SIM, "--warmup", "1.5"), 2, "'1.5' is not a whole number"),
    Case("repeats-zero", ("latency", "--url", SIM, "--repeats", "0"), 2, "--repeats: '0' must be > 0"),
    Case("until-ci-zero", ("latency", "--url", SIM, "--until-ci", "0"), 2, "--until-ci: '0' must be > 0"),
    Case("mode-unknown", ("latency", "--url", SIM, "--mode", "fast"), 2, "choose from 'official', 'strict', 'both'"),
    Case("ready-timeout-zero", ("latency", "--url", SIM, "--ready-timeout", "0"), 2, "must be > 0"),
    Case("until-ci-runs-below-floor", ("latency", "--url", SIM, "--until-ci", "5", "--runs", "5"), 2, "first look at 10 successful runs and --runs 5 ends before it, so it could never stop early — raise --runs to 10 or more"),
    Case("until-ci-at-p99-in-50-runs", ("latency", "--url", SIM, "--until-ci", "5", "--until-ci-at", "p99"), 2, "no 95 % interval of a p99 exists within 50 runs"),
    Case("until-ci-concurrency", ("latency", "--url", SIM, "--mode", "strict", "--concurrency", "4", "--until-ci", "1"), 2, "drop --concurrency"),
    # latency: buckets
    Case("buckets-empty", ("latency", "--url", SIM, "--buckets", ""), 2, "names no bucket — valid buckets: short, medium, long"),
    Case("buckets-twice", ("latency", "--url", SIM, "--buckets", "short,short"), 2, "names short twice — valid buckets: short, medium, long"),
    Case("buckets-unknown", ("latency", "--url", SIM, "--buckets", "huge"), 2, "unknown bucket 'huge' — valid buckets: short, medium, long"),
    Case("buckets-hole", ("latency", "--url", SIM, "--buckets", "short,,long"), 2, "has an empty name — valid buckets"),
    # latency: the URL and the server behind it
    Case("url-missing", ("latency",), 2, "--url is required — e.g. harness latency --url http://127.0.0.1:8080"),
    Case("url-no-scheme", ("latency", "--url", "127.0.0.1:8080"), 2, "give the scheme, e.g. http://127.0.0.1:8080"),
    Case("url-ftp", ("latency", "--url", "ftp://127.0.0.1:8080"), 2, "give the scheme, e.g. http://127.0.0.1:8080"),
    Case("url-bad-port", ("latency", "--url", "http://127.0.0.1:99999"), 2, "is not a valid URL"),
    Case("url-v1", ("latency", "--url", SIM + "/v1"), 2, "drop /v1 from --url: --url " + SIM),
    Case("url-v1-strict", ("latency", "--mode", "strict", "--url", SIM + "/v1"), 2, "drop /v1 from --url"),
    Case("nothing-listens", ("latency", "--url", DEAD), 3, "start the server, or pass --wait-for-start", within_s=25.0),
    Case("html-server", ("latency", "--url", HTML, *FAST), 3, "this is a web page, not the model server: check --url and its port"),
    Case("tokenizer-nonsense", ("latency", "--url", SIM, "--tokenizer", "nonsense", *FAST), 2, "unknown tokenizer 'nonsense' — use qwen:"),
    Case("profile-unknown", ("latency", "--url", SIM, "--profile", "nope"), 2, "no profile 'nope' — pass --profile"),
    Case("resume-nothing", ("latency", "--url", SIM, "--resume"), 2, "nothing to resume — drop --resume"),
    Case("resume-and-force", ("latency", "--url", SIM, "--resume", "--force"), 2, "pass one of them"),
    Case("resume-repeats-nothing", ("latency", "--url", SIM, "--resume", "--repeats", "2"), 2, "nothing to resume — drop --resume"),
    # throughput
    Case("tp-url-missing", ("throughput", *PARIS), 2, "--url is required — e.g. harness throughput"),
    Case("tp-level-unknown", ("throughput", *PARIS, "--url", SIM, "--levels", "3"), 2, "levels with a weight: 1, 2, 4"),
    Case("tp-url-no-scheme", ("throughput", *PARIS, "--url", "localhost:8080"), 2, "give the scheme, e.g. http://localhost:8080"),
    Case("tp-tokenizer-nonsense", ("throughput", *PARIS, "--url", SIM, "--tokenizer", "nonsense"), 2, "unknown tokenizer 'nonsense'"),
    Case("tp-nothing-listens", ("throughput", *PARIS, "--url", DEAD), 3, "start the server first", within_s=25.0),
    Case("tp-nothing-listens-strict", ("throughput", *PARIS, "--mode", "strict", "--url", DEAD), 3, "start the server, or pass --wait-for-start", within_s=25.0),
    Case("tp-url-v1-strict", ("throughput", *PARIS, "--mode", "strict", "--url", SIM + "/v1"), 2, "drop /v1 from --url"),
    Case("tp-html-server", ("throughput", *PARIS, "--url", HTML, "--levels", "1", "--no-chart"), 3, "this is a web page, not the model server: check --url and its port"),
    Case("tp-html-no-health", ("throughput", *PARIS, "--mode", "strict", "--url", HTML), 3, "this is a web page, not the model server — check --url and its port"),
    # answers no wait outgrows: told on the first poll (issue 34)
    Case("url-https-to-http", ("latency", "--url", TLS), 2, "use http://: --url " + SIM),
    Case("url-https-to-http-strict", ("latency", "--mode", "strict", "--url", TLS, *FAST), 2, "use http://: --url " + SIM),
    Case("url-ipv6-unbracketed", ("latency", "--url", "http://::1:8080"), 2, "goes in brackets — e.g. http://[::1]:8080"),
    Case("url-host-unknown", ("latency", "--url", "http://nosuch.invalid:8080"), 3, "check the host name in --url", within_s=20.0),
]  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def html_server() -> Iterator[str]:
    """A web server that is not an inference server: HTML everywhere, 404 but on /ping."""

    async def ping(_: web.Request) -> web.Response:
        return web.Response(text="<html>ok</html>", content_type="text/html")

    async def other(_: web.Request) -> web.Response:
        return web.Response(status=404, text="<html>Not Found</html>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/ping", ping)
    app.router.add_route("*", "/{tail:.*}", other)
    port = free_port()
    runner = web.AppRunner(app)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.run_until_complete(runner.cleanup())
    loop.close()


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    from harness.simulate import make_config
    from harness.simulate.process import SimProcess

    proc = SimProcess(make_config(ttft_ms=1, itl_ms=0)).start()
    yield proc.url
    proc.stop()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_wrong_invocation_ends_in_one_line(case: Case, sim_url, html_server, tmp_path: Path):
    urls = {"sim": sim_url, "html": html_server, "dead": f"http://127.0.0.1:{free_port()}",
            "tls": sim_url.replace("http://", "https://")}  # fmt: skip
    argv = [a.format(**urls) for a in case.argv]
    says = case.says.format(**urls)
    started = time.monotonic()
    proc = run_harness(
        [*argv, "--out", str(tmp_path / "run")],
        reports=tmp_path / "reports",
        timeout_s=case.within_s + 60,
    )
    took = time.monotonic() - started
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.rc == case.code, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("harness: error: "), proc.stderr
    assert says in last, last
    assert took < case.within_s, f"{case.id} took {took:.0f} s"


def test_the_table_is_as_long_as_promised():
    assert len(CASES) >= 20
    assert {c.argv[0] for c in CASES} == {"latency", "throughput"}


@pytest.mark.parametrize("buckets", ["", "short,short", "huge"])
def test_the_gates_buckets_are_refused_before_its_folder(buckets: str, tmp_path: Path):
    out = tmp_path / "gate"
    proc = run_harness(
        ["gate", "--url", "http://127.0.0.1:9", "--buckets", buckets, "--out", str(out)],
        reports=tmp_path / "reports",
        timeout_s=60,
    )
    assert proc.rc == 2 and "Traceback" not in proc.stderr
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "— valid buckets: short, medium, long (the profile's; comma-separated, each once)"
        )
    )
    assert not out.exists()
