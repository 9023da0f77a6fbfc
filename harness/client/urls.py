"""The one check of a base URL that every ``--url``-like option goes through.

``--url 127.0.0.1:8101`` (no scheme) used to travel as far as the HTTP client
and fail there as a transport error (exit 3). It is a usage error (exit 2),
said in one line with the URL that was meant. An IPv6 address without brackets
(``http://::1:8512``) is told to take them; :func:`url_of` writes a listening
server's URL with them.

:func:`server_base_url` is the stricter check of a model server's base URL, for
what is read before any server runs (a tune's ``serve.url``): harness adds the
routes (``/v1/chat/completions``, ``/ping``) itself, so a base ending in ``/v1``
(what OpenAI clients take) can never be right.
"""

from __future__ import annotations

import urllib.parse

from harness.errors import UsageError


def _bracketed(netloc: str) -> str | None:
    """``[::1]:8512`` for an unbracketed IPv6 ``::1:8512`` (the last part a port when it is
    a number and the rest is still an address), else None."""
    host = netloc.rsplit("@", 1)[-1]
    if host.startswith("[") or host.count(":") < 2:
        return None
    address, _, port = host.rpartition(":")
    if port.isdigit() and address.count(":") >= 2:
        return f"[{address}]:{port}"
    return f"[{host}]"


def url_of(host: str, port: int, scheme: str = "http") -> str:
    """``http://host:port``, an IPv6 address in brackets (``http://[::1]:8512``): the URL
    a listening server prints, which every ``--url`` takes back."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{scheme}://{shown}:{port}"


def http_base_url(text: str) -> str:
    """``text`` when it is an http(s) URL with a host (and a valid port); else UsageError."""
    url = text.strip()
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        # ftp://host:21 → http://host:21: the example is always an http URL
        rest = url.split("://", 1)[1] if "://" in url else url
        example = f"http://{rest.lstrip('/') or 'HOST:PORT'}"
        raise UsageError(f"{text!r} is not an http(s) URL", hint=f"give the scheme, e.g. {example}")
    bracketed = _bracketed(parsed.netloc)
    if bracketed is not None:
        example = urllib.parse.urlunsplit(parsed._replace(netloc=bracketed))
        raise UsageError(
            f"{text!r}: an IPv6 address in a URL goes in brackets", hint=f"e.g. {example}"
        )
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


def server_base_url(text: str, option: str = "--url") -> str:
    """:func:`http_base_url`, refusing a path that ends in ``/v1`` (said with the URL to use);
    ``option`` names where the URL came from in the message (``serve.url``)."""
    url = http_base_url(text).rstrip("/")
    parsed = urllib.parse.urlsplit(url)
    if parsed.path.rstrip("/").endswith("/v1"):
        root = urllib.parse.urlunsplit(parsed._replace(path=parsed.path.rstrip("/")[:-3]))
        raise UsageError(
            f"{option} {url}: harness adds /v1/… to the base URL itself",
            hint=f"drop /v1 from {option}: {option} {root}",
        )
    return url
