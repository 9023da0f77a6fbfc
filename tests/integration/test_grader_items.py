"""harness/grader_items.py against lm-eval's own tasks: the quality graders' prompts of the
shipped items, byte for byte (lm-eval 0.4.11 builds them from tasks/samples with the
grader's seed, as ``simple_evaluate`` does)."""

from __future__ import annotations

import random

import pytest

from harness.data.layout import SAMPLES_DIR, render_tasks
from harness.grader_items import GRADER_SEED, gpqa_items, ifeval_items

pytestmark = pytest.mark.timeout(120)


def test_the_items_are_lm_evals_own_prompts(tmp_path):
    from lm_eval.tasks import TaskManager, get_task_dict

    manager = TaskManager(include_path=str(render_tasks(SAMPLES_DIR, tmp_path)),
                          include_defaults=False)  # fmt: skip
    random.seed(GRADER_SEED)  # simple_evaluate's seed before it loads the tasks
    tasks = get_task_dict(["gpqa_diamond_cot_zeroshot", "ifeval"], manager)
    for name, ours in (("gpqa_diamond_cot_zeroshot", gpqa_items()), ("ifeval", ifeval_items())):
        task = tasks[name]
        theirs = [task.doc_to_text(doc) for doc in task.eval_docs]
        assert [i.text for i in ours] == theirs
