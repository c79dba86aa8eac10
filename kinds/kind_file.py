"""A kind file's text and data, checked before and after a parser reads them.

Before: the bytes are UTF-8 (a leading BOM is dropped, as in every import format) and hold
at most :data:`MAX_KIND_CHARS` characters, so no parser spends minutes on a 50 MB value.
After: lists and tables nest at most :data:`~common.limits.MAX_NESTING` levels and no text
is longer than :data:`~common.limits.MAX_TEXT_CHARS` (the cap of a CSV cell). Each fault
is a :class:`KindFileError`, one line.
"""

from __future__ import annotations

from typing import Any

from common.limits import MAX_NESTING, MAX_TEXT_CHARS

#: The longest kind file accepted, in characters (no value can then pass the value cap).
MAX_KIND_CHARS = MAX_TEXT_CHARS
BOM = "\ufeff"
TOO_DEEP = f"nested deeper than {MAX_NESTING} levels"


class KindFileError(ValueError):
    """A kind file no parser should read; ``where`` names the key when there is one."""

    def __init__(self, reason: str, where: str = "file") -> None:
        super().__init__(reason)
        self.where = where


def kind_text(data: bytes | str) -> str:
    """The file's text: UTF-8 without its BOM, at most :data:`MAX_KIND_CHARS` long."""
    if isinstance(data, bytes):
        if len(data) > 4 * MAX_KIND_CHARS:  # more characters than the cap, however encoded
            raise KindFileError(_too_long(len(data), "bytes"))
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KindFileError(
                f"not UTF-8 text (byte {exc.start:,}); save the file as UTF-8"
            ) from None
    text = data.removeprefix(BOM)
    if len(text) > MAX_KIND_CHARS:
        raise KindFileError(_too_long(len(text), "characters"))
    return text


def _too_long(size: int, unit: str) -> str:
    return f"{size:,} {unit} long, over the kind file cap of {MAX_KIND_CHARS:,} characters"


def check_data(data: Any) -> None:
    """Refuse text longer than :data:`MAX_TEXT_CHARS` or nesting deeper than
    :data:`MAX_NESTING` anywhere in a definition (walked with a stack, no recursion)."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            raise KindFileError(
                f"a text of {len(value):,} characters, over the cap of {MAX_TEXT_CHARS:,}",
                where or "file",
            )
        if isinstance(value, dict | list | tuple):
            if depth >= MAX_NESTING:
                raise KindFileError(TOO_DEEP, where or "file")
            pairs = value.items() if isinstance(value, dict) else enumerate(value)
            for key, child in pairs:
                name = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}".lstrip(".")
                stack.append((key, where or "file", depth + 1))
                stack.append((child, name, depth + 1))
