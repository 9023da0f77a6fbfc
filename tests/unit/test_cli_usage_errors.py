"""Usage errors that used to travel too far: a URL without a scheme, a port out of range,
a --limit that is neither a fraction nor a count. Each exits 2 before anything runs."""

from __future__ import annotations

import argparse

import pytest

from harness.argtypes import quality_limit
from harness.cli import main

NO_SCHEME = "127.0.0.1:8101"


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--url", NO_SCHEME],
        ["latency", "--url", NO_SCHEME],
        ["quality", "--url", NO_SCHEME],
        ["throughput", "--url", NO_SCHEME],
        ["gate", "--url", NO_SCHEME],
        ["vlm", "latency", "--url", NO_SCHEME, "--dataset-path", "d"],
        ["submit", "image.tar.gz", "--team", "t", "--api-url", NO_SCHEME],
        ["portal", "--s3-endpoint", NO_SCHEME],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_url_without_a_scheme_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"'{NO_SCHEME}' is not an http(s) URL — give the scheme, e.g. http://{NO_SCHEME}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [["simulate", "--port", "99999"], ["portal", "--port", "70000"], ["demo", "--port", "-1"]],
)
def test_a_port_out_of_range_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "argument --port" in capsys.readouterr().err


def test_quality_limit_is_a_fraction_or_a_whole_count() -> None:
    assert quality_limit("0.1") == 0.1
    assert quality_limit("1") == 1.0  # the grader's "all"
    assert quality_limit("50") == 50.0  # the first 50 documents of each task
    for bad in ("1.5", "0", "-1", "abc"):
        with pytest.raises(argparse.ArgumentTypeError):
            quality_limit(bad)


def test_quality_limit_1_5_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["quality", "--url", "http://127.0.0.1:9", "--limit", "1.5"])
    assert exit_.value.code == 2
    assert "'1.5' is neither a fraction (0 < F <= 1) nor a whole count" in capsys.readouterr().err
