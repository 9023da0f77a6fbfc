"""The usage probe: one request, outside the measured traffic, that asks for the token ids.

Latency and throughput send it when an answer's usage cannot be explained by its
text (harness/usage.py): the same prompt again, not streamed, with vLLM's
``return_token_ids`` asked for (and, where the reply lists none, once more with
logprobs), so the server's own list of generated tokens can be counted independently
of its ``usage`` field.
"""

from __future__ import annotations

from typing import Any

import aiohttp

from harness.client.http import send_request
from harness.tokenizer import Tokenizer
from harness.usage import UsageCheck, ids_from_reply, judge_probe, probe_fields


def probe_body(body: dict[str, Any], *, logprobs: bool = False) -> dict[str, Any]:
    """``body`` made a probe: not streamed, token ids (or logprobs) asked for."""
    out = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    out.update(probe_fields(chat="messages" in body, logprobs=logprobs))
    return out


async def probe_usage(
    session: aiohttp.ClientSession,
    url: str,
    endpoint: str,
    body: dict[str, Any],
    tok: Tokenizer,
    *,
    mode: str,
    name: str,
    prompt: str,
) -> UsageCheck:
    """Send ``body`` as a probe to ``url`` and judge its usage against its token ids."""
    check = UsageCheck(mode=mode, name=name, endpoint=endpoint, prompt=prompt, result="failed")
    rec = await send_request(session, url, probe_body(body), endpoint=endpoint, stream=False)
    ids, source = (None, None) if rec.error is not None else ids_from_reply(rec.response)
    if ids is None:  # no return_token_ids here (ignored or refused): logprobs instead
        again = probe_body(body, logprobs=True)
        rec = await send_request(session, url, again, endpoint=endpoint, stream=False)
        if rec.error is not None:
            check.error = rec.error.one_line()
            return check
        ids, source = ids_from_reply(rec.response)
    check.usage_tokens = rec.usage_completion_tokens
    check.finish_reason = rec.finish_reason
    check.text_tokens = tok.count(rec.reasoning + rec.text)
    check.source = source
    if ids is not None:
        check.id_tokens = len(ids)
        if source == "token_ids":
            check.special_tokens = sum(1 for i in ids if i in tok.special_ids)
    check.result = judge_probe(check.usage_tokens, check.id_tokens)
    if check.result == "failed":
        check.error = "the reply has no usage.completion_tokens"
    return check
