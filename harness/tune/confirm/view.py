"""The confirmation on the console: a line per leg while it runs, the verdict at the end
(pure: records in, rich-markup lines out)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape

from harness.tune.record.confirm import Comparison, ConfirmLeg, ConfirmRecord, Contestant
from harness.tune.record.report import TrialRecord


def signed(pct: float) -> str:
    """``+4.1``, ``−1.2`` (a real minus sign), ``0.0``."""
    if round(pct, 1) == 0:
        return "0.0"
    return f"+{pct:.1f}" if pct > 0 else f"−{-pct:.1f}"


def ci_text(ci: tuple[float, float] | None) -> str:
    return "no CI" if ci is None else f"95 % CI {signed(ci[0])}…{signed(ci[1])} %"


def _num(x: float | None, unit: str) -> str:
    return "—" if x is None else f"{x:.3f}{unit}"


def plan_line(entrants: Sequence[tuple[TrialRecord, str]], rounds: int) -> str:
    who = ", ".join(f"trial {t.number} ({role})" for t, role in entrants)
    return f"confirm: {who}; {rounds} round(s) of fresh restarts, the speed step only"


def leg_line(leg: ConfirmLeg, rounds: int) -> str:
    head = f"confirm r{leg.round}/{rounds} trial {leg.trial:>3}"
    if leg.score is None:
        return f"{head}  [{leg.status.style}]{leg.status}[/] — {escape(leg.why)}"
    cold = "" if leg.cold_start_s is None else f"  cold start {leg.cold_start_s:.2f} s"
    broke = f"  [red]{escape(leg.slo)}[/]" if leg.slo else ""
    return f"{head}  {leg.score:7.3f}{cold}{broke}"


def _contestant(c: Contestant, unit: str) -> str:
    broke = f" [red]— broke an SLO: {escape(c.slo)}[/]" if c.slo else ""
    return _contestant_text(c, unit) + broke


def _contestant_text(c: Contestant, unit: str) -> str:
    ci = c.confirmed_ci95
    conf = _num(c.confirmed_score, unit)
    if ci is not None:
        conf += f" (95 % CI {ci[0]:.3f}…{ci[1]:.3f})"
    cold = "" if c.cold_start_s is None else f", cold start {c.cold_start_s:.2f} s"
    return (
        f"  trial {c.trial:>3} {c.role:<20} search {_num(c.search_score, unit)}, "
        f"confirmed {conf}{cold} — {escape(c.note)}"
    )


def _under_min(c: Comparison, min_effect: float) -> str:
    ci = c.ci95_pct
    excludes_zero = ci is not None and (ci[0] > 0 or ci[1] < 0)
    return f", under the {min_effect:g} % minimum effect" if excludes_zero else ""


def _who(c: Comparison) -> tuple[str, str]:
    """(``runner-up``, ``trial 0, the baseline``): the opponent's role and name."""
    role = c.role.split(",")[0]
    also = ", the baseline" if "baseline" in c.role and role != "baseline" else ""
    return role, f"trial {c.opponent}{also}"


def call_text(rec: ConfirmRecord, c: Comparison) -> str:
    """The winner against its first opponent, in words (no markup)."""
    lead = "—" if c.lead_pct is None else f"{signed(c.lead_pct)} %"
    ci = ci_text(c.ci95_pct)
    role, who = _who(c)
    if c.call == "confirmed":
        return f"best: trial {rec.winner} {lead} over the {role} ({who}; {ci}), confirmed"
    if c.call == "tie":
        return (
            f"a tie within noise with the {role} ({who}; {lead}, "
            f"{ci}{_under_min(c, rec.min_effect_pct)})"
        )
    if c.call == "overturned":
        return f"overturned: the {role} ({who}) measured faster: trial {rec.winner} {lead} ({ci})"
    return (
        f"inconclusive against the {role} ({who}): {c.pairs} of {rec.rounds} round(s) measured both"
    )


_CALL_STYLE = {"confirmed": "bold green", "tie": "yellow", "overturned": "red"}


def _headline(rec: ConfirmRecord, c: Comparison) -> str:
    style = _CALL_STYLE.get(c.call, "yellow")
    return f"[{style}]{call_text(rec, c)}[/]"


def _other(rec: ConfirmRecord, c: Comparison) -> str:
    lead = "—" if c.lead_pct is None else f"{signed(c.lead_pct)} %"
    said = {"confirmed": "beyond noise", "tie": "within noise", "overturned": "overturned"}
    tail = said.get(c.call, f"inconclusive ({c.pairs} of {rec.rounds} round(s))")
    return f"vs the {c.role} (trial {c.opponent}): {lead} ({ci_text(c.ci95_pct)}), {tail}"


def selection_text(rec: ConfirmRecord, unit: str) -> str | None:
    s = rec.selection
    if s is None or s.gap_pct is None:
        return None
    way = "above" if s.gap_pct >= 0 else "below"
    head = (
        f"selection error: the search's score ({_num(s.search_score, unit)}) was "
        f"{abs(s.gap_pct):.1f} % {way} what the confirmation measured "
        f"({_num(s.confirmed_score, unit)})"
    )
    if s.luck == "lucky":
        return f"{head}: a lucky sample"
    if s.luck == "unlucky":
        return f"{head}: an unlucky sample"
    if s.luck == "within":
        return f"{head}, within the confirmation's CI: no sign of a lucky pick"
    return f"{head} (too few legs for a CI)"


def confirm_lines(rec: ConfirmRecord, unit: str = "") -> list[str]:
    """The verdict: the contestants, the lead over the runner-up, the baseline, the
    selection error and the pick."""
    if rec.skipped:
        return [f"confirm: skipped — {escape(rec.skipped)}"]
    state = "" if rec.complete else " [yellow](interrupted: --resume finishes it)[/]"
    mins = "" if rec.minutes is None else f", {rec.minutes:.1f} min"
    out = [f"confirm: {rec.rounds} round(s), {len(rec.legs)} leg(s){mins}{state}"]
    out += [_contestant(c, unit) for c in rec.contestants]
    if rec.comparisons:
        out.append(_headline(rec, rec.comparisons[0]))
        out += [_other(rec, c) for c in rec.comparisons[1:]]
    sel = selection_text(rec, unit)
    if sel is not None:
        out.append(sel)
    if rec.pick is not None:
        out.append(f"[bold]pick: trial {rec.pick}[/] — {escape(rec.pick_by)}")
    elif rec.pick_by:
        out.append(f"[red]pick: {escape(rec.pick_by)}[/]")
    return out
