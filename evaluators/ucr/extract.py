"""HTML to clean text (trafilatura, then a plain tag strip) and sentence splitting."""

from __future__ import annotations

import html
import re

_SCRIPT = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"[ \t\r\f\v]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n{1,}")


#: The method recorded when trafilatura (an optional package since the default install
#: was slimmed) is missing: the page's whole text, navigation included.
WITHOUT_TRAFILATURA = "tag-strip (for the main text only: pip install trafilatura)"


def html_to_text(markup: str) -> tuple[str, str]:
    """(text, method): trafilatura's main text, else a tag strip; '' when nothing is left."""
    try:
        import trafilatura
    except ImportError:
        return _strip(markup), WITHOUT_TRAFILATURA
    try:
        text = (
            trafilatura.extract(
                markup, include_comments=False, include_tables=True, favor_recall=True
            )
            or ""
        )
    except Exception:  # a parser crash on odd markup falls back to the tag strip
        text = ""
    if text.strip():
        return _tidy(text), "trafilatura"
    return _strip(markup), "tag-strip"


def _strip(markup: str) -> str:
    return _tidy(html.unescape(_TAG.sub(" ", _SCRIPT.sub(" ", markup))))


def _tidy(text: str) -> str:
    lines = (_SPACE.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def split_sentences(text: str) -> list[str]:
    """Sentences (and lines) of a text, stripped, without empty ones."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
