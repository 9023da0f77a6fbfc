"""Wrong invocations of ``harness submit`` (and the portal it talks to), each through the
entry point (tests/fixtures/wrong_invocation.py: ``main`` in-process, as a child would).

Every case asserts what the README promises for bad input: no traceback, the
documented exit code (2 usage or config, 3 target or transport, 1 a refusal of the
file or its gate verdict), and one ``harness: error:`` line that says what to do.
The organiser is the ``harness portal`` stack (moto behind the strict S3 proxy); the
non-organiser server is ``harness simulate``; "nothing listens" is a port just freed.
No case reaches an upload: each stops before or at the first organiser call.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.portal.app import Portal, PortalConfig
from harness.portal.serve import background_app
from harness.simulate.process import SimProcess
from tests.fixtures.archives import write_image_archive
from tests.fixtures.gated import gate_archive
from tests.fixtures.s3 import TEST_API_KEY
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(300)


@dataclass
class World:
    root: Path
    portal: str  # the organiser API
    portal_obj: Portal
    simulator: str  # an OpenAI-compatible server, not an organiser
    closed: str  # a port nothing listens on
    gated: Path  # an archive whose image the gate passed
    ungated: Path  # a valid archive never gated
    failed: Path  # a valid archive whose last gate said FAIL


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def world(moto_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("wrong")
    gates = root / "gates"
    gated = write_image_archive(root / "gated", 20_000, seed=31)
    gate_archive(gated, gates, name="gate-ok")
    failed = write_image_archive(root / "failed", 20_000, seed=32)
    gate_archive(failed, gates, passing=False, name="gate-failed")
    ungated = write_image_archive(root / "ungated", 20_000, seed=33)
    portal = Portal(
        PortalConfig(s3_endpoint=moto_url, bucket=f"wrong-{os.getpid()}", api_key=TEST_API_KEY)
    )
    portal.ensure_bucket()
    with background_app(portal.app) as url, SimProcess() as sim:
        yield World(
            root=root,
            portal=url,
            portal_obj=portal,
            simulator=sim.url,
            closed=f"http://127.0.0.1:{_free_port()}",
            gated=gated,
            ungated=ungated,
            failed=failed,
        )


def _files(w: World) -> dict[str, Path]:
    """Broken inputs, made once per module."""
    made = w.root / "made"
    if made.exists():
        return {p.parent.name: p for p in made.glob("*/*")}
    data = w.gated.read_bytes()
    files = {
        "text": ("image.tar.gz", b"this is not an image, just some text\n"),
        "truncated": ("image.tar.gz", data[: len(data) // 2]),
        "empty": ("image.tar.gz", b""),
        "misnamed": ("image.tgz", data),
    }
    out: dict[str, Path] = {}
    for name, (fname, content) in files.items():
        (made / name).mkdir(parents=True)
        (made / name / fname).write_bytes(content)
        out[name] = made / name / fname
    (made / "folder" / "image.tar.gz").mkdir(parents=True)
    out["folder"] = made / "folder" / "image.tar.gz"
    (made / "keys").mkdir()
    (made / "keys" / "empty").write_text("\n")
    (made / "keys" / "empty").chmod(0o600)
    out["keys"] = made / "keys" / "empty"
    return out


# name: (argv after `harness submit`, env changes, exit code, what the last line says)
# ARCHIVE/UNGATED/FAILED/<file> and PORTAL/SIM/CLOSED are filled in per world.
CASES: dict[str, tuple[list[str], dict[str, str | None], int, list[str]]] = {
    "empty team id": (["ARCHIVE", "--team", "", "--api-url", "PORTAL"], {}, 2,
                      ["team id '' is not accepted: use 1 to 64 ASCII letters", "pass --team"]),
    "team id with a slash": (["ARCHIVE", "--team", "a b/c", "--api-url", "PORTAL"], {}, 2,
                             ["team id 'a b/c' is not accepted"]),
    "team id climbing out": (["ARCHIVE", "--team", "../../etc", "--api-url", "PORTAL"], {}, 2,
                             ["team id '../../etc' is not accepted"]),
    "team id too long": (["ARCHIVE", "--team", "t" * 65, "--api-url", "PORTAL"], {}, 2,
                         ["is not accepted: use 1 to 64"]),
    "team id not ascii": (["ARCHIVE", "--team", "tëam", "--api-url", "PORTAL"], {}, 2,
                          ["is not accepted: use 1 to 64 ASCII letters"]),
    "team id starting with a dash": (["ARCHIVE", "--team", "-team", "--api-url", "PORTAL"], {}, 2,
                                     ["expected one argument", "goes after '=': --team=-team"]),
    "truncated archive, checks skipped": (["truncated", "--team", "t1", "--api-url", "PORTAL",
                                           "--skip-archive-check", "--ungated-ok"], {}, 1,
                                          ["the file is truncated", "not the gzip stream's"]),
    "no --team": (["ARCHIVE", "--api-url", "PORTAL"], {}, 2,
                  ["the following arguments are required: --team"]),
    "missing archive": (["MISSING", "--team", "t1", "--api-url", "PORTAL"], {}, 2,
                        ["no such file", "pass the image.tar.gz `harness package` wrote"]),
    "a folder as archive": (["folder", "--team", "t1", "--api-url", "PORTAL"], {}, 2,
                            ["not a file", "pass the image.tar.gz"]),
    "misnamed archive": (["misnamed", "--team", "t1", "--api-url", "PORTAL"], {}, 2,
                         ["rename it to image.tar.gz"]),
    "empty archive": (["empty", "--team", "t1", "--api-url", "PORTAL"], {}, 2,
                      ["image.tar.gz is empty", "package the image again"]),
    "a text file as archive": (["text", "--team", "t1", "--api-url", "PORTAL"], {}, 1,
                               ["not a readable image archive", "package the image again"]),
    "truncated archive": (["truncated", "--team", "t1", "--api-url", "PORTAL"], {}, 1,
                          ["the file is truncated", "package the image again"]),
    "never gated": (["UNGATED", "--team", "t1", "--api-url", "PORTAL"], {}, 1,
                    ["was never gated", "harness gate --url URL --image-id", "--ungated-ok"]),
    "last gate FAIL": (["FAILED", "--team", "t1", "--api-url", "PORTAL"], {}, 1,
                       ["last gated", "gate-failed: FAIL: quality gate failed", "--ungated-ok"]),
    "api url not http": (["ARCHIVE", "--team", "t1", "--api-url", "ftp://example.org"], {}, 2,
                         ["--api-url"]),
    "api url not a url": (["ARCHIVE", "--team", "t1", "--api-url", "portal"], {}, 2,
                          ["--api-url"]),
    "nothing listens": (["ARCHIVE", "--team", "t1", "--api-url", "CLOSED"], {}, 3,
                        ["POST /register: cannot connect", "check --api-url"]),
    "not an organiser (simulate)": (["ARCHIVE", "--team", "t1", "--api-url", "SIM"], {}, 3,
                                    ["answered 404 to POST /register: is --api-url the"
                                     " organiser API's base URL?"]),
    "organiser URL with a path": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL/v1"], {}, 3,
                                  ["answered 404 to POST /register"]),
    "no API key": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL"],
                   {"HARNESS_API_KEY": None}, 2, ["no API key", "set HARNESS_API_KEY"]),
    "wrong API key": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL"],
                      {"HARNESS_API_KEY": "nope"}, 2,
                      ["key rejected (401)", "check HARNESS_API_KEY"]),
    "key file missing": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL", "--api-key-file",
                          "MISSING"], {}, 2, ["cannot read the API key file"]),
    "key file empty": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL", "--api-key-file",
                        "keys"], {"HARNESS_API_KEY": None}, 2,
                       ["no API key", "--api-key-file"]),
    "--parallel 0": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL", "--parallel", "0"], {}, 2,
                     ["--parallel"]),
    "unknown profile": (["ARCHIVE", "--team", "t1", "--api-url", "PORTAL", "--profile", "nope"],
                        {}, 2, ["nope"]),
}  # fmt: skip


def _argv(w: World, args: list[str]) -> list[str]:
    files = _files(w)
    named = {
        "ARCHIVE": str(w.gated),
        "UNGATED": str(w.ungated),
        "FAILED": str(w.failed),
        "MISSING": str(w.root / "nowhere" / "image.tar.gz"),
        "PORTAL": w.portal,
        "PORTAL/v1": w.portal + "/v1",
        "SIM": w.simulator,
        "CLOSED": w.closed,
        **{k: str(v) for k, v in files.items()},
    }
    return [named.get(a, a) for a in args]


@pytest.mark.parametrize("name", list(CASES))
def test_wrong_submit_invocation(world: World, name: str) -> None:
    args, env_changes, code, says = CASES[name]
    env = {"HARNESS_API_KEY": TEST_API_KEY, "HARNESS_REPORTS_DIR": str(world.root / "gates")}
    env.update({k: v for k, v in env_changes.items() if v is not None})
    gone = [k for k, v in env_changes.items() if v is None]
    for k in gone:
        env.pop(k, None)
    out = world.root / "runs" / name.replace(" ", "-").replace("/", "-")
    calls = len(world.portal_obj.state.calls)
    proc = run_harness(
        ["submit", *_argv(world, args), "--out", str(out)],
        reports=world.root / "gates",
        timeout_s=120,
        env=env,
        unset=gone,
    )
    both = proc.stdout + proc.stderr
    assert "Traceback" not in both, both
    assert proc.rc == code, both
    errors = [line for line in proc.stderr.splitlines() if line.startswith("harness: error:")]
    assert len(errors) == 1, proc.stderr
    for text in says:
        assert text in errors[0], errors[0]
    assert TEST_API_KEY not in both
    # nothing was uploaded or submitted: at most the one /register that was refused
    assert world.portal_obj.state.submissions == []
    assert set(world.portal_obj.state.calls[calls:]) <= {"/register", "/v1/register"}


def test_the_table_is_long_enough() -> None:
    assert len(CASES) >= 20
