"""lm-eval's environment report is computed once per process and copied after."""

from __future__ import annotations

from typing import Any

import lm_eval.evaluator
import lm_eval.loggers.utils
import pytest

from harness.quality import lm_env


def test_simple_evaluate_reaches_the_cache_and_the_report_is_computed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lm_env, "_REPORT", {})
    monkeypatch.setattr(lm_eval.evaluator, "add_env_info", lm_eval.evaluator.add_env_info)
    real = lm_eval.loggers.utils.add_env_info
    calls: list[int] = []

    def counted(storage: dict[str, Any]) -> None:
        calls.append(1)
        real(storage)

    monkeypatch.setattr(lm_eval.loggers.utils, "add_env_info", counted)
    lm_env.install()
    assert lm_eval.evaluator.add_env_info is lm_env._add_env_info_once
    first: dict[str, Any] = {"results": 1}
    second: dict[str, Any] = {"results": 2}
    lm_eval.evaluator.add_env_info(first)
    lm_eval.evaluator.add_env_info(second)
    assert calls == [1]
    keys = {"pretty_env_info", "transformers_version", "lm_eval_version", "upper_git_hash"}
    assert set(first) == keys | {"results"} and first["results"] == 1
    assert {k: second[k] for k in keys} == {k: first[k] for k in keys}
    assert first["lm_eval_version"] == "0.4.11"
