"""Keep secrets out of stored errors, raw replies and log lines.

A provider or proxy may echo the API key in an error ("Incorrect API key provided:
Bearer sk-..."). Everything that is stored or logged passes through :func:`redact`,
which removes the configured keys and anything shaped like a bearer token or an
OpenAI-style ``sk-`` key.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from common.config import get_setting

MASK = "[redacted]"
#: Settings (section, key) whose values are secrets.
SECRET_SETTINGS = (("llm", "api_key"),)
_TOKEN_RE = re.compile(
    r"(?i)\bbearer\s+[^\s\"',;]+"  # Authorization header values
    r"|\bsk-[A-Za-z0-9_\-*]{6,}"  # OpenAI-style keys (also partly masked ones)
)
_MIN_SECRET = 6  # shorter "keys" (e.g. "x" for a local server) would mangle ordinary text


def configured_secrets() -> list[str]:
    """The secret values currently configured (environment or secrets file)."""
    values = (get_setting(section, key) for section, key in SECRET_SETTINGS)
    return [v for v in values if v and len(v) >= _MIN_SECRET]


def redact(text: Any, extra: Iterable[str | None] = ()) -> Any:
    """``text`` with configured secrets, ``extra`` values and token shapes masked.

    Non-strings (None, numbers) come back unchanged.
    """
    if not isinstance(text, str) or not text:
        return text
    for secret in sorted({*configured_secrets(), *(e for e in extra if e)}, key=len, reverse=True):
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, MASK)
    return _TOKEN_RE.sub(MASK, text)


def redact_data(value: Any, extra: Iterable[str | None] = ()) -> Any:
    """:func:`redact` applied to every string inside nested dicts and lists."""
    extra = tuple(extra)
    if isinstance(value, str):
        return redact(value, extra)
    if isinstance(value, dict):
        return {k: redact_data(v, extra) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(v, extra) for v in value)
    return value


_installed = False


def install_log_redaction() -> None:
    """Mask secrets in every log record from now on (message and traceback), once.

    A record factory rather than a handler filter: Streamlit gives each of its loggers
    its own handler, and handlers added later would miss a filter.
    """
    global _installed
    if _installed:
        return
    _installed = True
    make_record = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a bad format string is the handler's problem, as before
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
