"""What the Efficient Qwen latency grader sends: a prompt body on its latency route, posted
by its urllib client (harness/client/urllib_client.py: ``post_like_grader``).

Official latency mode (harness/latency/runner.py) and the audit's requests that stand for
the grader's (harness/audit/: the timed rounds, the continuations, the probes' prompt shape)
build their bodies here, key for key.
"""

from __future__ import annotations

from typing import Any


def latency_body(prompt: str, max_tokens: int, temperature: float) -> dict[str, Any]:
    """The grader's body, exactly: prompt, max_tokens, temperature (in this key order, which
    ``json.dumps`` keeps on the wire)."""
    return {"prompt": prompt, "max_tokens": max_tokens, "temperature": temperature}
