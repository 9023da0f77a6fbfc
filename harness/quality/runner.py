"""One ``simple_evaluate`` per benchmark, as the grader calls it, plus what the grader does not keep.

Only the benchmarks: the quality core checks the data, waits for the server and
sets lm-eval's offline environment once, before the benchmarks (``suite.py: run_benchmarks``). Per benchmark: build the lm-eval model (``grader_lm`` or ``chat_lm``) on a shared
:class:`Transport`, run lm-eval with the grader's seeds, limit and shot count,
then score from lm-eval's results (``stats``), write per-sample JSONL and count
errors, retries, concurrency and thinking. lm-eval's own request cache is not
used: the harness caches answers itself (``cache``) so resume never breaks.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from harness.data.hf_cache import DataRoute, datasets_cache_dir
from harness.data.layout import render_tasks
from harness.errors import HarnessError
from harness.profiles import Benchmark
from harness.quality import lm_env
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
from harness.stats.summary import achieved_concurrency

log = logging.getLogger(__name__)


def build_lm(cfg: QualityConfig, bench: Benchmark, transport: Transport) -> Any:
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


def new_result(cfg: QualityConfig, bench: Benchmark) -> BenchmarkResult:
    """A benchmark's result before any request: what it is and how it will be asked."""
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
    return result


def evaluate(
    cfg: QualityConfig,
    bench: Benchmark,
    lm: Any,
    task_manager: Any,
    *,
    tasks: list[str] | None = None,
    samples: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    """One ``simple_evaluate`` as the grader calls it: its seeds, shots and limit.

    ``tasks`` + ``samples`` (lm-eval's document indices per task, instead of the limit)
    ask only those documents (``--decide``); everything else is the grader's call."""
    from lm_eval import simple_evaluate

    lm_env.install()  # lm-eval's environment report once per process, not per call
    spec = cfg.spec
    out = simple_evaluate(
        model=lm,
        tasks=tasks or [bench.task],
        num_fewshot=bench.num_fewshot,
        batch_size=spec.batch_size,
        limit=None if samples is not None else effective_limit(cfg.limit, bench.num_docs),
        samples=samples,
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
    if not isinstance(out, dict):
        raise TypeError("lm-eval returned no results")
    return out


def run_benchmark(
    cfg: QualityConfig,
    bench: Benchmark,
    task_manager: Any,
    transport: Transport,
) -> BenchmarkResult:
    """Every document under the limit, in one ``simple_evaluate`` (the official procedure)."""
    result = new_result(cfg, bench)
    lm = build_lm(cfg, bench, transport)
    started = time.perf_counter()
    try:
        out: dict[str, Any] | None = evaluate(cfg, bench, lm, task_manager)
    except (KeyboardInterrupt, HarnessError):
        raise
    except Exception as err:  # lm-eval raises many bare types; record it, keep the run going
        result.error = f"{type(err).__name__}: {err}"
        out = None
    result.wall_s = time.perf_counter() - started
    fill_counts(result, transport)
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
    write_benchmark_samples(cfg, bench, result, out.get("samples", {}), transport)
    return result


def write_benchmark_samples(
    cfg: QualityConfig,
    bench: Benchmark,
    result: BenchmarkResult,
    samples: dict[str, list[dict[str, Any]]],
    transport: Transport,
) -> None:
    """``samples_<benchmark>.jsonl``, and the thinking statistics of a thinking benchmark."""
    samples_path = cfg.folder / f"samples_{bench.name}.jsonl"
    by_prompt = {a.tag: a for a in transport.answers}
    extracted = write_samples(samples_path, samples, bench.metric, by_prompt)
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


def fill_counts(result: BenchmarkResult, transport: Transport) -> None:
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


def task_manager_for(cfg: QualityConfig, route: DataRoute, report: QualityReport) -> Any:
    """lm-eval's own task definitions on the HF cache (the grader's route), else the task
    YAMLs of ``tasks/lm_eval`` rendered for the data folder."""
    from lm_eval.tasks import TaskManager

    report.data_route = route
    if route == "hf-cache":
        report.data_dir = str(datasets_cache_dir())
        return TaskManager()
    tasks_dir = render_tasks(cfg.data_dir, cfg.folder / "lm_eval_tasks")
    return TaskManager(include_path=str(tasks_dir), include_defaults=False)


def new_transport(
    cfg: QualityConfig, bench: Benchmark, cache: ResponseCache | None, progress: ProgressSink
) -> Transport:
    spec = cfg.spec
    stream = cfg.stream and bench.thinking and bench.client == "grader"
    return Transport(
        TransportOptions(
            url=cfg.endpoint_url,
            # the identity whose answers this run reuses (resume.py: open_answers)
            fingerprint=cache.scope if cache is not None and cache.scope else cfg.endpoint_url,
            attempts=spec.attempts,
            retry_sleeps_s=tuple(spec.retry_sleeps_s),
            timeout_s=None if stream else spec.request_timeout_s,
            idle_timeout_s=cfg.idle_timeout_s if stream else None,
            concurrency=spec.num_concurrent,
            style="grader-lm" if bench.client == "grader" else "lm-eval",
        ),
        cache=cache,
        progress=progress,
    )
