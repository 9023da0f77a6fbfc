"""The audit core: a config in, one :class:`AuditReport` out, saved (docs/audit.md).

Per audited bucket: the grader's warm-ups (the repeated filler), then rounds of the
repeated filler and its two controls in rotating order, every request through the
grader's own client (urllib, ``json.dumps`` defaults, a new connection each), so the
only difference between a timed prompt and its control is the text; after the first,
the middle and the last timed round, the repeated prompt for one token
(``physically_possible``: spread, so one stall of a loaded machine cannot slow all three).
When the timed
rounds split (benchmark detection), a second set of rounds must confirm it; when both
split but one only narrowly, a third set decides. Then the
quality graders' items against light paraphrases (benchmark detection's quality half:
harness/audit/paraphrases/send.py). The server's ``/metrics`` is read before and after (a harness extra; a server without it
leaves the counter evidence inconclusive by design). Then the probe phase (one prompt in
the graders' two body shapes on their routes: harness/audit/probes/send.py). After each round and
each later phase, and on Ctrl-C, the samples so far are saved as a partial report
(harness/audit/resume.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import aiohttp

from harness.audit.answered import FIRST, all_failed_alike
from harness.audit.config import AuditConfig
from harness.audit.continuations.record import Continuation
from harness.audit.continuations.send import check_bucket
from harness.audit.hooks import NO_HOOKS, AuditHooks
from harness.audit.paraphrases.record import Asked
from harness.audit.paraphrases.send import run_paraphrases
from harness.audit.probes.record import Probe
from harness.audit.probes.send import run_probes
from harness.audit.report import AuditReport, Phase, Sample
from harness.audit.resume import COUNTERS_LEFT_OUT
from harness.audit.rule import Measured
from harness.audit.rules import chosen, judge_all, of_phase, wants_second_look, wants_third_look
from harness.audit.timed.possible import one_token_after
from harness.audit.timed.rules import POSSIBLE
from harness.audit.timed.send import Sender, sender
from harness.audit.timed.source import RoundSource, round_source
from harness.audit.workload import Workload
from harness.client.metrics import MetricsSnapshot, scrape
from harness.client.readiness import server_models, wait_ready
from harness.engines.read import counter_evidence, counter_map
from harness.errors import EXIT_FAIL, EXIT_OK, EXIT_TARGET, TargetError
from harness.grader_items import sample_sources
from harness.kinds.record import RunEnv
from harness.provenance import Provenance
from harness.tokenizer import load_tokenizer


async def _rounds(
    cfg: AuditConfig,
    w: Workload,
    source: RoundSource,
    send: Sender,
    phase: Phase,
    first: int,
    n: int,
    sink: list[Sample],
    hooks: AuditHooks,
    *,
    lead: bool = False,
    kept: frozenset[tuple[str, str, int, str]] = frozenset(),
    one_token: bool = False,
    saved: Callable[[], object] = lambda: None,
) -> None:
    """The rounds' requests, each appended to ``sink`` as it is answered (an interrupted
    audit keeps every one); ``kept``: (bucket, phase, round, role) an interrupted audit
    measured, not sent again; ``lead``: the audit's first requests, which stop it when
    every one fails alike; ``one_token``: the timed rounds, with the one-token requests
    between them (:func:`_one_token`); ``saved``: called after each round (the partial
    report written, so a ``kill -9`` loses one round at most)."""
    for index in range(first, first + n):
        prompts = source(index)
        if phase == "warmup":
            prompts = [p for p in prompts if p.role == "repeated"]
        for p in prompts:
            if (w.name, phase, index, p.role) in kept:
                continue
            a = await send(w, p.text)
            s = Sample(
                bucket=w.name, role=p.role, phase=phase, round=index,
                prompt_tokens=p.tokens, e2e_ms=a.e2e_ms, output_tokens=a.output_tokens,
                text_tokens=a.text_tokens, finish_reason=a.finish_reason, error=a.error,
                answer_digest=a.digest if cfg.temperature > 0 else None,
            )  # fmt: skip
            sink.append(s)
            hooks.sample(s)
            if lead and len(sink) == FIRST:
                await _stop_if_all_failed(cfg, [x.error for x in sink])
        if one_token:
            before = len(sink)
            await _one_token(w, source, send, sink, hooks, kept, first + n, index)
            if lead and before < FIRST <= len(sink):  # the first requests included these
                await _stop_if_all_failed(cfg, [x.error for x in sink[:FIRST]])
        saved()


async def _stop_if_all_failed(cfg: AuditConfig, errors: list[str | None]) -> None:
    """Raises TargetError with the fix when the audit's first requests all failed the same
    way (a model the server does not serve, a route it lacks): the rest would too, and a
    failed request is never evidence (harness/audit/answered.py)."""
    kind = all_failed_alike(errors)
    if kind is None:
        return
    head = f"the audit's first {FIRST} requests all failed: {kind}"
    if kind.startswith(("HTTP 404", "HTTP 405", "HTTP 501")):
        served: list[str] = []
        if cfg.client == "aiohttp":  # the timed body names the model (the sweep's chat body)
            async with aiohttp.ClientSession() as session:
                served = await server_models(session, cfg.url)
        if served and cfg.model not in served:
            raise TargetError(
                f"{head}: the server does not serve the model {cfg.model!r} "
                f"(it serves {', '.join(served)})",
                hint=f"pass --model {served[0]} (the grader's own model name is "
                f"{cfg.model!r}: serve it under that name for the graded run)",
            )
        raise TargetError(
            f"{head}: the server has no route {cfg.endpoint}",
            hint=f"serve {cfg.endpoint} (the grader sends its timed requests there), or "
            "check --url",
        )
    raise TargetError(head, hint="read the server's log for why it fails these requests")


async def _one_token(
    w: Workload,
    source: RoundSource,
    send: Sender,
    sink: list[Sample],
    hooks: AuditHooks,
    kept: frozenset[tuple[str, str, int, str]],
    rounds: int,
    after_round: int,
) -> None:
    """The repeated prompt for one token: the requests of the ``ONE_TOKEN_REQUESTS`` that
    go after timed round ``after_round`` of ``rounds`` (:func:`one_token_after`: spread, so
    one stall cannot slow them all), each ``round`` its own index (0, 1, 2: the resume key);
    its answer's cost without decode (``physically_possible``); ``kept`` as in
    :func:`_rounds`."""
    (rep,) = [p for p in source(0) if p.role == "repeated"]
    for index, at in enumerate(one_token_after(rounds)):
        if at != after_round or (w.name, "timed", index, "one_token") in kept:
            continue
        a = await send(replace(w, max_tokens=1), rep.text)
        s = Sample(
            bucket=w.name, role="one_token", phase="timed", round=index,
            prompt_tokens=rep.tokens, e2e_ms=a.e2e_ms, output_tokens=a.output_tokens,
            text_tokens=a.text_tokens, finish_reason=a.finish_reason, error=a.error,
        )  # fmt: skip
        sink.append(s)
        hooks.sample(s)


async def _counters(url: str) -> tuple[MetricsSnapshot | None, str | None]:
    async with aiohttp.ClientSession() as session:
        got = await scrape(session, url)
    return got.snapshot, got.note


def _delta(before: MetricsSnapshot, after: MetricsSnapshot) -> tuple[dict[str, float], str | None]:
    """The server's counters over the audit, read through its engine's record
    (harness/engines/): the figures, and why the request counter is missing when it is (an
    engine without one, llama.cpp's, gives no counter evidence, never a deficit)."""
    ev = counter_evidence(before.values, after.values)
    return counter_map(ev), ev.requests.note


async def measure_audit(
    cfg: AuditConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: AuditHooks = NO_HOOKS,
    partial: AuditReport | None = None,
) -> AuditReport:
    """Audit ``cfg.url`` and save ``folder/audit.json``; raises UnreachableError when the
    server never gets ready (nothing saved: nothing was measured). ``partial``: an
    interrupted audit's report, whose requests are kept and not sent again
    (harness/audit/resume.py)."""
    tok = load_tokenizer(cfg.tokenizer)
    hooks.waiting(cfg.url + cfg.ready_path)
    ready = await wait_ready(
        cfg.url, cfg.ready_path, interval_s=min(1.0, cfg.ready_timeout_s),
        timeout_s=cfg.ready_timeout_s, on_attempt=hooks.attempt,
        wait_for_start=cfg.wait_for_start,
    )  # fmt: skip
    hooks.ready(ready)
    start = time.monotonic()
    samples: list[Sample] = list(partial.samples) if partial else []
    probes: list[Probe] = list(partial.probes) if partial else []  # harness/audit/probes/send.py
    # complete outputs, per bucket (harness/audit/continuations/rule.py)
    checks: list[Continuation] = list(partial.continuations) if partial else []
    # benchmark detection's quality items (harness/audit/paraphrases/send.py)
    asked: list[Asked] = list(partial.paraphrases) if partial else []
    kept = frozenset((s.bucket, s.phase, s.round, s.role) for s in samples)
    checked = {c.bucket for c in checks}

    def report(complete: bool) -> AuditReport:
        chat = [cfg.chat_endpoint] if asked else []
        routes = list(dict.fromkeys([cfg.endpoint, *chat, *(p.route for p in probes)]))
        return AuditReport(
            url=cfg.url, endpoint=cfg.endpoint, routes=routes, seed=cfg.seed, complete=complete,
            readiness_s=ready.elapsed_s, wall_s=time.monotonic() - start,
            requests=len(samples) + len(probes) + len(asked) + sum(c.requests for c in checks),
            samples=samples, probes=probes, continuations=checks, paraphrases=asked,
            provenance=provenance,
        )  # fmt: skip

    def checkpoint() -> None:
        """The partial report, written after each round and each later phase: an audit
        killed outright (``kill -9``, the machine) keeps what it measured for ``--resume``."""
        report(False).save(folder)

    hooks.measuring(True)
    try:
        # a resumed audit leaves the counters out (harness/audit/resume.py)
        before, note = (None, COUNTERS_LEFT_OUT) if partial else await _counters(cfg.url)
        async with sender(cfg, tok) as send:
            for w in cfg.workloads:
                source = round_source(cfg, w, tok)
                warm, rounds = cfg.spec.warmup, cfg.spec.rounds
                lead = w is cfg.workloads[0] and partial is None
                steps: tuple[tuple[Phase, int], ...] = (("warmup", warm), ("timed", rounds))
                # physically_possible's one-token requests go between the timed rounds
                one = POSSIBLE in chosen(cfg.spec)
                for phase, n in steps:
                    await _rounds(
                        cfg, w, source, send, phase, 0, n, samples, hooks, lead=lead,
                        kept=kept, one_token=one and phase == "timed", saved=checkpoint,
                    )  # fmt: skip
                mine = Measured(
                    cfg.spec, buckets={w.name: [s for s in samples if s.bucket == w.name]}
                )
                # the rounds and their second set are sent whatever rules the profile names
                if wants_second_look(mine, "timed", among=of_phase("timed")):
                    await _rounds(
                        cfg, w, source, send, "confirm", rounds, rounds, samples, hooks,
                        kept=kept, saved=checkpoint,
                    )  # fmt: skip
                    # both looks split, one narrowly: a third set decides (its rounds
                    # 2 × rounds on: every round its own controls)
                    both = Measured(
                        cfg.spec, buckets={w.name: [s for s in samples if s.bucket == w.name]}
                    )
                    if wants_third_look(both, "timed", among=of_phase("timed")):
                        await _rounds(
                            cfg, w, source, send, "third", 2 * rounds, rounds, samples, hooks,
                            kept=kept, saved=checkpoint,
                        )  # fmt: skip
                if chosen(cfg.spec, "continuations") and w.name not in checked:
                    await check_bucket(cfg, w, tok, checks, hooks)
                    checkpoint()
        await run_paraphrases(cfg, tok, asked, hooks.asked)
        checkpoint()
        await run_probes(cfg, tok, probes, hooks.probe)
        after, note_after = (None, None) if partial else await _counters(cfg.url)
    except (KeyboardInterrupt, asyncio.CancelledError):
        hooks.partial(report(False).save(folder))
        raise
    finally:
        hooks.measuring(False)
    out = report(True)
    if before is not None and after is not None:
        out.counters, out.counters_note = _delta(before, after)
    else:
        out.counters_note = note or note_after
    by_bucket = {w.name: [s for s in samples if s.bucket == w.name] for w in cfg.workloads}
    if asked:  # the items asked were harness's samples where the data folder lacks them
        out.sample_items = sample_sources(cfg.data_dir)
    # every rule the profile names, one verdict each, in its order (harness/audit/rules.py)
    out.rules = judge_all(
        Measured(
            cfg.spec, by_bucket, out.counters, out.answered(), out.counters_note,
            cfg.temperature, out.failed(), probes=probes, usage_tolerance=cfg.usage_tolerance,
            continuations=checks, paraphrases=asked,
        )
    )  # fmt: skip
    for v in out.rules:
        hooks.verdict(v)
    out.save(folder)
    return out


def exit_code(report: AuditReport) -> int:
    """1 when a rule fails; 3 when a rule is inconclusive because its requests failed."""
    if not report.ok:
        return EXIT_FAIL
    return EXIT_TARGET if report.broken() else EXIT_OK


def run(cfg: AuditConfig, env: RunEnv[AuditHooks]) -> AuditReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return asyncio.run(
        measure_audit(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )


def finish(cfg: AuditConfig, env: RunEnv[AuditHooks], partial: AuditReport) -> AuditReport:
    """``harness audit --resume``: finish ``partial`` in its folder (harness/audit/resume.py)."""
    return asyncio.run(
        measure_audit(
            cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks, partial=partial
        )
    )
