"""A rule is a record (harness/audit_catalogue.py, harness/audit/rules.py; docs/audit.md,
"Adding a rule"): the two tuples agree, every rule has its docs, unit test and bench row,
and a seventh rule added to both is seen by everything that reads them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import harness.audit_catalogue as audit_catalogue
from harness.audit import rules as audit_rules
from harness.audit.gate_rules import audit_rules as gate_audit_rules
from harness.audit.report import AuditReport, Sample
from harness.audit.rule import AuditRule, Measured
from harness.audit.rules import RULES, chosen, judge_all, wants_second_look
from harness.audit_catalogue import CATALOGUE, RuleEntry
from harness.errors import ConfigError
from harness.profiles import PROFILES_DIR, parse_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.rule_report import RuleResult, RuleVerdict
from tests.fixtures.wrong_invocation import REPO, run_harness

DOC = REPO / "docs" / "audit.md"
# each rule's unit test of its judge over literal records: (file under tests/unit, a call)
UNIT_TESTS: dict[str, tuple[str, str]] = {
    "cached_answers": ("test_audit_analysis.py", "cached_answers("),
    "benchmark_detection": ("test_audit_analysis.py", "benchmark_detection("),
    "physically_possible": ("test_audit_analysis.py", "physically_possible("),
    "one_stack": ("test_audit_stack.py", "one_stack("),
    "stream_consistency": ("test_audit_stream.py", "stream_consistency("),
    "complete_outputs": ("test_audit_complete.py", "complete_outputs("),
    "hard_coded_answers": ("test_vlm_audit.py", "verdict("),
}
# each rule's bench: bench/audit.py's tables unless named here (a bench of its own)
BENCH = "bench/audit.py"
OWN_BENCH: dict[str, str] = {
    "complete_outputs": "bench/audit_complete.py",  # bench/audit.py runs its rows too
    "hard_coded_answers": "bench/vlm_audit.py",  # every row of it is this rule's
}


def headings(text: str) -> list[tuple[str, str]]:
    """(heading, its section's text up to the next heading of any level)."""
    parts = re.split(r"^#+ (.*)$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def undocumented(rules: tuple[AuditRule, ...], text: str) -> list[str]:
    """Each rule whose docs headings are not in ``text`` (docs/audit.md), or whose first
    section does not name it."""
    found = headings(text)
    out: list[str] = []
    for r in rules:
        sections = [[body for h, body in found if h.startswith(d)] for d in r.docs]
        if not all(sections):
            out.append(f"{r.name}: no heading {r.docs} in {DOC.name}")
        elif not any(f"`{r.name}`" in body for body in sections[0]):
            out.append(f"{r.name}: its section {r.docs[0]!r} does not name it")
    return out


def test_the_catalogue_and_the_records_agree_entry_by_entry() -> None:
    assert tuple(r.about for r in RULES) == CATALOGUE
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names)
    # harness audit judges every rule but the in-process one (harness vlm audit's)
    assert [r.name for r in RULES if r.judge is None] == ["hard_coded_answers"]
    assert all(r.about.in_process == (r.judge is None) for r in RULES)
    assert audit_catalogue.prompt_route_rules() == (
        "one_stack", "stream_consistency", "complete_outputs"
    )  # fmt: skip


def test_every_rule_has_its_docs_section() -> None:
    assert undocumented(RULES, DOC.read_text(encoding="utf-8")) == []


def test_every_rule_has_a_unit_test_of_its_judge() -> None:
    assert set(UNIT_TESTS) == {r.name for r in RULES}, "name each rule's unit test here"
    for name, (file, call) in UNIT_TESTS.items():
        text = (REPO / "tests" / "unit" / file).read_text(encoding="utf-8")
        assert "def test_" in text and call in text, f"{name}: {file} never calls {call}…)"


def test_every_rule_has_a_bench_row() -> None:
    """The benches run (one trial each): every rule judged in a row of its bench."""
    names = {r.name for r in RULES}
    assert set(OWN_BENCH) <= names
    rows: dict[str, list[dict[str, object]]] = {}
    for bench in {BENCH, *OWN_BENCH.values()}:
        got = subprocess.run(
            [sys.executable, str(REPO / bench), "--trials", "1", "--json"],
            capture_output=True, text=True, timeout=120, check=True, cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        data = json.loads(got.stdout)
        rows[bench] = data["rows"] if isinstance(data, dict) else data
    for name in names:
        bench = OWN_BENCH.get(name, BENCH)
        if bench == "bench/vlm_audit.py":  # a bench of one rule: its rows are the rule's
            assert rows[bench], name
            continue
        named = [
            r for r in rows[bench]
            if str(r.get("rule", "")).split("/")[0] == name or f"fail_{name}" in r
        ]  # fmt: skip
        assert named, f"{name}: no row in {bench}"


def _paris() -> dict[str, object]:
    return tomllib.loads((PROFILES_DIR / "gpumode-paris.toml").read_text())


def _qwen(rules: list[str]) -> dict[str, object]:
    data = tomllib.loads((PROFILES_DIR / "efficient-qwen.toml").read_text())
    data["audit"]["rules"] = rules  # type: ignore[index]
    return data


def test_the_profile_refuses_an_unknown_rule_and_one_judged_in_process() -> None:
    with pytest.raises(ConfigError, match=r"audit\.rules: no audit rule 'cache_answers'") as err:
        parse_profile(_qwen(["cache_answers"]), "x.toml")
    assert err.value.hint is not None and "complete_outputs" in err.value.hint
    with pytest.raises(ConfigError, match=r"hard_coded_answers is judged .* harness vlm audit"):
        parse_profile(_qwen(["cached_answers", "hard_coded_answers"]), "x.toml")


def test_a_failing_rule_raises_its_entrys_gate_flag() -> None:
    v = RuleVerdict(rule="one_stack", title="", result=RuleResult.FAIL, why="two texts")
    rep = AuditReport(url="http://h:1", rules=[v], provenance=Provenance(), complete=True)
    _, flags = gate_audit_rules(rep, 600.0)
    assert [(f.kind, f.text) for f in flags] == [
        (FlagKind.ENDPOINT_ROUTING, "a second model stack: two texts")
    ]


# ---- a seventh rule ---------------------------------------------------------------------
TOY = RuleEntry(
    "toy_rule", "a toy rule", ("timed",), prompt_route=True, docs=("The rules", "Toy rule")
)


def toy_judge(m: Measured) -> RuleVerdict:
    n = sum(len(s) for s in m.buckets.values())
    return RuleVerdict(rule=TOY.name, title=TOY.title, result=RuleResult.PASS, why=f"{n} samples")


def toy_second_look(m: Measured) -> bool:
    return any(len(s) < 2 for s in m.buckets.values())


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> AuditRule:
    """The toy rule added as a rule is: its entry on a line of CATALOGUE, its record on a
    line of RULES."""
    rule = AuditRule(TOY, toy_judge, toy_second_look)
    monkeypatch.setattr(audit_catalogue, "CATALOGUE", (*CATALOGUE, TOY))
    monkeypatch.setattr(audit_rules, "RULES", (*RULES, rule))
    return rule


def test_before_it_is_added_no_profile_may_name_it() -> None:
    with pytest.raises(ConfigError, match="no audit rule 'toy_rule'"):
        parse_profile(_qwen(["cached_answers", "toy_rule"]), "x.toml")


def test_a_seventh_rule_is_seen_by_the_profile_and_its_route_needs(toy: AuditRule) -> None:
    profile = parse_profile(_qwen(["toy_rule", "cached_answers"]), "x.toml")
    assert profile.audit.rules == ["toy_rule", "cached_answers"]
    assert "toy_rule" in audit_catalogue.prompt_route_rules()
    data = _paris()
    data["audit"]["rules"].append("toy_rule")  # type: ignore[index]
    with pytest.raises(ConfigError, match="toy_rule need the latency grader's prompt route"):
        parse_profile(data, "x.toml")


def test_a_seventh_rule_is_in_the_help(toy: AuditRule, tmp_path: Path) -> None:
    shown = run_harness(["audit", "--help"], reports=tmp_path)
    assert shown.rc == 0 and "complete_outputs, toy_rule (hard_coded_answers" in " ".join(
        shown.stdout.split()
    )
    listed = run_harness(["--help"], reports=tmp_path)
    assert "complete outputs, a toy rule" in " ".join(listed.stdout.split())


def test_a_seventh_rule_is_judged_in_the_profiles_order(toy: AuditRule) -> None:
    profile = parse_profile(_qwen(["physically_possible", "toy_rule", "cached_answers"]), "x.toml")
    spec = profile.audit
    assert chosen(spec, "timed") == [RULES[0], RULES[2], toy]
    samples = [
        Sample(bucket="short", role="repeated", phase="timed", round=0, prompt_tokens=61,
               e2e_ms=300.0, output_tokens=128)
    ]  # fmt: skip
    got = judge_all(Measured(spec, buckets={"short": samples}))
    assert [v.rule for v in got] == ["physically_possible", "toy_rule", "cached_answers"]
    assert got[1].why == "1 samples"
    # its second look is its phase's: one sample asks the rounds for a second set
    assert wants_second_look(Measured(spec, buckets={"short": samples}), "timed")
    assert not wants_second_look(Measured(spec, buckets={"short": samples * 2}), "probes")


def test_a_seventh_rule_needs_its_docs_section(toy: AuditRule) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert undocumented(audit_rules.rules(), text) == [
        "toy_rule: no heading ('The rules', 'Toy rule') in audit.md"
    ]
    documented = text.replace(
        "\n## Per profile", "\n### Toy rule\n\n`toy_rule` fails a toy.\n\n## Per profile"
    )
    assert undocumented(audit_rules.rules(), documented) == [
        "toy_rule: its section 'The rules' does not name it"
    ]
    row = "| `toy_rule` | (a toy) | — | never |\n"
    documented = documented.replace(
        "\n\nThe floor's numbers", "\n" + row + "\nThe floor's numbers", 1
    )
    assert undocumented(audit_rules.rules(), documented) == []
