"""Run the selected checks against one server and return the CheckReport.

Order (docs/check.md): readiness first (an unreachable server stops the run);
then the ``light`` checks side by side (few requests in flight) with the long
prompt in the ``background``; then the ``quiet`` checks one by one (they compare
greedy texts, which batching with other requests could perturb); then each
``load`` check alone. A check whose prerequisite failed is skipped, not failed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict

import aiohttp

from harness.client.http import HttpOptions, make_session
from harness.client.readiness import server_models
from harness.conformance.context import CheckConfig, CheckContext
from harness.conformance.readiness import ReadyObservation, observe_ready
from harness.conformance.registry import PlannedCheck
from harness.conformance.report import Check, CheckReport, Outcome, failed, skipped
from harness.errors import HarnessError, UnreachableError
from harness.provenance import Provenance, with_facts
from harness.tokenizer import Tokenizer

OnResult = Callable[[Check], None]


def resolve_needs(needs: tuple[str, ...], cfg: CheckConfig) -> tuple[str, ...]:
    """``@chat`` is the check of the endpoint the graders send chat bodies to."""
    chat = "invocations_chat" if cfg.chat_endpoint == "/invocations" else "chat_completions"
    return tuple(chat if n == "@chat" else n for n in needs)


def choose_model(cfg: CheckConfig, served: list[str]) -> str:
    """The name chat bodies carry: --model, else the graders' name if served, else the
    server's first (so only ``model_name`` judges the graders' name)."""
    if cfg.model:
        return cfg.model
    if not served or cfg.graders_model in served:
        return cfg.graders_model
    return served[0]


class Runner:
    def __init__(
        self, ctx: CheckContext, planned: list[PlannedCheck], on_result: OnResult | None
    ) -> None:
        self.ctx = ctx
        self.planned = planned
        self.on_result = on_result
        self.names = {p.name for p in planned}
        self.done = {p.name: asyncio.Event() for p in planned}
        self.checks: dict[str, Check] = {}

    async def run_one(self, item: PlannedCheck) -> None:
        needs = [n for n in resolve_needs(item.spec.needs, self.ctx.cfg) if n in self.names]
        for name in needs:
            if name != item.name:
                await self.done[name].wait()
        start = time.perf_counter()
        broken = self.ctx.failed_dependency(tuple(needs))
        if broken:
            outcome = skipped(f"not judged: {broken} failed")
        else:
            try:
                outcome = await item.run(self.ctx)
            except HarnessError as err:  # e.g. a tokenizer that cannot build the long prompt
                outcome = failed(err.one_line())
        self.ctx.outcomes[item.name] = outcome
        self._record(item, outcome, (time.perf_counter() - start) * 1000)
        self.done[item.name].set()

    def _record(self, item: PlannedCheck, outcome: Outcome, ms: float) -> None:
        title = item.spec.title
        if item.param is not None:
            title = title.replace("N ", f"{item.param} ")
        check = Check(
            name=item.name,
            group=item.spec.group,
            title=title,
            required=item.name in self.ctx.cfg.required,
            result=outcome.result,
            reason=outcome.reason,
            evidence=outcome.evidence,
            details=outcome.details,
            duration_ms=round(ms, 1),
        )
        self.checks[item.name] = check
        if self.on_result:
            self.on_result(check)

    def phase(self, *names: str) -> list[PlannedCheck]:
        return [p for p in self.planned if p.spec.phase in names]

    async def run(self) -> list[Check]:
        for item in self.phase("first"):
            await self.run_one(item)
        await asyncio.gather(*(self.run_one(p) for p in self.phase("light", "background")))
        for item in self.phase("quiet"):
            await self.run_one(item)
        for item in self.phase("load"):
            await self.run_one(item)
        return [self.checks[p.name] for p in self.planned]


def unreachable(obs: ReadyObservation, base_url: str) -> UnreachableError:
    return UnreachableError(
        f"{base_url} is unreachable: GET {obs.url} for {obs.elapsed_s:.0f} s "
        f"({obs.attempts} attempts, last: {obs.last}), then GET {base_url}/v1/models: no answer",
        hint="is the server running? check --url and the port",
    )


async def run_checks(
    cfg: CheckConfig,
    planned: list[PlannedCheck],
    tokenizer: Tokenizer,
    long_tokenizer: Tokenizer,
    *,
    provenance: Provenance | None = None,
    session: aiohttp.ClientSession | None = None,
    on_result: OnResult | None = None,
    on_attempt: Callable[[int, float, str], None] | None = None,
) -> CheckReport:
    """Run ``planned`` against ``cfg.url``. Raises UnreachableError when nothing answers.
    ``on_attempt`` hears each readiness poll that is not ready (client/readiness.py)."""
    start = time.perf_counter()
    own = session is None
    sess = session or make_session(HttpOptions(timeout_s=cfg.timeout_s, connect_timeout_s=10.0))
    try:
        ctx = CheckContext(
            cfg, sess, tokenizer, long_tokenizer, model=cfg.model or cfg.graders_model
        )
        ctx.on_attempt = on_attempt
        obs: ReadyObservation = await ctx.memo("ready", lambda: observe_ready(ctx))
        if not obs.reachable:
            raise unreachable(obs, cfg.url)
        served = await server_models(sess, cfg.url)
        ctx.model = choose_model(cfg, served)
        checks = await Runner(ctx, planned, on_result).run()
    finally:
        if own:
            await sess.close()
    prov = with_facts(
        provenance or Provenance(), url=cfg.url, tokenizer=tokenizer.name, server_models=served
    )
    settings = {k: v for k, v in asdict(cfg).items() if k not in ("checks", "required")}
    return CheckReport(
        url=cfg.url,
        model=ctx.model,
        tokenizer=tokenizer.name,
        server_tokenize=bool(ctx.server_tokenize),
        readiness_s=round(obs.elapsed_s, 3) if obs.ready else None,
        wall_s=round(time.perf_counter() - start, 2),
        settings=settings,
        checks=checks,
        provenance=prov,
    )
