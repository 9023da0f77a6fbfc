"""lm-eval's ``local-chat-completions`` for MMLU-Pro, with 0.4.11's crash bugs worked around.

Registered as ``harness-local-chat-completions``. Request bodies are built by
lm-eval's own ``LocalChatCompletion._create_payload`` exactly as 0.4.11 builds them
in its concurrent path (no ``eos`` stop, the ``"type": "text"`` message field of
#3270 kept, since the grader sends it). Only the sending is ours
(:mod:`harness.quality.transport`):

- an HTTP error after the last attempt gives an empty answer instead of an
  ``UnboundLocalError`` that aborts the run (#3293); the answer records that the
  grader's run, which has this bug, would die there (``Answer.grader_abort``);
- answers are cached by the harness, never as null (#3632);
- lm-eval's retry policy is kept: ``max_retries`` attempts, 1 s between them
  (tenacity ``wait_exponential(multiplier=0.5, min=1, max=10)``), slept outside
  the semaphore; replies are read as ``parse_generations`` reads them.
"""

from __future__ import annotations

import copy
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.registry import register_model
from lm_eval.models.openai_completions import LocalChatCompletion

from harness.quality.transport import Transport, TransportOptions

LM_EVAL_RETRY_SLEEPS_S = (1.0, 1.0)  # tenacity wait_exponential(0.5, min=1, max=10), attempts 1-2


@register_model("harness-local-chat-completions")
class HarnessChatCompletions(LocalChatCompletion):
    def __init__(self, *args: Any, transport: Transport | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if transport is None:
            transport = Transport(
                TransportOptions(
                    url=str(self.base_url), fingerprint=str(self.base_url), style="lm-eval"
                )
            )
        self.transport = transport

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        self.transport.progress.start(len(requests))
        result: list[str] = super().generate_until(requests, disable_tqdm=True)
        return result

    async def get_batched_requests(
        self,
        requests: list[Any],
        cache_keys: list[Any],
        *,
        generate: bool = True,
        ctxlens: list[int] | None = None,
        **kwargs: Any,
    ) -> list[list[str]]:
        gen_kwargs = kwargs.get("gen_kwargs")
        items = []
        for req in requests:
            payload = self._create_payload(
                self.create_message([req]),
                generate=generate,
                gen_kwargs=copy.deepcopy(gen_kwargs),
                seed=self._seed,
            )
            items.append((getattr(req, "prompt", str(req)), payload))
        answers = await self.transport.ask_all(
            items,
            concurrency=self._concurrent,
            timeout_s=float(self.timeout),
            attempts=self.max_retries,
            retry_sleeps_s=LM_EVAL_RETRY_SLEEPS_S,
        )
        return [[a.content] for a in answers]
