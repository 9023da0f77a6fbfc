"""The one check of a base URL that every ``--url``-like option goes through.

``--url 127.0.0.1:8101`` (no scheme) used to travel as far as the HTTP client
and fail there as a transport error (exit 3). It is a usage error (exit 2),
said in one line with the URL that was meant.
"""

from __future__ import annotations

import urllib.parse

from harness.errors import UsageError


def http_base_url(text: str) -> str:
    """``text`` when it is an http(s) URL with a host (and a valid port); else UsageError."""
    url = text.strip()
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        # ftp://host:21 → http://host:21: the example is always an http URL
        rest = url.split("://", 1)[1] if "://" in url else url
        example = f"http://{rest.lstrip('/') or 'HOST:PORT'}"
        raise UsageError(f"{text!r} is not an http(s) URL", hint=f"give the scheme, e.g. {example}")
    try:
        parsed.port  # noqa: B018 - raises on a port that is not a number or out of range
    except ValueError as err:
        raise UsageError(f"{text!r} is not a valid URL: {err}") from None
    return url


def path_to_drop(url: str) -> tuple[str, str] | None:
    """A base URL with a path (``http://host:8080/v1``, what OpenAI clients take): the path
    and the root to use instead; None for a root URL. harness adds every route itself
    (``/ping``, ``/v1/completions``), so a base URL's path doubles it."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    if not path:
        return None
    return path, f"{parts.scheme}://{parts.netloc}"


def drop_path_hint(url: str, option: str) -> str | None:
    """The one wording of "drop the path" for a URL ``option`` (``--url``, ``serve.url``)."""
    found = path_to_drop(url)
    if found is None:
        return None
    path, root = found
    return f"drop {path} from {option}: {option} {root}"
