"""Answers a readiness wait never outgrows (client/ready_faults.py) and the base URL checks
(client/urls.py): each told in one line with what to do."""

from __future__ import annotations

import socket
import ssl
import urllib.error

import pytest

from harness.client.failure import is_web_page
from harness.client.ready_faults import (
    HOST_UNKNOWN,
    TLS_TO_PLAIN,
    fault,
    fault_of_error,
    seen_of_error,
    web_page_seen,
)
from harness.client.urls import http_base_url, server_base_url, url_of
from harness.errors import UnreachableError, UsageError


def test_urllib_errors_that_cannot_heal_are_named():
    tls = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)")
    assert seen_of_error(urllib.error.URLError(tls)) == TLS_TO_PLAIN
    dns = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert (
        seen_of_error(urllib.error.URLError(dns)) == f"{HOST_UNKNOWN} (Name or service not known)"
    )
    again = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    assert seen_of_error(urllib.error.URLError(again)) is None  # the resolver may answer later
    assert seen_of_error(ConnectionRefusedError()) is None


def test_a_web_page_is_told_by_its_type_or_its_first_tag():
    assert is_web_page("text/html; charset=utf-8")
    assert is_web_page(None, b"\n  <!DOCTYPE html><html>")
    assert is_web_page("", "<HTML><body>")
    assert not is_web_page("application/json", b'{"error": "not found"}')
    assert not is_web_page("text/plain", b"Not Found")


def test_each_fault_is_one_line_with_what_to_do():
    tls = fault(TLS_TO_PLAIN, "https://127.0.0.1:8000/", "/ping")
    assert isinstance(tls, UsageError)
    assert tls.one_line() == (
        "--url https://127.0.0.1:8000: the server there speaks plain HTTP, not HTTPS (TLS"
        " handshake: wrong version number) — use http://: --url http://127.0.0.1:8000"
    )
    page = fault(web_page_seen(404), "http://h:80", "/health", option="serve.url")
    assert isinstance(page, UnreachableError)
    assert page.one_line() == (
        "GET http://h:80/health answers HTTP 404 with a web page (text/html): this is a web"
        " page, not the model server — check serve.url and its port"
    )
    dns = f"{HOST_UNKNOWN} (Name or service not known)"
    assert fault(dns, "http://srv:80", "/ping", wait_for_start=True) is None  # may appear
    assert fault("connection refused", "http://h:80", "/ping") is None
    assert fault("HTTP 503", "http://h:80", "/ping") is None


@pytest.mark.parametrize(
    ("url", "example"),
    [
        ("http://::1:8512", "http://[::1]:8512"),
        ("http://::1", "http://[::1]"),
        ("https://fe80::1:443/x", "https://[fe80::1]:443/x"),
    ],
)
def test_an_unbracketed_ipv6_address_is_told_to_take_brackets(url, example):
    with pytest.raises(UsageError) as err:
        http_base_url(url)
    assert (
        err.value.one_line()
        == f"{url!r}: an IPv6 address in a URL goes in brackets — e.g. {example}"
    )
    assert http_base_url(example) == example


def test_a_server_base_url_ending_in_v1_is_refused_with_the_url_to_use():
    with pytest.raises(UsageError) as err:
        server_base_url("http://127.0.0.1:8000/v1/", option="serve.url")
    assert err.value.one_line() == (
        "serve.url http://127.0.0.1:8000/v1: harness adds /v1/… to the base URL itself"
        " — drop /v1 from serve.url: serve.url http://127.0.0.1:8000"
    )
    assert server_base_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert server_base_url("https://proxy:443/team") == "https://proxy:443/team"


def test_a_listening_url_brackets_an_ipv6_host():
    assert url_of("::1", 8512) == "http://[::1]:8512"
    assert url_of("127.0.0.1", 80) == "http://127.0.0.1:80"
    assert url_of("[::1]", 1, "https") == "https://[::1]:1"


def test_one_failed_urllib_get_gives_its_fault_for_a_poll_of_ones_own():
    import email.message

    tls = urllib.error.URLError(ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"))
    got = fault_of_error(tls, "https://127.0.0.1:8000", "/ping", option="serve.url")
    assert isinstance(got, UsageError) and "use http://: serve.url http://127.0.0.1:8000" in str(
        got
    )
    headers = email.message.Message()
    headers["Content-Type"] = "text/html; charset=utf-8"
    page = urllib.error.HTTPError("http://h:1/ping", 404, "Not Found", headers, None)
    got = fault_of_error(page, "http://h:1", "/ping")
    assert isinstance(got, UnreachableError) and "not the model server" in str(got)
    plain = urllib.error.HTTPError("http://h:1/ping", 503, "Loading", email.message.Message(), None)
    assert fault_of_error(plain, "http://h:1", "/ping") is None  # still starting: wait
    assert fault_of_error(ConnectionRefusedError(), "http://h:1", "/ping") is None
