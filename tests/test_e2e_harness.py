"""The browser-test harness fails a test whose server log holds a traceback (#16, point 8)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import assert_no_tracebacks

LOG = """2026-11-23 14:00:01 INFO Running the app
Traceback (most recent call last):
  File "ui/annotation/context.py", line 40, in show
pyarrow.lib.ArrowInvalid: cannot mix list and non-list, non-null values
"""


def test_a_traceback_in_the_server_log_fails_the_test() -> None:
    with pytest.raises(AssertionError, match="cannot mix list and non-list"):
        assert_no_tracebacks(LOG, "streamlit-1.log")
    assert_no_tracebacks("2026-11-23 INFO all fine\n")


def test_a_websocket_closed_by_the_browser_is_not_an_app_error() -> None:
    noise = (
        "Traceback (most recent call last):\n"
        '  File ".../streamlit/web/server/starlette/starlette_websocket.py", line 524\n'
        "starlette.websockets.WebSocketDisconnected: Cannot call send once closed.\n"
    )
    assert_no_tracebacks(noise)
    with pytest.raises(AssertionError, match="ArrowInvalid"):
        assert_no_tracebacks(noise + LOG)
