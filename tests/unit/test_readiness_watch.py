"""A readiness wait's line and its early stop on refused connections (client/readiness.py)."""

from __future__ import annotations

import pytest

from harness.client.readiness import REFUSED, REFUSED_GIVE_UP_S, Watch
from harness.errors import UnreachableError


def test_the_line_says_what_was_seen_and_how_long_of_the_limit():
    w = Watch("http://127.0.0.1:8199", "/ping", 600.0)
    assert w.line(REFUSED, 12.4) == "connection refused (12 s of 600 s)"
    assert w.line("404", 0.2) == "HTTP 404 (0 s of 600 s)"
    assert w.line("HTTP 503", 5.0) == "HTTP 503 (5 s of 600 s)"
    assert w.line("no answer (timeout)", 30.0) == "no answer (timeout) (30 s of 600 s)"


def test_refused_for_the_give_up_time_in_a_row_stops_the_wait():
    w = Watch("http://127.0.0.1:8199/", "/ping", 600.0)
    w.refused(REFUSED, 0.0)
    w.refused(REFUSED, 5.0)
    with pytest.raises(UnreachableError) as err:
        w.refused(REFUSED, REFUSED_GIVE_UP_S)
    assert err.value.one_line() == (
        "nothing listens on 127.0.0.1:8199 (connection refused for 10 s) — start the server,"
        " or pass --wait-for-start to wait up to --ready-timeout (600 s) while it starts"
    )


def test_an_answer_in_between_starts_the_count_again():
    w = Watch("http://h:80", "/ping", 600.0)
    w.refused(REFUSED, 0.0)
    w.refused("503", 6.0)  # the server was there
    w.refused(REFUSED, 9.0)
    w.refused(REFUSED, 18.0)  # refused for 9 s only
    with pytest.raises(UnreachableError):
        w.refused(REFUSED, 19.0)


def test_a_server_said_to_be_starting_is_waited_for():
    w = Watch("http://h:80", "/ping", 600.0, wait_for_start=True)
    for t in (0.0, 10.0, 100.0, 500.0):
        w.refused(REFUSED, t)  # the caller's --ready-timeout ends it


def test_a_ready_path_that_answers_404_that_long_stops_the_wait_too():
    w = Watch("http://h:8080", "/ping", 600.0)
    w.refused("HTTP 404", 0.0)  # the grader-like poll's words
    w.refused("404", 5.0)  # harness's own poll's
    with pytest.raises(UnreachableError) as err:
        w.refused("404", 10.5)
    assert err.value.one_line() == (
        "http://h:8080/ping answered HTTP 404 for 10 s: the server there has no /ping route"
        " — check --url and its port (the profile's ready path is /ping), or pass"
        " --wait-for-start to wait up to --ready-timeout (600 s) while it starts"
    )
