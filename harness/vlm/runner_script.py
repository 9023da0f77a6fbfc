"""The AICAS self-test procedure, call for call, run inside the participant's Python.

``harness vlm run`` starts this file as ``PYTHON runner_script.py --args``: it
imports only the standard library, torch, transformers (through the wrapper),
datasets and PIL — never harness — so it runs in the environment the
participant's ``evaluation_wrapper.py`` was written for. It writes one JSON line
per event to ``--records`` (flushed at once, so a crash or Ctrl-C keeps what was
measured): ``start`` (system info and settings), ``warmup``, one ``sample`` per
measured row, ``end``. Harness turns the lines into ``result.json`` and
``vlm.json``; the docs (docs/vlm.md) list what is official and what is harness's own.

The official order, per sample (docs/vlm.md, "The procedure"):
empty_cache + synchronize twice (CUDA only) → inputs built (not in TTFT; harness
times it as processor_ms) → synchronize, clock, generate(max_new_tokens=1),
synchronize, clock → empty_cache, synchronize, sleep 5 ms (CUDA only) →
synchronize, clock, generate(128) on the SAME inputs object, synchronize, clock
→ empty_cache + synchronize (CUDA only) → fresh inputs, generate(1024), decode.
The wrapper's ``processor``/``device``/``model`` properties are read before each
timed stretch, as the official script does; harness's own reads (CUDA events
recorded just outside the timed region, token ids, the image grid) come after
the two timed calls, so nothing runs between the inputs and the TTFT clock that
the official script does not run. The official
script calls ``torch.cuda.synchronize()`` unconditionally around the timed
calls, which fails on a CPU-only torch; here it is called only when CUDA is
present (the one deliberate difference, so the procedure runs on CPU tests).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import math
import os
import sys
import time
import traceback
from typing import Any

# Started as a script, this file's folder is sys.path[0]: harness's own modules
# there must never shadow a library the wrapper imports.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import torch

CUDA = torch.cuda.is_available()


def _system_info() -> dict[str, Any]:
    """``runner_system.py`` beside this file, loaded by path (its folder is off sys.path)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner_system.py")
    spec = importlib.util.spec_from_file_location("harness_runner_system", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info: dict[str, Any] = module.system_info()
    return info


def _sync() -> None:
    if CUDA:
        torch.cuda.synchronize()


def _clear() -> None:
    if CUDA:
        torch.cuda.empty_cache()
        torch.cuda.synchronize()


class Timer:
    """The official timed region, exactly: synchronize, clock, the call, synchronize, clock.

    On CUDA, events (harness's own) are recorded just OUTSIDE that region — the
    start before the first synchronize, the end after the last clock — so the
    wall time holds nothing the official script does not time. The GPU is idle
    at both marks, so the event time is the region's GPU-timeline length.
    """

    def __init__(self) -> None:
        self.start_ev = torch.cuda.Event(enable_timing=True) if CUDA else None
        self.end_ev = torch.cuda.Event(enable_timing=True) if CUDA else None
        self.t0 = 0.0
        self.wall_s = 0.0

    def __enter__(self) -> Timer:
        if self.start_ev is not None:
            self.start_ev.record()
        _sync()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        _sync()
        self.wall_s = time.perf_counter() - self.t0
        if self.end_ev is not None:
            self.end_ev.record()

    def event_ms(self) -> float | None:
        if self.start_ev is None or self.end_ev is None:
            return None
        self.end_ev.synchronize()
        return float(self.start_ev.elapsed_time(self.end_ev))


def build_inputs(processor: Any, device: Any, image: Any, question: str) -> Any:
    messages = [
        {
            "role": "user",
            "content": [{"type": "image", "image": image}, {"type": "text", "text": question}],
        }
    ]
    return processor.apply_chat_template(
        messages,
        tokenize=True,
        add_generation_prompt=True,
        return_dict=True,
        return_tensors="pt",
    ).to(device)


def generate(model: Any, inputs: Any, max_new_tokens: int) -> Any:
    with torch.no_grad():
        return model.generate(
            **inputs,
            max_new_tokens=max_new_tokens,
            do_sample=False,
            temperature=0.0,
            use_cache=True,
        )


def _err(stage: str, exc: BaseException) -> str:
    return f"{stage}: {type(exc).__name__}: {exc}".splitlines()[0][:500]


def _eos_ids(wrapper: Any) -> set[int]:
    ids: set[int] = set()
    for src in (
        getattr(wrapper.model, "generation_config", None),
        getattr(wrapper.model, "config", None),
    ):
        eos = getattr(src, "eos_token_id", None)
        if isinstance(eos, int):
            ids.add(eos)
        elif isinstance(eos, list | tuple):
            ids.update(int(e) for e in eos)
    return ids


def _attn_implementation(model: Any) -> str | None:
    """The attention implementation transformers resolved for the model (e.g. ``sdpa``)."""
    impl = getattr(getattr(model, "config", None), "_attn_implementation", None)
    return impl if isinstance(impl, str) else None


def _file_sha256(path: str) -> str | None:
    """The first 16 hex digits of a file's SHA-256 (the wrapper: what ran), None if unreadable."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:16]
    except OSError:
        return None


def _grid(inputs: Any, processor: Any) -> tuple[list[int] | None, int | None]:
    grid = inputs.get("image_grid_thw") if hasattr(inputs, "get") else None
    if grid is None:
        return None, None
    dims = [int(x) for x in grid[0].tolist()]
    merge = int(getattr(getattr(processor, "image_processor", None), "merge_size", 1) or 1)
    return dims, math.prod(dims) // (merge * merge)


def _ids(out: Any, start: int) -> list[int]:
    return [int(x) for x in out[0][start:].tolist()]


def measure_sample(
    wrapper: Any, sample: dict[str, Any], args: argparse.Namespace, eos: set[int]
) -> dict[str, Any]:
    """One sample in the official order; harness's own reads come after the timed calls."""
    rec: dict[str, Any] = {
        "type": "sample",
        "question_id": sample["question_id"],
        "index": sample["index"],
        "question": sample["question"],
        "answers": sample["answers"],
    }
    errors: list[str] = []
    _clear()  # the official loop clears before each sample ...
    processor, device, model = wrapper.processor, wrapper.device, wrapper.model
    _clear()  # ... and its measuring function again, once it has read the wrapper's properties
    try:
        t = time.perf_counter()
        inputs = build_inputs(processor, device, sample["image"], sample["question"])
        rec["processor_ms"] = (time.perf_counter() - t) * 1000
    except Exception as exc:  # the official script: the sample gets "" and no answer
        rec.update(error=_err("inputs", exc), prediction="", answer_generated=False, counted=False)
        traceback.print_exc()
        return rec
    input_len = int(inputs["input_ids"].shape[1])

    ttft_s = math.inf
    tput = 0.0
    out_ttft = out_tput = None
    timers: dict[str, Timer] = {}
    try:
        with Timer() as timers["ttft"]:
            out_ttft = generate(model, inputs, args.ttft_tokens)
        ttft_s = timers["ttft"].wall_s
    except Exception as exc:  # official: TTFT = inf, throughput 0; the answer is still made
        errors.append(_err("ttft", exc))
        traceback.print_exc()
        _clear()
    if math.isfinite(ttft_s):
        if CUDA:
            _clear()
            time.sleep(args.pause_s)
        try:
            with Timer() as timers["throughput"]:
                out_tput = generate(model, inputs, args.throughput_tokens)
            wall = timers["throughput"].wall_s
            n = int(out_tput[0][input_len:].shape[0])
            tput = n / wall if wall > args.min_time_s and n > 0 else 0.0
            rec["throughput_ms"] = wall * 1000
        except Exception as exc:
            errors.append(_err("throughput", exc))
            traceback.print_exc()
            _clear()
    # harness's own reads, after the timed calls (device-to-host copies, events)
    ttft_ids = _ids(out_ttft, input_len) if out_ttft is not None else []
    tput_ids = _ids(out_tput, input_len) if out_tput is not None else []
    for name, timer in timers.items():
        rec[f"{name}_event_ms"] = timer.event_ms()
    rec["input_tokens"] = input_len
    rec["image_grid_thw"], rec["visual_tokens"] = _grid(inputs, processor)
    rec["ttft_ms"] = ttft_s * 1000 if math.isfinite(ttft_s) else None
    rec["throughput_tokens"] = len(tput_ids)
    rec["tok_s"] = tput
    rec["counted"] = math.isfinite(ttft_s) and tput != 0.0
    rec["early_eos"] = (
        bool(tput_ids) and len(tput_ids) < args.throughput_tokens and tput_ids[-1] in eos
    )
    del inputs, out_ttft, out_tput

    _clear()
    answer_ids: list[int] = []
    try:
        processor, device, model = wrapper.processor, wrapper.device, wrapper.model
        t = time.perf_counter()
        fresh = build_inputs(processor, device, sample["image"], sample["question"])
        rec["answer_processor_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        out = generate(model, fresh, args.answer_tokens)
        answer_ids = _ids(out, int(fresh["input_ids"].shape[1]))
        rec["answer_ms"] = (time.perf_counter() - t) * 1000
        rec["prediction"] = processor.tokenizer.decode(
            answer_ids, skip_special_tokens=True, clean_up_tokenization_spaces=False
        )
        rec["answer_generated"] = True
    except Exception as exc:  # official: an empty prediction
        errors.append(_err("answer", exc))
        traceback.print_exc()
        rec.update(prediction="", answer_generated=False)
    rec["answer_tokens"] = len(answer_ids)
    # Greedy decoding of the same prompt must agree across the three calls.
    if ttft_ids and tput_ids:
        rec["ttft_token_matches"] = ttft_ids[0] == tput_ids[0]
    if tput_ids and answer_ids:
        k = min(len(tput_ids), len(answer_ids))
        rec["throughput_prefix_of_answer"] = tput_ids[:k] == answer_ids[:k]
    rec["error"] = "; ".join(errors) or None
    return rec


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="AICAS VLM self-test procedure (harness runner)")
    p.add_argument("--wrapper-dir", required=True)
    p.add_argument("--model-path", required=True)
    p.add_argument("--dataset-path", required=True)
    p.add_argument("--records", required=True, help="JSON-lines output file")
    p.add_argument("--num-samples", type=int, default=None)
    p.add_argument("--max-samples", type=int, default=5000)
    p.add_argument("--warmup-samples", type=int, default=10)
    p.add_argument("--warmup-tokens", type=int, default=10)
    p.add_argument("--ttft-tokens", type=int, default=1)
    p.add_argument("--throughput-tokens", type=int, default=128)
    p.add_argument("--answer-tokens", type=int, default=1024)
    p.add_argument("--pause-s", type=float, default=0.005)
    p.add_argument("--min-time-s", type=float, default=0.001)
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)

    records = open(args.records, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 (the run's)

    def emit(obj: dict[str, Any]) -> None:
        records.write(json.dumps(obj, ensure_ascii=False) + "\n")
        records.flush()
        os.fsync(records.fileno())

    if args.seed is not None:  # seeds only: never the sample order (as the official script)
        import random

        random.seed(args.seed)
        try:
            import numpy as np

            np.random.seed(args.seed)
        except ImportError:
            pass
        torch.manual_seed(args.seed)
        if CUDA:
            torch.cuda.manual_seed_all(args.seed)
    _clear()

    from datasets import load_from_disk

    dataset = load_from_disk(args.dataset_path)
    total = args.num_samples or min(args.max_samples, len(dataset))
    total = min(total, len(dataset))
    samples = []
    for i in range(total):
        item = dataset[i]
        qid = item.get("question_id", i)
        samples.append(
            {
                "index": i,
                "question_id": qid,
                "image": item["image"],
                "question": item["question"],
                "answers": [str(a) for a in item.get("answers") or []],
            }
        )

    info = _system_info()  # before the model loads, as the official script
    sys.path.insert(0, os.path.abspath(args.wrapper_dir))
    t = time.perf_counter()
    wrapper = importlib.import_module("evaluation_wrapper").VLMModel(args.model_path)
    load_s = time.perf_counter() - t
    ip = getattr(wrapper.processor, "image_processor", None)
    emit(
        {
            "type": "start",
            "system_info": info,
            "samples": total,
            "dataset_rows": len(dataset),
            "model_load_s": load_s,
            "device": str(wrapper.device),
            "model_dtype": str(getattr(wrapper.model, "dtype", "")),
            "transformers_version": importlib.import_module("transformers").__version__,
            "processor_class": type(wrapper.processor).__name__,
            "attn_implementation": _attn_implementation(wrapper.model),
            "wrapper_sha256": _file_sha256(os.path.join(args.wrapper_dir, "evaluation_wrapper.py")),
            "runner_args": {k: v for k, v in vars(args).items() if k != "records"},
            "processor_pixels": {
                "size": dict(getattr(ip, "size", None) or {}),
                "min_pixels": getattr(ip, "min_pixels", None),
                "max_pixels": getattr(ip, "max_pixels", None),
            },
        }
    )
    eos = _eos_ids(wrapper)
    for i in range(min(args.warmup_samples, len(samples))):
        rec: dict[str, Any] = {"type": "warmup", "index": i}
        try:  # as the official warm-up: the answer path with a short cap, decoded
            processor, device, model = wrapper.processor, wrapper.device, wrapper.model
            inputs = build_inputs(processor, device, samples[i]["image"], samples[i]["question"])
            t = time.perf_counter()
            ids = generate(model, inputs, args.warmup_tokens)
            processor.tokenizer.decode(
                ids[0][int(inputs["input_ids"].shape[1]) :],
                skip_special_tokens=True,
                clean_up_tokenization_spaces=False,
            )
            rec["ms"] = (time.perf_counter() - t) * 1000
        except Exception as exc:  # official: a warning, the run goes on
            rec["error"] = _err("warmup", exc)
        emit(rec)
    _clear()

    for sample in samples:
        try:
            emit(measure_sample(wrapper, sample, args, eos))
        except Exception as exc:  # a failing sample never aborts the run
            emit(
                {
                    "type": "sample",
                    "question_id": sample["question_id"],
                    "index": sample["index"],
                    "prediction": "",
                    "counted": False,
                    "error": _err("sample", exc),
                }
            )
    emit({"type": "end"})
    records.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
