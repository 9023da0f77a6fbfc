"""``harness quality --decide``: ask a benchmark's documents in a seeded random order and stop
once its gate decision is settled (docs/quality.md, "Deciding early").

The documents are the full run's: the first ``ceil(limit·n)`` of each task (of each
MMLU-Pro subject), read from lm-eval's own task objects. They are asked in rounds,
each round one ``simple_evaluate`` over that round's documents alone (lm-eval's
``samples`` argument) with everything else the grader's call, so every request body
is the one the full run sends and the answer cache serves a later full run without
asking again. After each round lm-eval's per-document scores feed the tests of
:mod:`harness.quality.decide_stats`; the benchmark stops at the first look that
settles its decision. Each round's end is a look, and the only looks: the exact test
of a right/wrong benchmark has its boundaries computed for that schedule. A set that
no answers could settle before its last document (``decide_reach.py``: a small one)
is asked in one round, as the plain run asks it. When every
document ends up asked, the score is lm-eval's own over the full set (answered from
the cache), exactly as the full run scores it.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.data.benchmarks import task_data
from harness.errors import ConfigError, HarnessError, ProtocolError
from harness.profiles import Benchmark
from harness.quality.config import QualityConfig
from harness.quality.decide_reach import earliest_decision
from harness.quality.decide_stats import ALPHA, Decider, Design, Stratum, look_every, schedule
from harness.quality.hooks import QualityHooks
from harness.quality.report import BenchmarkResult, DecideRecord, SettledBy
from harness.quality.runner import (
    build_lm,
    evaluate,
    fill_counts,
    new_result,
    new_transport,
    run_benchmark,
    write_benchmark_samples,
)
from harness.quality.stats import effective_limit
from harness.quality.transport import NoProgress, Transport


@dataclass(frozen=True)
class Leaf:
    """One lm-eval task of the benchmark and the weight of each document under the limit."""

    task: str
    weights: tuple[int, ...]


@dataclass(frozen=True)
class Ask:
    stratum: int
    leaf: int
    doc: int  # the document's index in its lm-eval task


@dataclass(frozen=True)
class Plan:
    design: Design
    leaves: tuple[Leaf, ...]
    order: tuple[Ask, ...]  # every document, in the order it is asked


def make_plan(bench: Benchmark, leaves: list[Leaf], seed: int, alpha: float = ALPHA) -> Plan:
    """Strata (score group × document weight), the fixed draw schedule, and each stratum
    shuffled by ``random.Random(f"{seed}:{bench.name}")``: the same seed, the same order."""
    grouped = bench.aggregate == "mean_of_subtasks"
    if not grouped and len(leaves) != 1:
        raise ConfigError(
            f"--decide cannot weigh {bench.name}: lm-eval scores its {len(leaves)} tasks as a group",
            hint="--decide takes single tasks and aggregate = mean_of_subtasks",
        )
    strata: list[Stratum] = []
    members: list[list[tuple[int, int]]] = []
    for li, leaf in enumerate(leaves):
        for k in sorted(set(leaf.weights)):
            docs = [(li, d) for d, w in enumerate(leaf.weights) if w == k]
            strata.append(Stratum(li if grouped else 0, k, len(docs)))
            members.append(docs)
    design = Design(tuple(strata), bench.threshold, len(leaves) if grouped else 1, alpha)
    rng = random.Random(f"{seed}:{bench.name}")
    for docs in members:
        rng.shuffle(docs)
    taken = [0] * len(members)
    order: list[Ask] = []
    for h in schedule(design):
        li, doc = members[h][taken[h]]
        taken[h] += 1
        order.append(Ask(h, li, doc))
    return Plan(design, tuple(leaves), tuple(order))


def doc_values(
    samples: Mapping[str, list[dict[str, Any]]], metric: str
) -> dict[tuple[str, int], tuple[int, int]]:
    """``(task, doc_id) → (c, k)`` from lm-eval's logged samples: ``c`` of ``k`` right (a
    list metric such as IFEval's instructions), or ``k = 1`` for a right/wrong document."""
    name, _, filter_name = metric.partition(",")
    out: dict[tuple[str, int], tuple[int, int]] = {}
    for task, rows in samples.items():
        for row in rows:
            if row.get("filter") != filter_name:
                continue
            value = row.get(name)
            if isinstance(value, list):
                out[(task, int(row["doc_id"]))] = (sum(bool(v) for v in value), len(value))
            elif value in (0, 1):  # True/False, 0/1, 0.0/1.0
                out[(task, int(row["doc_id"]))] = (int(value), 1)
            else:
                raise ProtocolError(
                    f"--decide needs right/wrong document scores; {task} gave {name}={value!r}"
                )
    return out


def _leaf_tasks(tree: Mapping[Any, Any]) -> Iterator[tuple[str, Any]]:
    for key, value in tree.items():
        if isinstance(value, Mapping):
            yield from _leaf_tasks(value)
        else:
            yield str(key), value


def leaf_documents(cfg: QualityConfig, bench: Benchmark, task_manager: Any) -> list[Leaf]:
    """The benchmark's lm-eval tasks, in the score's group order, with the documents the
    full run asks (its limit) and their weights (IFEval: instructions per prompt)."""
    from lm_eval.evaluator_utils import get_sample_size
    from lm_eval.tasks import get_task_dict

    spec = cfg.spec
    # seeded as simple_evaluate seeds before it loads the tasks: GPQA shuffles its choices
    # while loading, and datasets may cache that shuffle for every later run
    random.seed(spec.random_seed)
    np.random.seed(spec.numpy_random_seed)
    tree = get_task_dict([bench.task], task_manager)
    limit = effective_limit(cfg.limit, bench.num_docs)
    field = task_data(bench.task).weight_field
    leaves: list[Leaf] = []
    for name, task in _leaf_tasks(tree):
        docs = task.eval_docs
        count = len(docs) if limit is None else min(len(docs), get_sample_size(task, limit))
        weights = tuple(len(docs[i][field]) if field else 1 for i in range(count))
        leaves.append(Leaf(name, weights))
    return leaves


def run_decided(
    cfg: QualityConfig,
    bench: Benchmark,
    task_manager: Any,
    transport: Transport,
    hooks: QualityHooks,
) -> BenchmarkResult:
    """One benchmark under ``--decide``: rounds of documents until the decision is settled."""
    assert cfg.seed is not None  # QualityConfig refuses --decide without one
    result = new_result(cfg, bench)
    started = time.perf_counter()
    try:
        plan = make_plan(bench, leaf_documents(cfg, bench, task_manager), cfg.seed)
    except (KeyboardInterrupt, HarnessError):
        raise
    except Exception as err:  # lm-eval's task loading raises many bare types
        result.error = f"{type(err).__name__}: {err}"
        return result
    design, total = plan.design, plan.design.total
    every = look_every(total, cfg.spec.num_concurrent)
    if earliest_decision(design, every) is None:
        # no answers could settle it before the last document: one round, the plain run
        hooks.note(
            f"{bench.title}: undecided until all {total} documents are answered: "
            "asking them in one round"
        )
        return _one_round(cfg, bench, task_manager, transport)
    lm = build_lm(cfg, bench, transport)
    dec = Decider(design, every=every)  # the exact test's looks: the ends of these rounds
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    asked = looks = side = 0
    settled_by: SettledBy = "risk"
    risk = 1.0
    while asked < total and side == 0:
        batch = plan.order[asked : asked + every]
        docs: dict[str, list[int]] = defaultdict(list)
        for a in batch:
            docs[plan.leaves[a.leaf].task].append(a.doc)
        try:
            out = evaluate(
                cfg,
                bench,
                lm,
                task_manager,
                tasks=list(docs),
                samples={t: sorted(d) for t, d in docs.items()},
            )
        except (KeyboardInterrupt, HarnessError):
            raise
        except Exception as err:  # as run_benchmark: record it, keep the run going
            result.error = f"{type(err).__name__}: {err}"
            break
        samples = out.get("samples", {})
        values = doc_values(samples, bench.metric)
        for task, task_rows in samples.items():
            rows[task].extend(task_rows)
        for a in batch:
            task = plan.leaves[a.leaf].task
            c, k = values.get((task, a.doc), (-1, -1))
            if k != design.strata[a.stratum].weight:
                raise ProtocolError(f"lm-eval scored {task} document {a.doc} as {c}/{k}")
            dec.add(a.stratum, c)
        asked += len(batch)
        looks += 1
        look = dec.look()
        decision = look.decision()
        side = int(decision[0])
        settled_by = "certain" if side and int(look.certain[0]) == side else "risk"
        risk = float(look.risk(decision if side else _lean(dec))[0])
        if any(ans.grader_abort for ans in transport.answers):
            side, settled_by = -1, "grader_abort"  # the grader's run dies: FAIL, no score
        hooks.looked(bench, asked, total, risk)
    fill_counts(result, transport)
    result.wall_s = time.perf_counter() - started
    if result.error is not None:
        return result
    if asked >= total and settled_by != "grader_abort":
        return _complete(cfg, bench, task_manager, transport, looks, started)
    settled = np.array([side if settled_by != "grader_abort" else 0], dtype=np.int8)
    low, high = (float(v[0]) for v in dec.interval(settled))
    estimate = float(dec.estimate()[0])
    result.decide = DecideRecord(
        asked=asked,
        total=total,
        decision="pass" if side > 0 else "fail",
        settled_by=settled_by,
        risk=None if settled_by == "grader_abort" else risk,
        alpha=design.alpha,
        projected=estimate,
        ci_low=low,
        ci_high=high,
        looks=looks,
    )
    result.set_score(estimate)
    result.n = asked
    if design.n_groups > 1:
        result.subtasks = _leaf_means(plan, dec)
    write_benchmark_samples(cfg, bench, result, dict(rows), transport)
    return result


def _lean(dec: Decider) -> NDArray[np.int8]:
    """The side the estimate leans to (for the risk shown while still open)."""
    return np.where(dec.estimate() >= dec.design.b, 1, -1).astype(np.int8)


def _leaf_means(plan: Plan, dec: Decider) -> dict[str, float]:
    sums: dict[str, list[float]] = {leaf.task: [0.0, 0.0] for leaf in plan.leaves}
    for h, s in enumerate(plan.design.strata):
        task = plan.leaves[s.group].task
        sums[task][0] += float(dec.sum_c[0, h])
        sums[task][1] += float(dec.taken[h] * s.weight)
    return {t: c / k for t, (c, k) in sums.items() if k}


def _one_round(
    cfg: QualityConfig, bench: Benchmark, task_manager: Any, transport: Transport
) -> BenchmarkResult:
    """Every document in one ``simple_evaluate`` (the official call), recorded as decided
    on the complete set."""
    result = run_benchmark(cfg, bench, task_manager, transport)
    if result.score is not None:
        result.decide = _complete_record(result, looks=1)
    return result


def _complete_record(result: BenchmarkResult, looks: int) -> DecideRecord:
    assert result.score is not None
    return DecideRecord(
        asked=result.n,
        total=result.n,
        decision="pass" if result.passed else "fail",
        settled_by="complete",
        alpha=ALPHA,
        projected=result.score,
        ci_low=result.score,
        ci_high=result.score,
        looks=looks,
    )


def _complete(
    cfg: QualityConfig,
    bench: Benchmark,
    task_manager: Any,
    transport: Transport,
    looks: int,
    started: float,
) -> BenchmarkResult:
    """Every document was asked: the full run's own evaluation, all answers from the cache,
    so the score is exactly the full run's; the requests counted are the rounds' own."""
    again = new_transport(cfg, bench, transport.cache, NoProgress())
    result = run_benchmark(cfg, bench, task_manager, again)
    fill_counts(result, transport)
    result.wall_s = time.perf_counter() - started
    if result.score is not None:
        result.decide = _complete_record(result, looks)
    return result
