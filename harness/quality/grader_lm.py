"""The grader's own lm-eval model for IFEval and GPQA, registered as ``harness-grader``.

What the organisers' ``run_quality_local.py`` does (spec: Quality): each request's
context, unchanged, becomes ONE user message posted to ``/invocations`` as
``{"messages", "max_tokens", "temperature"}`` then the thinking field (OFF:
``chat_template_kwargs.enable_thinking=false``, ON: ``"thinking": true``), with
no ``"model"`` key. A thinking-OFF context that ends with "step by step." or
holds "Answer: Let" in its last 30 characters goes instead as a raw completion
``{"prompt", "max_tokens", "temperature"}``, its answer think-stripped and
stripped. ``max_tokens = min(max_gen_toks, else max_new_tokens, else cap; cap)``
with cap 512 off / 12288 on; temperature 0.0; 3 attempts with 5 s and 10 s
pauses inside the worker; the empty string after the third failure. How a reply
is read (empty choices, null content) is :mod:`harness.quality.grader_reply`.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from harness.profiles import load_profile
from harness.quality.transport import Transport, TransportOptions

RAW_SUFFIX = "step by step."
RAW_MARKER = "Answer: Let"
RAW_MARKER_WINDOW = 30  # characters at the end of the context searched for RAW_MARKER


def grader_max_tokens(
    gen_kwargs: dict[str, Any], *, thinking: bool, cap_off: int, cap_on: int, override: int | None
) -> int:
    """The grader's cap, then the harness's own non-official cap (``--max-gen-toks``) on top."""
    cap = cap_on if thinking else cap_off
    asked = gen_kwargs.get("max_gen_toks", gen_kwargs.get("max_new_tokens", cap))
    value = min(int(asked), cap)
    return min(value, override) if override else value


def is_raw_completion(context: str, *, thinking: bool) -> bool:
    """The grader's thinking-OFF branch that skips the chat template."""
    if thinking:
        return False
    return context.rstrip().endswith(RAW_SUFFIX) or RAW_MARKER in context[-RAW_MARKER_WINDOW:]


def grader_body(
    context: str,
    gen_kwargs: dict[str, Any],
    *,
    thinking: bool,
    thinking_fields: dict[str, Any],
    cap_off: int,
    cap_on: int,
    override: int | None = None,
    stream: bool = False,
    model: str | None = None,
) -> dict[str, Any]:
    """The grader's body; ``model`` and ``stream`` are harness's own (NON-OFFICIAL) additions."""
    max_tokens = grader_max_tokens(
        gen_kwargs, thinking=thinking, cap_off=cap_off, cap_on=cap_on, override=override
    )
    body: dict[str, Any]
    if is_raw_completion(context, thinking=thinking):
        body = {"prompt": context, "max_tokens": max_tokens, "temperature": 0.0}
    else:
        body = {
            "messages": [{"role": "user", "content": context}],
            "max_tokens": max_tokens,
            "temperature": 0.0,
            **thinking_fields,
        }
    if model:
        body["model"] = model
    if stream:
        body["stream"] = True
    return body


@register_model("harness-grader")
class GraderLM(LM):
    """``lm_eval --model harness-grader --model_args base_url=URL,thinking=true`` works too.

    What the harness passes (its profile's caps, thinking fields and concurrency),
    ``lm_eval``'s command line may leave out: they are then read from
    ``profile=NAME`` (default: the default profile), never from numbers kept here."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        thinking: bool | str = False,
        thinking_on: dict[str, Any] | None = None,
        thinking_off: dict[str, Any] | None = None,
        cap_off: int | str | None = None,
        cap_on: int | str | None = None,
        max_gen_toks: int | str | None = None,
        stream: bool | str = False,
        num_concurrent: int | str | None = None,
        transport: Transport | None = None,
        profile: str | None = None,
        **_: Any,
    ) -> None:
        super().__init__()
        if None in (thinking_on, thinking_off, cap_off, cap_on) or (
            transport is None and num_concurrent is None
        ):
            prof = load_profile(profile)
            spec, server = prof.require_quality(), prof.server
            thinking_on = server.thinking_on if thinking_on is None else thinking_on
            thinking_off = server.thinking_off if thinking_off is None else thinking_off
            cap_off = spec.cap_thinking_off if cap_off is None else cap_off
            cap_on = spec.cap_thinking_on if cap_on is None else cap_on
            num_concurrent = spec.num_concurrent if num_concurrent is None else num_concurrent
        assert cap_off is not None and cap_on is not None
        self.model = model or None  # NON-OFFICIAL: the grader's body has no "model"
        self.thinking = thinking in (True, "true", "True", "1")
        chosen = thinking_on if self.thinking else thinking_off
        self.thinking_fields = dict(chosen or {})
        self.cap_off, self.cap_on = int(cap_off), int(cap_on)
        self.override = int(max_gen_toks) if max_gen_toks not in (None, "", "None") else None
        self.stream = stream in (True, "true", "True", "1")
        if transport is None:
            if not base_url:
                raise ValueError("harness-grader needs base_url=http://HOST:PORT/invocations")
            transport = Transport(
                TransportOptions(
                    url=base_url, fingerprint=base_url, concurrency=int(num_concurrent or 1)
                )
            )
        self.transport = transport

    def body(self, context: str, gen_kwargs: dict[str, Any]) -> dict[str, Any]:
        return grader_body(
            context,
            gen_kwargs,
            thinking=self.thinking,
            thinking_fields=self.thinking_fields,
            cap_off=self.cap_off,
            cap_on=self.cap_on,
            override=self.override,
            stream=self.stream,
            model=self.model,
        )

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        items = [
            (str(req.args[0]), self.body(str(req.args[0]), dict(req.args[1]))) for req in requests
        ]
        self.transport.progress.start(len(items))
        return [a.content for a in self.transport.run_all(items)]

    def loglikelihood(self, requests: list[Instance], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("the grader's model only generates")

    def loglikelihood_rolling(
        self, requests: list[Instance], disable_tqdm: bool = False
    ) -> list[float]:
        raise NotImplementedError("the grader's model only generates")
