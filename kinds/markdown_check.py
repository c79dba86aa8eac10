"""Markdown without HTML: a kind's texts are shown as Markdown, never as raw HTML."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # on first check: most processes never parse

    return MarkdownIt("commonmark")


def html_in_markdown(text: str) -> str | None:
    """The first raw HTML a CommonMark parser finds in ``text`` (None when there is none)."""
    for token in _parser().parse(text or ""):
        for t in [token, *(token.children or [])]:
            if t.type in ("html_block", "html_inline"):
                return t.content.strip()[:40]
    return None
