"""`harness check` as a user runs it: exit codes, --json, --only/--skip, the saved report."""

from __future__ import annotations

import json
import socket

import pytest

from harness.cli import main
from harness.conformance.report import CheckReport

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_server_exits_3_naming_the_url_and_what_was_tried(tmp_path, capsys) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code = main(["check", "--url", url, "--ready-timeout", "1", "--out", str(tmp_path)])
    assert code == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"harness: error: {url} is unreachable: GET {url}/ping for ")
    assert "connection refused" in err[0] and "/v1/models" in err[0]


def test_missing_chat_route_exits_1_with_json_on_stdout(sim_process, tmp_path, capsys) -> None:
    sp = sim_process(ttft_ms=5.0, disable_route=("/v1/chat/completions",))
    code = main(
        [
            "check",
            "--url",
            sp.url,
            "--skip",
            "long_input,concurrency",
            "--json",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr()
    assert code == 1
    data = json.loads(out.out)
    chat = next(c for c in data["checks"] if c["name"] == "chat_completions")
    assert chat["result"] == "fail"
    assert "fail quality evaluation" in chat["reason"]
    assert chat["evidence"][0]["status"] == 404
    assert not any(c["name"].startswith("concurrency") for c in data["checks"])
    # the human table goes to stderr when --json owns stdout
    flat = " ".join(out.err.split())  # rich wraps lines at the terminal width
    assert (
        "✗ chat_completions: POST /v1/chat/completions answered 404: "
        "submissions without /v1/chat/completions fail quality evaluation" in flat
    )
    report = CheckReport.load(tmp_path)
    assert not report.ok and report.provenance.url == sp.url


def test_clean_server_exits_0_and_only_selects_a_group(sim_process, tmp_path, capsys) -> None:
    sp = sim_process(ttft_ms=5.0)
    code = main(["check", "--url", sp.url, "--only", "shapes,usage", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "all required checks pass" in out
    report = CheckReport.load(tmp_path)
    assert [c.name for c in report.checks] == [
        "invocations_completion",
        "invocations_chat",
        "completions",
        "chat_completions",
        "model_name",
        "usage",
    ]


def test_bad_selection_is_a_usage_error(capsys) -> None:
    assert main(["check", "--url", "http://127.0.0.1:9", "--only", "shape"]) == 2
    assert "unknown check 'shape'" in capsys.readouterr().err


def test_list(capsys) -> None:
    assert main(["check", "--list"]) == 0
    out = capsys.readouterr().out
    assert "concurrency_64" in out and "required" in out
