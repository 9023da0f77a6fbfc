"""The async HTTP client every measurement uses: one shared aiohttp session per run."""

from harness.client.http import HttpOptions, make_session, send_request
from harness.client.records import ErrorKind, RequestError, RequestRecord

__all__ = [
    "ErrorKind",
    "HttpOptions",
    "RequestError",
    "RequestRecord",
    "make_session",
    "send_request",
]
