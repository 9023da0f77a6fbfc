"""The Efficient Qwen grader's own HTTP client, reproduced: stdlib ``urllib`` + ``json.dumps``.

Official latency mode sends through this module so that what reaches the server
is what the grader sends, byte for byte and header for header
(docs/timing.md, "Official mode on the wire"):

- body ``json.dumps(payload).encode()`` with Python's defaults (``", "``,
  ``": "``, ASCII escapes);
- urllib's own headers: ``Accept-Encoding: identity``, ``Content-Type:
  application/json``, ``User-Agent: Python-urllib/3.x``, ``Connection: close``,
  ``Host``, ``Content-Length``; a new TCP connection per request;
- the timer starts before the body is encoded and stops after
  ``json.loads`` of the whole body (``time.perf_counter``);
- a failure is ANY exception on that path (HTTP error status, connection
  error, timeout, invalid JSON, an answer the grader's post-processing cannot
  read). A 200 without ``choices`` (or with ``[]``) is a timed SUCCESS, as it
  is for the grader; the record says so (``empty_choices``) so the report can
  flag it loudly.

urllib blocks, so callers run :func:`post_like_grader` in a worker thread
(``asyncio.to_thread``); official mode sends one request at a time anyway.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from harness.client.failure import is_web_page, no_answer
from harness.client.ready_faults import seen_of_error, web_page_seen
from harness.client.records import ErrorKind, RequestError, RequestRecord
from harness.client.trace import ConnTrace, traced_urlopen, tracing

EXCERPT = 300


@dataclass(frozen=True)
class GraderPoll:
    """The grader's readiness loop: GET ``path`` every ``interval_s``, ``timeout_s`` each,
    at most ``tries`` times; any answer urllib does not raise on counts as ready."""

    path: str = "/ping"
    interval_s: float = 5.0
    timeout_s: float = 2.0
    tries: int = 120


def post_like_grader(
    url: str, payload: dict[str, Any], *, timeout_s: float = 600.0, endpoint: str = ""
) -> RequestRecord:
    """POST ``payload`` exactly as the grader's ``_invoke`` does; never raises (but Ctrl-C).

    ``send_ns`` is taken before ``json.dumps`` and ``parsed_ns`` after ``json.loads``:
    ``rec.e2e_ms`` is the grader's latency. ``rec.conn`` holds the connection's own stamps
    (connect, last send, peer; harness/client/trace.py), taken passively.
    """
    conn = ConnTrace()
    rec = RequestRecord(endpoint=endpoint or url, stream=False, conn=conn)
    rec.send_ns = time.perf_counter_ns()
    try:
        body = json.dumps(payload).encode()
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        with tracing(conn):
            resp = traced_urlopen(req, timeout=timeout_s)
        rec.headers_ns = time.perf_counter_ns()
        rec.status = resp.status
        raw = resp.read()
        rec.end_ns = rec.first_byte_ns = time.perf_counter_ns()
        rec.n_bytes = len(raw)
        obj = json.loads(raw)
        rec.parsed_ns = time.perf_counter_ns()
        resp.close()
    except urllib.error.HTTPError as err:
        rec.end_ns = time.perf_counter_ns()
        rec.status = err.code
        excerpt = _read_excerpt(err)
        rec.error = RequestError(
            ErrorKind.HTTP_STATUS, f"HTTP {err.code} from {rec.endpoint}", err.code, excerpt
        )
        return rec
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        rec.error = RequestError(ErrorKind.MALFORMED_JSON, f"response is not JSON: {err}")
        return rec
    except TimeoutError:
        rec.error = RequestError(ErrorKind.TIMEOUT, no_answer(url, timeout_s))
        return rec
    except urllib.error.URLError as err:
        reason = err.reason
        if isinstance(reason, TimeoutError):
            rec.error = RequestError(ErrorKind.TIMEOUT, no_answer(url, timeout_s, connecting=True))
        else:
            rec.error = RequestError(ErrorKind.CONNECT, f"cannot reach {url}: {reason}")
        return rec
    except (http.client.HTTPException, OSError) as err:
        kind = ErrorKind.DISCONNECTED if rec.status is not None else ErrorKind.CONNECT
        rec.error = RequestError(kind, f"{type(err).__name__}: {err}")
        return rec
    _read_answer(obj, rec)
    return rec


def _read_excerpt(err: urllib.error.HTTPError) -> str:
    try:
        return err.read()[:EXCERPT].decode("utf-8", errors="replace")
    except (OSError, http.client.HTTPException):
        return ""


def _read_answer(obj: Any, rec: RequestRecord) -> None:
    """The grader's post-processing after its timer: ``result.get("choices", [])``, then
    ``choices[0].get("text", "")`` and a think-strip regex. Whatever raises there
    fails the request in the grader's loop, so it fails it here."""
    if not isinstance(obj, dict):
        rec.error = RequestError(ErrorKind.MALFORMED_JSON, "response JSON is not an object")
        return
    rec.response = obj
    usage = obj.get("usage")
    if isinstance(usage, dict):
        for key, attr in (
            ("prompt_tokens", "usage_prompt_tokens"),
            ("completion_tokens", "usage_completion_tokens"),
            ("total_tokens", "usage_total_tokens"),
        ):
            if isinstance(usage.get(key), int):
                setattr(rec, attr, usage[key])
    choices = obj.get("choices", [])
    if not choices:  # missing, null or []: the grader's success with an empty answer
        rec.empty_choices = True
        return
    first = choices[0] if isinstance(choices, list) else None
    if not isinstance(first, dict):
        rec.error = RequestError(ErrorKind.MALFORMED_JSON, "choices[0] is not an object")
        return
    text = first.get("text", "")
    if not isinstance(text, str):
        rec.error = RequestError(
            ErrorKind.MALFORMED_JSON, f"choices[0].text is {type(text).__name__}, not a string"
        )
        return
    # The grader then strips a think block (a regex on a str: it cannot fail). Kept here:
    # the generated text as sent, think block and whitespace included: the output-token
    # count re-tokenises it and compares with the server's usage (stripping it made
    # every answer look a token or two short of usage.completion_tokens).
    rec.text = text
    reason = first.get("finish_reason")
    rec.finish_reason = reason if isinstance(reason, str) else None
    rec.first_token_ns = rec.last_token_ns = rec.end_ns


def poll_once_like_grader(url: str, timeout_s: float) -> str:
    """One readiness GET as the grader makes it: ``"ready"`` when urllib does not raise,
    else what went wrong (for the progress line)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            resp.read()
            return "ready"
    except urllib.error.HTTPError as err:
        if is_web_page(err.headers.get("Content-Type") if err.headers else None):
            return web_page_seen(err.code)
        return f"HTTP {err.code}"
    except urllib.error.URLError as err:
        # the same words as harness's own poll (client/readiness.py reads "connection refused")
        if isinstance(err.reason, ConnectionRefusedError):
            return "connection refused"
        return seen_of_error(err) or f"cannot connect ({err.reason})"
    except (http.client.HTTPException, OSError) as err:
        return f"{type(err).__name__}: {err}"
