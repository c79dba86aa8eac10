"""A size bound on rendered judge prompts: ``{{ text * 100000000 }}`` is refused before
the string is built, and no rendered prompt may pass :data:`MAX_PROMPT_CHARS`.

Jinja's sandbox bounds ``range`` but not string repetition or padding, so the operators
and calls that grow a string are checked against the bound before they run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jinja2.exceptions import SecurityError
from jinja2.filters import do_center, do_indent
from jinja2.sandbox import SandboxedEnvironment

#: The most characters a rendered judge prompt (template or system text) may have: far
#: beyond any model's context window, far below what would exhaust the server's memory.
MAX_PROMPT_CHARS = 1_000_000
#: str methods whose integer arguments are output widths.
_PADDERS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})


class PromptTooLarge(SecurityError):
    """A template whose rendered prompt would pass the bound; the message names it."""

    def __init__(self) -> None:
        super().__init__(
            f"the rendered prompt would be longer than {MAX_PROMPT_CHARS:,} characters, "
            "the limit for a judge template"
        )


def _check_width(*values: Any) -> None:
    if any(isinstance(v, int) and not isinstance(v, bool) and v > MAX_PROMPT_CHARS for v in values):
        raise PromptTooLarge()


def _sized(value: Any) -> int | None:
    return len(value) if isinstance(value, str | list | tuple) else None


class BoundedSandbox(SandboxedEnvironment):
    """Jinja's sandbox with repetition, powers and padding bounded."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.filters["center"] = _bounded_center
        self.filters["indent"] = _bounded_indent

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                size = _sized(seq)
                if size is not None and isinstance(times, int) and size * times > MAX_PROMPT_CHARS:
                    raise PromptTooLarge()
        if operator == "**" and isinstance(right, int | float) and abs(right) > 1_000:
            raise PromptTooLarge()  # a number with millions of digits
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(getattr(__obj, "__self__", None), str) and __obj.__name__ in _PADDERS:
            _check_width(*args, *kwargs.values())
        return super().call(__context, __obj, *args, **kwargs)


def _bounded_center(value: str, width: int = 80) -> str:
    _check_width(width)
    return do_center(value, width)


def _bounded_indent(value: str, width: int | str = 4, *args: Any, **kwargs: Any) -> str:
    lines = str(value).count("\n") + 1
    if isinstance(width, int):
        _check_width(width * lines)
    elif len(width) * lines > MAX_PROMPT_CHARS:
        raise PromptTooLarge()
    return do_indent(value, width, *args, **kwargs)


def joined_within_bound(chunks: Iterable[str]) -> str:
    """The rendered chunks joined, refused as soon as they pass the bound."""
    out, size = [], 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_PROMPT_CHARS:
            raise PromptTooLarge()
        out.append(chunk)
    return "".join(out)
