"""Per-sample JSONL: what was asked, what came back, what was extracted, and whether it was right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import ConfigError

INVALID = "[invalid]"  # what lm-eval's regex filters return when nothing matched


def _prompt_text(arg: Any) -> str:
    return str(getattr(arg, "prompt", arg))


def write_samples(
    path: Path, samples: dict[str, list[dict[str, Any]]], metric: str, answers: dict[str, Any]
) -> int:
    """Per-sample JSONL: prompt, response, extracted answer, target, correct. Returns extracted count."""
    metric_name, _, filter_name = metric.partition(",")
    extracted = 0
    with path.open("w", encoding="utf-8") as fh:
        for task, rows in samples.items():
            for row in rows:
                args = row.get("arguments") or [[""]]
                prompt = _prompt_text(args[0][0])
                resps = row.get("resps") or [[""]]
                filtered = row.get("filtered_resps") or [""]
                is_main = row.get("filter") == filter_name
                value = filtered[0] if filtered else ""
                if is_main and value not in ("", INVALID, None):
                    extracted += 1
                answer = answers.get(prompt)
                line = {
                    "task": task,
                    "doc_id": row.get("doc_id"),
                    "filter": row.get("filter"),
                    "prompt": prompt,
                    "response": resps[0][0] if resps and resps[0] else "",
                    "extracted": value,
                    "target": row.get("target"),
                    "correct": row.get(metric_name),
                    "finish_reason": getattr(answer, "finish_reason", None),
                    "error": getattr(answer, "error", None),
                }
                fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    return extracted


def read_samples(path: Path) -> list[dict[str, Any]]:
    """The records :func:`write_samples` wrote (``compare`` pairs them by document)."""
    rows: list[dict[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    raise ConfigError(f"{path.name}:{lineno}: not valid JSON") from None
                if isinstance(row, dict):
                    rows.append(row)
    except OSError as err:
        raise ConfigError(f"{path.name}: unreadable ({err.strerror})") from None
    return rows
