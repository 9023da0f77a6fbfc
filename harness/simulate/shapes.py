"""Response bodies and SSE chunks in vLLM's shapes.

Streamed chunks are built from per-request byte templates (prefix + escaped
text + suffix) so the hot path does no JSON encoding per token.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

try:  # orjson is several times faster; plain json gives the same bytes' meaning
    import orjson

    def dumps(obj: Any) -> bytes:
        return orjson.dumps(obj)

except ImportError:  # pragma: no cover - depends on the environment

    def dumps(obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


DONE = b"data: [DONE]\n\n"


def new_id(kind: str) -> str:
    return ("cmpl-" if kind == "completion" else "chatcmpl-") + uuid.uuid4().hex


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": None,
    }


def error_body(message: str, status: int, param: str | None = None) -> bytes:
    kind = {400: "BadRequestError", 404: "NotFoundError"}.get(status, "InternalServerError")
    return dumps({"error": {"message": message, "type": kind, "param": param, "code": status}})


def full_response(
    kind: str, rid: str, model: str, text: str, finish: str, u: dict[str, Any]
) -> dict[str, Any]:
    created = int(time.time())
    if kind == "completion":
        return {
            "id": rid,
            "object": "text_completion",
            "created": created,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "text": text,
                    "logprobs": None,
                    "finish_reason": finish,
                    "stop_reason": None,
                    "prompt_logprobs": None,
                }
            ],
            "usage": u,
        }
    return {
        "id": rid,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {  # vLLM 0.32's ChatMessage (no tool_calls key when empty)
                    "role": "assistant",
                    "content": text,
                    "refusal": None,
                    "annotations": None,
                    "audio": None,
                    "function_call": None,
                    "reasoning": None,
                },
                "logprobs": None,
                "finish_reason": finish,
                "stop_reason": None,
            }
        ],
        "usage": u,
        "prompt_logprobs": None,
    }


class ChunkTemplate:
    """The bytes of one request's SSE events, with the token text spliced in."""

    def __init__(self, kind: str, rid: str, model: str) -> None:
        self.kind = kind
        created = int(time.time())
        head = b'data: {"id":' + dumps(rid) + b',"object":'
        head += b'"text_completion"' if kind == "completion" else b'"chat.completion.chunk"'
        head += b',"created":' + str(created).encode() + b',"model":' + dumps(model)
        self._head = head
        if kind == "completion":
            self.prefix = head + b',"choices":[{"index":0,"text":"'
            self._tail = b'","logprobs":null,"finish_reason":%s,"stop_reason":null}]}\n\n'
        else:
            self.prefix = head + b',"choices":[{"index":0,"delta":{"content":"'
            self._tail = b'"},"logprobs":null,"finish_reason":%s}]}\n\n'
        self.suffix = self._tail % b"null"

    def chunk(self, escaped_text: str, finish: str | None = None) -> bytes:
        tail = self.suffix if finish is None else self._tail % dumps(finish)
        return self.prefix + escaped_text.encode() + tail

    def role_chunk(self) -> bytes:
        """vLLM's first chat chunk: the role with empty content, sent with the first token."""
        return (
            self._head
            + b',"choices":[{"index":0,"delta":{"role":"assistant","content":""},'
            + b'"logprobs":null,"finish_reason":null}]}\n\n'
        )

    def usage_chunk(self, u: dict[str, Any]) -> bytes:
        # vLLM serialises this last chunk with exclude_none: no null details
        u = {k: v for k, v in u.items() if v is not None}
        return self._head + b',"choices":[],"usage":' + dumps(u) + b"}\n\n"
