"""One aiohttp error map (harness/client/failure.py): each exception is one kind wherever it
is raised — the request client, the readiness wait and the grader's throughput loop."""

from __future__ import annotations

import errno
import json

import aiohttp
import pytest
from aiohttp.client_reqrep import ConnectionKey, RequestInfo
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from harness.client.failure import AIOHTTP_ERRORS, ErrorKind, error_kind
from harness.client.readiness import REFUSED, describe_error
from harness.throughput.grader_loop import row_error_kind

KEY = ConnectionKey("127.0.0.1", 8000, False, True, None, None, None, None)
INFO = RequestInfo(URL("http://127.0.0.1:8000/v1"), "POST", CIMultiDictProxy(CIMultiDict()))


def refused() -> aiohttp.ClientConnectorError:
    return aiohttp.ClientConnectorError(
        KEY, ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    )


# (exception, kind before the server answered, kind after; None: not raised once answered)
CASES: list[tuple[BaseException, ErrorKind, ErrorKind | None]] = [
    (refused(), ErrorKind.CONNECT, None),
    (
        aiohttp.ClientConnectorDNSError(KEY, OSError(-2, "Name or service not known")),
        ErrorKind.CONNECT,
        None,
    ),
    (aiohttp.ConnectionTimeoutError("connect"), ErrorKind.TIMEOUT, ErrorKind.TIMEOUT),
    (aiohttp.SocketTimeoutError("read"), ErrorKind.TIMEOUT, ErrorKind.TIMEOUT),
    (TimeoutError(), ErrorKind.TIMEOUT, ErrorKind.TIMEOUT),
    (aiohttp.ServerDisconnectedError(), ErrorKind.DISCONNECTED, ErrorKind.DISCONNECTED),
    (aiohttp.ClientPayloadError("cut"), ErrorKind.DISCONNECTED, ErrorKind.DISCONNECTED),
    (
        aiohttp.ContentTypeError(INFO, (), status=200, message="text/html"),
        ErrorKind.MALFORMED_JSON,
        ErrorKind.MALFORMED_JSON,
    ),
    (
        aiohttp.ClientResponseError(INFO, (), status=400, message="Bad status line"),
        ErrorKind.HTTP_STATUS,
        ErrorKind.HTTP_STATUS,
    ),
    (
        aiohttp.ClientOSError(errno.ECONNRESET, "Connection reset by peer"),
        ErrorKind.CONNECT,
        ErrorKind.DISCONNECTED,
    ),
    (
        aiohttp.ClientConnectionResetError("Cannot write to closing transport"),
        ErrorKind.CONNECT,
        ErrorKind.DISCONNECTED,
    ),
    (aiohttp.InvalidURL("http//nowhere"), ErrorKind.CONNECT, ErrorKind.DISCONNECTED),
    (aiohttp.ClientError("something else"), ErrorKind.CONNECT, ErrorKind.DISCONNECTED),
]


@pytest.mark.parametrize(("err", "before", "after"), CASES, ids=lambda c: type(c).__name__)
def test_each_exception_has_one_kind_before_and_after_the_answer(
    err: aiohttp.ClientError | TimeoutError, before: ErrorKind, after: ErrorKind | None
) -> None:
    assert error_kind(err, answered=False) is before
    if after is not None:
        assert error_kind(err, answered=True) is after


def test_the_table_lists_the_most_specific_class_first() -> None:
    # no row is shadowed by a broader row above it
    for i, (cls, _) in enumerate(AIOHTTP_ERRORS):
        above = [c for c, _ in AIOHTTP_ERRORS[:i]]
        assert not any(issubclass(cls, c) for c in above), cls


def test_the_grader_loop_and_the_client_agree_on_a_bare_client_error() -> None:
    # once "connect" in the client and "disconnected" in the grader loop: now one kind
    bare = aiohttp.ClientError("boom")
    assert row_error_kind(bare, answered=False) == "connect" == error_kind(bare, answered=False)
    assert row_error_kind(bare, answered=True) == "disconnected"


def test_the_grader_loop_names_what_parsing_the_answer_raised() -> None:
    assert row_error_kind(json.JSONDecodeError("x", "", 0), answered=True) == "malformed_json"
    assert row_error_kind(IndexError("choices is empty"), answered=True) == "empty_choices"
    assert row_error_kind(TypeError("not an object"), answered=True) == "malformed_json"
    content_type = aiohttp.ContentTypeError(INFO, (), status=200, message="text/html")
    assert row_error_kind(content_type, answered=True) == "malformed_json"
    assert row_error_kind(aiohttp.ServerDisconnectedError(), answered=True) == "disconnected"


def test_the_readiness_wait_says_what_each_kind_saw() -> None:
    assert describe_error(refused()) == REFUSED
    assert describe_error(ConnectionRefusedError()) == REFUSED
    dns = aiohttp.ClientConnectorDNSError(KEY, OSError(-2, "Name or service not known"))
    assert describe_error(dns) == "host not found (Name or service not known)"
    unreachable = aiohttp.ClientConnectorError(KEY, OSError(errno.EHOSTUNREACH, "No route"))
    assert describe_error(unreachable) == "cannot connect (No route)"
    assert describe_error(TimeoutError()) == "no answer (timeout)"
    assert describe_error(aiohttp.SocketTimeoutError("read")) == "no answer (timeout)"
    assert describe_error(aiohttp.ServerDisconnectedError()) == (
        "ServerDisconnectedError: Server disconnected"
    )


def test_an_exception_outside_the_map_is_refused() -> None:
    with pytest.raises(TypeError, match="neither an aiohttp error nor a timeout"):
        error_kind(ValueError("x"), answered=False)  # type: ignore[arg-type]
