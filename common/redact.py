"""Keep secrets out of stored errors, raw replies and log lines.

A provider or proxy may echo the API key in an error ("Incorrect API key provided:
Bearer sk-..."). Everything that is stored or logged passes through :func:`redact`,
which removes the configured keys and anything shaped like a bearer token or an
OpenAI-style ``sk-`` key.
"""

from __future__ import annotations

import json
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
#: Characters that JSON text escapes.
_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
_MIN_SECRET = 6  # shorter "keys" (e.g. "x" for a local server) would mangle ordinary text


def configured_secrets() -> list[str]:
    """The secret values currently configured (environment or secrets file)."""
    values = (get_setting(section, key) for section, key in SECRET_SETTINGS)
    return [v for v in values if v and len(v) >= _MIN_SECRET]


def redact(text: Any, extra: Iterable[str | None] = ()) -> Any:
    """``text`` with configured secrets, ``extra`` values and token shapes masked.

    Non-strings (None, numbers) come back unchanged.
    """
    return _mask(text, _secrets(extra))


def redact_data(value: Any, extra: Iterable[str | None] = ()) -> Any:
    """:func:`redact` applied to every string inside nested dicts and lists."""
    return _mask_all(value, _secrets(extra))


class DataRedactor:
    """:func:`redact_data` with the secrets looked up once, to mask many values.

    Looking the configured secrets up reads the environment and checks the secrets file;
    a bulk write masks every field of every row and does it once for all of them.
    """

    def __init__(self, extra: Iterable[str | None] = ()) -> None:
        self.secrets = _secrets(extra)
        # The screen reads the values' JSON text, where a secret with a character that
        # JSON escapes would not show: then every value is masked the long way.
        self._screen = not any(_JSON_ESCAPED.search(s) for s in self.secrets)
        self._ascii_screen = self._screen and all(s.isascii() for s in self.secrets)

    def __call__(self, value: Any) -> Any:
        """``value`` redacted (:func:`redact_data`)."""
        return _mask_all(value, self.secrets)

    def many(self, values: list[Any]) -> list[Any]:
        """Every value redacted; the list itself when none of them holds anything to mask.

        One JSON dump of all of them and a substring check decide that (walking each
        nested value costs far more).
        """
        if self._screen:
            try:
                text = json.dumps(values, ensure_ascii=False, default=str)
            except (TypeError, ValueError):  # not JSON-shaped: the long way
                text = None
            if text is not None and not _may_hold(text, self.secrets):
                return values
        return [self(v) for v in values]

    def texts_clean(self, texts: Iterable[str]) -> bool:
        """True when none of ``texts`` (plain text, or values' JSON text as ``json.dumps``
        writes it, non-ASCII escaped) can hold anything to mask; False also when a
        secret has a character that such JSON text escapes, so it might not show."""
        if not self._ascii_screen:
            return False
        return not _may_hold("\n".join(texts), self.secrets)


def _may_hold(text: str, secrets: list[str]) -> bool:
    """True unless ``text`` surely holds nothing to mask: every string a mask changes
    holds a secret, "bearer" or "sk-" (in any case)."""
    if any(s in text for s in secrets):
        return True
    low = text.lower()
    return "bearer" in low or "sk-" in low


def _secrets(extra: Iterable[str | None]) -> list[str]:
    """Secrets to mask, longest first (a key containing another is masked whole)."""
    found = {*configured_secrets(), *(e for e in extra if e and len(e) >= _MIN_SECRET)}
    return sorted(found, key=len, reverse=True)


def _mask(text: Any, secrets: list[str]) -> Any:
    if not isinstance(text, str) or not text:
        return text
    for secret in secrets:
        text = text.replace(secret, MASK)
    return _TOKEN_RE.sub(MASK, text)


def _mask_all(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _mask(value, secrets)
    if isinstance(value, dict):
        return {k: _mask_all(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_mask_all(v, secrets) for v in value)
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
