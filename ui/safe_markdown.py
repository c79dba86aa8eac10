"""Markdown from data (item fields, a kind's texts, guidelines) drawn without images, and
a link field drawn as exactly one link.

Streamlit draws ``![alt](url)`` (and its reference forms) as an image the browser loads
at once: from an outside address, every worker's browser would announce itself to that
host. The app's Content-Security-Policy (``ui.frame_guard``) already blocks such loads;
here the image syntax is shown as text, so nothing even tries. Code stays as written.
"""

from __future__ import annotations

import re
from urllib.parse import quote

#: Fenced code blocks and inline code, left as written (no escape shows inside them).
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.DOTALL)
#: What a link field's address may keep as is; anything else is percent-encoded, so no
#: bracket, parenthesis, space or line break can end the link or start another.
_URL_SAFE = ":/?#&=%+@!$',;~*.-_"
MAX_LINK = 2048


def no_images(markdown: str) -> str:
    """``markdown`` with every image opener (``![``) escaped outside code: the alt text
    and address are shown as text, never loaded."""
    parts = _CODE.split(markdown)
    return "".join(p if i % 2 else p.replace("![", "!\\[") for i, p in enumerate(parts))


def one_link(label: str, value: str) -> str | None:
    """A link field as exactly one Markdown link: ``label`` (Markdown already) and the
    address percent-encoded, so no line break, bracket or parenthesis in it can end the
    link or add a reference definition; None when it is no http(s) address."""
    url = value.strip()
    if not url.startswith(("http://", "https://")) or len(url) > MAX_LINK:
        return None
    return f"[{' '.join(label.split())}]({quote(url, safe=_URL_SAFE)})"
