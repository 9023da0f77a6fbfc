"""The in-process audit's child: the participant's wrapper asked about changed inputs.

``harness vlm audit`` starts this file as ``PYTHON script.py --args`` in the participant's
Python, like the benchmark runner (harness/vlm/runner_script.py, whose ``build_inputs``
and ``generate`` it loads by path: the same message, the same ``apply_chat_template`` and
the same ``generate`` keywords as the benchmark's answer call). It imports only the
standard library, torch, datasets and PIL, never harness. For each row of its set, four
answers, each from fresh inputs with the wrapper's ``processor``/``device``/``model`` read
anew (as the benchmark does):

- ``original``: the row's image and question, as the benchmark asks it;
- ``other_image``: the row's question on its partner's image;
- ``blank_image``: the row's question on a mid-grey image of the row's size;
- ``other_question``: the partner's question on the row's image.

The partner is the next row of the set (cyclically) with another question and another
image. One JSON line per answer (``probe``), flushed at once; ``start`` and ``end`` around.
The first set is the first ``--count`` rows; after its ``set_end`` the script reads one
line from stdin, and only when harness answers ``second`` (the first set split) asks the
next ``--count`` rows, a second, independent set, with the model already loaded.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from typing import Any

# Started as a script, this file's folder is sys.path[0]: harness's own modules
# there must never shadow a library the wrapper imports.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

BLANK_RGB = (128, 128, 128)
VARIANTS = ("original", "other_image", "blank_image", "other_question")
SECOND = "second"  # harness's answer after the first set: ask the next rows too


def _runner() -> Any:
    """``runner_script.py`` (the benchmark's calls), loaded by path: its folder is off sys.path."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "runner_script.py")
    spec = importlib.util.spec_from_file_location("harness_vlm_runner", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _digest(image: Any) -> str:
    return hashlib.sha256(image.tobytes()).hexdigest()[:16] + f"{image.size}"


def partners(rows: list[dict[str, Any]]) -> list[int | None]:
    """Each row's partner: the next row (cyclically) with another question and another image."""
    out: list[int | None] = []
    for k, row in enumerate(rows):
        found = None
        for step in range(1, len(rows)):
            j = (k + step) % len(rows)
            other = rows[j]
            if other["question"] != row["question"] and other["digest"] != row["digest"]:
                found = j
                break
        out.append(found)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="AICAS VLM audit: answers on changed inputs")
    p.add_argument("--wrapper-dir", required=True)
    p.add_argument("--model-path", required=True)
    p.add_argument("--dataset-path", required=True)
    p.add_argument("--records", required=True, help="JSON-lines output file")
    p.add_argument("--count", type=int, required=True, help="rows per set")
    p.add_argument("--answer-tokens", type=int, default=1024)
    args = p.parse_args(argv)

    rs = _runner()
    records = open(args.records, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 (the run's)

    def emit(obj: dict[str, Any]) -> None:
        records.write(json.dumps(obj, ensure_ascii=False) + "\n")
        records.flush()
        os.fsync(records.fileno())

    from datasets import load_from_disk
    from PIL import Image

    dataset = load_from_disk(args.dataset_path)

    def rows_of(start: int) -> list[dict[str, Any]]:
        out = []
        for i in range(start, min(start + args.count, len(dataset))):
            item = dataset[i]
            image = item["image"]
            out.append(
                {
                    "index": i,
                    "question_id": item.get("question_id", i),
                    "question": item["question"],
                    "image": image,
                    "digest": _digest(image),
                }
            )
        return out

    sys.path.insert(0, os.path.abspath(args.wrapper_dir))
    wrapper = importlib.import_module("evaluation_wrapper").VLMModel(args.model_path)
    emit({"type": "start", "rows": len(dataset), "device": str(wrapper.device)})

    def ask_set(set_index: int, rows: list[dict[str, Any]]) -> None:
        pairs = partners(rows)
        for k, row in enumerate(rows):
            j = pairs[k]
            partner = rows[j] if j is not None else None
            asks: list[tuple[str, Any, str]] = [("original", row["image"], row["question"])]
            if partner is not None:
                blank = Image.new("RGB", row["image"].size, BLANK_RGB)
                asks += [
                    ("other_image", partner["image"], row["question"]),
                    ("blank_image", blank, row["question"]),
                    ("other_question", row["image"], partner["question"]),
                ]
            for variant, image, question in asks:
                rec: dict[str, Any] = {
                    "type": "probe",
                    "set_index": set_index,
                    "row": row["index"],
                    "question_id": row["question_id"],
                    "variant": variant,
                    "partner_row": partner["index"] if partner is not None else None,
                }
                try:  # the benchmark's answer call: fresh inputs, the wrapper's properties
                    processor, device, model = wrapper.processor, wrapper.device, wrapper.model
                    t = time.perf_counter()
                    inputs = rs.build_inputs(processor, device, image, question)
                    out = rs.generate(model, inputs, args.answer_tokens)
                    ids = out[0][int(inputs["input_ids"].shape[1]) :]
                    rec["answer"] = processor.tokenizer.decode(
                        ids, skip_special_tokens=True, clean_up_tokenization_spaces=False
                    )
                    rec["ms"] = (time.perf_counter() - t) * 1000
                except Exception as exc:  # the wrapper's failure is a record, never the end
                    rec["error"] = rs._err(variant, exc)
                    traceback.print_exc()
                emit(rec)
        emit({"type": "set_end", "set_index": set_index, "rows": len(rows)})

    ask_set(1, rows_of(0))
    # harness judges the first set and answers "second" when a second set must confirm it
    if sys.stdin.readline().strip() == SECOND:
        ask_set(2, rows_of(args.count))
    emit({"type": "end"})
    records.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
