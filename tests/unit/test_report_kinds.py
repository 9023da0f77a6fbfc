"""report.html of a run folder shows every report kind it holds, each from its own views."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from harness.registry import KINDS as REGISTRY
from harness.report.entry import entry_for_folder
from harness.report.pages import run_page
from harness.report.render import render_run
from tests.fixtures.report_kinds import EXPECTED, make_kinds, structure

KINDS = list(EXPECTED)


def test_every_measurement_kind_has_views_and_a_page_here() -> None:
    """The registry is the list: a new kind's record brings its views, and a folder here."""
    for kind in REGISTRY:
        assert kind.views is not None, kind.name
        assert kind.name in EXPECTED, kind.name


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_kinds(tmp_path_factory.mktemp("kinds"))


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_has_its_section_tables_and_plots(folders: dict[str, Path], kind: str) -> None:
    page = run_page(folders[kind], entry_for_folder(folders[kind]))
    assert structure(page) == EXPECTED[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_the_console_shows_the_same_tables(folders: dict[str, Path], kind: str) -> None:
    """``harness report RUN_DIR`` prints each section the page shows (figures aside)."""
    out = io.StringIO()
    render_run(Console(file=out, width=200), entry_for_folder(folders[kind]), folders[kind])
    text = out.getvalue()
    titles = {
        "run": "Run",
        "check": "Conformance checks",
        "audit": "Contest rules",
        "audit-evidence": "What each rule rests on",
        "latency": "Latency",
        "latency-attribution": "Attribution: GET /metrics",
        "throughput": "Throughput",
        "throughput-attribution": "Attribution: GET /metrics",
        "quality": "Quality",
        "vlm": "AICAS VLM",
        "package": "Package",
        "gate": "Gate",
        "compare": "Compare with latency",
    }
    for section in EXPECTED[kind]:
        assert "\n" + titles[section] in text, section


def test_throughput_page_has_the_levels_and_the_attribution(folders: dict[str, Path]) -> None:
    page = run_page(folders["throughput"], entry_for_folder(folders["throughput"]))
    assert "c=64: 10 % of prompt tokens from the prefix cache" in page
    assert "score 29,700 (weighted tok/s)" in page  # 1·500 + 2·2,400 + 4·6,100


def test_latency_page_has_the_attribution_sentences(folders: dict[str, Path]) -> None:
    page = run_page(folders["latency"], entry_for_folder(folders["latency"]))
    assert (
        "short bucket: 80 % of prompt tokens from the prefix cache on the repeated filler, "
        "0 % with unique prompts" in page
    )


def test_audit_page_says_what_each_rule_rests_on(folders: dict[str, Path]) -> None:
    """Issue 46 item 5: each rule's title, evidence in words and the docs section."""
    page = run_page(folders["audit"], entry_for_folder(folders["audit"]))
    assert 'id="section-audit-evidence"' in page
    assert "read more: docs/audit.md, The rules; Failed requests (cached_answers)" in page
