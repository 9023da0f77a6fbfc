"""One ``simple_evaluate`` per benchmark, as the grader calls it, plus what the grader does not keep.

Per benchmark: build the lm-eval model (``grader_lm`` or ``chat_lm``) on a shared
:class:`Transport`, run lm-eval with the grader's seeds, limit and shot count,
then score from lm-eval's results (``stats``), write per-sample JSONL and count
errors, retries, concurrency and thinking. lm-eval's own request cache is not
used: the harness caches answers itself (``cache``) so resume never breaks.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import aiohttp

from harness.client.readiness import ReadyResult, probe, wait_ready
from harness.data.hf_cache import DataRoute, choose_route, datasets_cache_dir, missing_from_cache
from harness.data.layout import render_tasks, require_data
from harness.data.punkt import ensure_punkt
from harness.errors import DataMissingError, HarnessError, UnreachableError
from harness.profiles import Benchmark
from harness.quality.cache import ResponseCache
from harness.quality.config import QualityConfig
from harness.quality.report import BenchmarkResult, QualityReport, ThinkingSummary
from harness.quality.samples import write_samples
from harness.quality.stats import (
    benchmark_score,
    effective_limit,
    other_metrics,
    thinking_stats,
)
from harness.quality.transport import ProgressSink, Transport, TransportOptions
from harness.stats import achieved_concurrency

log = logging.getLogger(__name__)
ProgressFactory = Callable[[Benchmark], ProgressSink]
GRADER_PING_TIMEOUT_S = 5.0  # urlopen(f"{url}/ping", timeout=5) before the benchmarks


def cache_identity(cfg: QualityConfig) -> str:
    """The cache key's server identity, taken without asking the server anything.

    The grader's quality script sends nothing but one ``GET /ping`` before its
    benchmarks, so neither does harness: the URL, endpoint and the body's model
    name from the profile stand in for the server's own model list.
    """
    return f"{cfg.endpoint_url}|{cfg.model_name}"


async def wait_until_ready(cfg: QualityConfig) -> ReadyResult:
    """One ``GET /ping`` as the grader's quality script sends it, or polls when asked to
    (``ready_timeout_s > 0``: every ``ready_interval_s``; on a ready server that is still
    exactly one ``GET /ping``)."""
    ready_path = cfg.profile.server.ready_path
    if cfg.ready_timeout_s > 0:
        return await wait_ready(
            cfg.url, ready_path, interval_s=cfg.ready_interval_s, timeout_s=cfg.ready_timeout_s
        )
    url = cfg.url.rstrip("/") + ready_path
    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        seen = await probe(session, url, timeout_s=GRADER_PING_TIMEOUT_S)
    if not (seen.isdigit() and 200 <= int(seen) < 300):  # urllib raises on any other status
        raise UnreachableError(
            f"{url} is not ready: {seen}",
            hint="start the server first (the grader's quality run pings once and stops), or check --url",
        )
    return ReadyResult(
        url=url, ready=True, elapsed_s=time.perf_counter() - started, attempts=1, last=seen
    )


def _offline_env(cfg: QualityConfig) -> None:
    # lm-eval and datasets must never reach the network; IFEval's scorer finds punkt here.
    for var in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ[var] = "1"
    os.environ["TQDM_DISABLE"] = "1"  # our own progress bars replace lm-eval's
    os.environ["NLTK_DATA"] = str(cfg.nltk_data)
    import nltk

    if str(cfg.nltk_data) not in nltk.data.path:
        nltk.data.path.insert(0, str(cfg.nltk_data))


def preflight(cfg: QualityConfig) -> DataRoute:
    """Everything that can fail before the first request: data, punkt_tab (written if missing).

    Returns the data route."""
    tasks = [b.task for b in cfg.benchmarks()]
    route = choose_route(tasks, cfg.data_route)
    if route == "hf-cache":
        missing = missing_from_cache(tasks)
        if missing:
            names = ", ".join(src.hf_path for src in missing)
            raise DataMissingError(
                f"not in the Hugging Face datasets cache ({datasets_cache_dir()}): {names}",
                hint="load them once online with HF_HOME set, or use the data folder route",
            )
    else:
        require_data(cfg.data_dir, tasks)
    if any(t.startswith("ifeval") for t in tasks):
        ensure_punkt(cfg.nltk_data)
    return route


def _build_lm(cfg: QualityConfig, bench: Benchmark, transport: Transport) -> Any:
    spec, server = cfg.spec, cfg.profile.server
    if bench.client == "grader":
        from harness.quality.grader_lm import GraderLM

        return GraderLM(
            model=cfg.model,  # None unless set: the grader's body has no "model"
            thinking=bench.thinking,
            thinking_on=server.thinking_on,
            thinking_off=server.thinking_off,
            cap_off=spec.cap_thinking_off,
            cap_on=spec.cap_thinking_on,
            max_gen_toks=cfg.max_gen_toks,
            stream=cfg.stream and bench.thinking,
            transport=transport,
        )
    from harness.quality.chat_lm import HarnessChatCompletions

    return HarnessChatCompletions(
        model=cfg.model_name,
        base_url=cfg.endpoint_url,
        num_concurrent=spec.num_concurrent,
        tokenized_requests=False,
        eos_string=spec.eos_string,
        timeout=int(spec.mmlu_timeout_s),
        transport=transport,
    )


def _gen_kwargs(cfg: QualityConfig, bench: Benchmark) -> dict[str, Any] | None:
    """What the grader passes as gen_kwargs: nothing for MMLU-Pro, ``top_p`` for Paris GSM8K.

    local-chat-completions forwards unknown gen_kwargs keys into the body
    unchanged, so no thinking switch is added: the grader's MMLU-Pro bodies carry
    none (a server that thinks by default thinks there; ``harness check`` warns).
    """
    if bench.client == "grader":
        return None
    out: dict[str, Any] = {}
    if bench.top_p is not None:
        out["top_p"] = bench.top_p
    if cfg.max_gen_toks is not None:
        out["max_gen_toks"] = cfg.max_gen_toks  # never max_tokens: lm-eval would drop the cap
    return out or None


def _count_tokens(cfg: QualityConfig) -> Callable[[str], int] | None:
    try:
        from harness.tokenizer import load_tokenizer

        return load_tokenizer(cfg.profile.server.tokenizer).count
    except (HarnessError, ImportError, OSError) as err:
        log.warning("no tokenizer for thinking statistics: %s", err)
        return None


def run_benchmark(
    cfg: QualityConfig,
    bench: Benchmark,
    task_manager: Any,
    transport: Transport,
) -> BenchmarkResult:
    from lm_eval import simple_evaluate

    spec = cfg.spec
    result = BenchmarkResult(
        name=bench.name,
        title=bench.title,
        task=bench.task,
        metric=bench.metric,
        threshold=bench.threshold,
        baseline=bench.baseline,
        thinking=bench.thinking,
        client=bench.client,
        stream=cfg.stream and bench.thinking and bench.client == "grader",
    )
    if bench.client == "grader":
        cap = spec.cap_thinking_on if bench.thinking else spec.cap_thinking_off
        result.max_tokens_official = cap
    lm = _build_lm(cfg, bench, transport)
    started = time.perf_counter()
    try:
        out = simple_evaluate(
            model=lm,
            tasks=[bench.task],
            num_fewshot=bench.num_fewshot,
            batch_size=spec.batch_size,
            limit=effective_limit(cfg.limit, bench.num_docs),
            random_seed=spec.random_seed,
            numpy_random_seed=spec.numpy_random_seed,
            torch_random_seed=spec.torch_random_seed,
            fewshot_random_seed=spec.torch_random_seed,
            apply_chat_template=bench.client == "local-chat-completions",
            gen_kwargs=_gen_kwargs(cfg, bench),
            task_manager=task_manager,
            log_samples=True,
            bootstrap_iters=0,  # stderr only; never changes a score, costs minutes of CPU
        )
    except (KeyboardInterrupt, HarnessError):
        raise
    except Exception as err:  # lm-eval raises many bare types; record it, keep the run going
        result.error = f"{type(err).__name__}: {err}"
        out = None
    result.wall_s = time.perf_counter() - started
    _fill_counts(result, transport)
    if out is None:
        return result
    results, groups = out["results"], out.get("group_subtasks", {})
    try:
        raw, result.subtasks = benchmark_score(
            results, groups, bench.task, bench.metric, bench.aggregate
        )
    except HarnessError as err:
        result.error = err.one_line()
        return result
    result.set_score(raw)
    names = list(result.subtasks) or [bench.task]
    result.n = sum(int(out.get("n-samples", {}).get(n, {}).get("effective", 0)) for n in names)
    result.other_metrics = other_metrics(results.get(bench.task, {}), bench.metric)
    samples_path = cfg.folder / f"samples_{bench.name}.jsonl"
    by_prompt = {a.tag: a for a in transport.answers}
    extracted = write_samples(samples_path, out.get("samples", {}), bench.metric, by_prompt)
    result.samples_file = samples_path.name
    if bench.thinking:
        stats = thinking_stats(
            [
                (a.content, a.reasoning, a.finish_reason, a.completion_tokens)
                for a in transport.answers
            ],
            think_close=cfg.profile.server.think_close,
            count_tokens=_count_tokens(cfg),
            extracted=extracted,
        )
        result.thinking_stats = ThinkingSummary(**stats.__dict__)
    return result


def _fill_counts(result: BenchmarkResult, transport: Transport) -> None:
    answers = transport.answers
    result.requests = len(answers)
    result.cached = sum(a.cached for a in answers)
    result.errors = sum(not a.ok for a in answers)
    result.retries = sum(max(0, a.attempts - 1) for a in answers)
    result.empty_answers = sum(a.content == "" for a in answers)
    result.error_kinds = dict(Counter(k for a in answers for k in a.error_kinds))
    peak, mean = achieved_concurrency([(i.start_ns, i.end_ns) for i in transport.intervals])
    result.concurrency_max, result.concurrency_mean = peak, round(mean, 2)
    sent = sorted({a.max_tokens for a in answers if a.max_tokens is not None})
    result.max_tokens_sent = sent[-1] if sent else None
    aborts = [a.grader_abort for a in answers if a.grader_abort]
    result.grader_aborts = len(aborts)
    result.grader_abort = aborts[0] if aborts else None


def run_quality(
    cfg: QualityConfig,
    report: QualityReport,
    progress_for: ProgressFactory,
    *,
    wait: bool = True,
) -> QualityReport:
    """Run every benchmark in order; ``report`` is filled (and saved) as each one ends.

    ``wait=False``: the caller (the quality core) already waited with
    :func:`wait_until_ready`."""
    route = preflight(cfg)
    _offline_env(cfg)
    if wait:
        asyncio.run(wait_until_ready(cfg))
    fingerprint = cache_identity(cfg)
    report.server_fingerprint = fingerprint  # harness's own label: endpoint|model, not asked
    report.provenance.tokenizer = cfg.profile.server.tokenizer
    from lm_eval.tasks import TaskManager

    report.data_route = route
    if route == "hf-cache":  # lm-eval's own task definitions, as the grader loads them
        task_manager = TaskManager()
        report.data_dir = str(datasets_cache_dir())
    else:
        tasks_dir = render_tasks(cfg.data_dir, cfg.folder / "lm_eval_tasks")
        task_manager = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    cache = ResponseCache(cfg.folder / "cache" / "answers.sqlite")
    if not cfg.resume:
        cache.clear()
    started = time.perf_counter()
    spec = cfg.spec
    try:
        for bench in cfg.benchmarks():
            stream = cfg.stream and bench.thinking and bench.client == "grader"
            transport = Transport(
                TransportOptions(
                    url=cfg.endpoint_url,
                    fingerprint=fingerprint,
                    attempts=spec.attempts,
                    retry_sleeps_s=tuple(spec.retry_sleeps_s),
                    timeout_s=None if stream else spec.request_timeout_s,
                    idle_timeout_s=cfg.idle_timeout_s if stream else None,
                    concurrency=spec.num_concurrent,
                    style="grader-lm" if bench.client == "grader" else "lm-eval",
                ),
                cache=cache,
                progress=progress_for(bench),
            )
            report.benchmarks.append(run_benchmark(cfg, bench, task_manager, transport))
            report.wall_s = time.perf_counter() - started
            report.save(cfg.folder)
    finally:
        cache.close()
    report.passed = report.verdict()
    report.complete = all(b.error is None for b in report.benchmarks)
    report.wall_s = time.perf_counter() - started
    report.save(cfg.folder)
    return report
