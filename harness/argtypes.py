"""The argparse types every command uses: numbers, URLs, ports, ``--limit``.

A value out of range is an ``argparse.ArgumentTypeError``: argparse turns it into
a one-line usage error (exit 2). Every URL option takes :func:`http_url` (a URL
without a scheme is refused, harness/client/urls.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from harness.client.urls import http_base_url
from harness.errors import UsageError


def _number(text: str, convert: Callable[[str], Any], what: str) -> Any:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _at_least(value: Any, text: str, low: float, strict: bool) -> Any:
    if value < low or (strict and value == low):
        raise argparse.ArgumentTypeError(f"{text!r} must be {'>' if strict else '>='} {low:g}")
    return value


def positive_float(text: str) -> float:
    return float(_at_least(_number(text, float, "a number"), text, 0, strict=True))


def non_negative_float(text: str) -> float:
    return float(_at_least(_number(text, float, "a number"), text, 0, strict=False))


def positive_int(text: str) -> int:
    return int(_at_least(_number(text, int, "a whole number"), text, 0, strict=True))


def non_negative_int(text: str) -> int:
    return int(_at_least(_number(text, int, "a whole number"), text, 0, strict=False))


def http_url(text: str) -> str:
    """An http(s) base URL (argparse type) for every ``--url``-like flag (harness/client/urls.py)."""
    try:
        return http_base_url(text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(err.one_line()) from None


def image_ref(text: str) -> str:
    """An image id or name (argparse type): an empty one would be ignored, so it is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} names no image — pass the image's id (sha256:…) or a name the container"
            " engine knows, or leave the option out"
        )
    return text.strip()


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535 (argparse type)."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535)")
    return value


LIMIT_HELP = (
    "documents per task: a fraction 0 < F <= 1 as the grader's QUALITY_LIMIT (the first"
    " ceil(F*n) of each task; 1 = all), or a whole count N > 1 (the first N, NON-OFFICIAL)"
)


def quality_limit(text: str) -> float:
    """``--limit`` (argparse type): a fraction in (0, 1], or a whole count above 1.

    1.5 is neither: refused rather than read as "all" (docs/quality.md, "--limit")."""
    value = positive_float(text)
    if value > 1 and not value.is_integer():
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a fraction (0 < F <= 1) nor a whole count of documents"
        )
    return value
