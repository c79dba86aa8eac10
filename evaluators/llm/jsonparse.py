"""Tolerant extraction of one JSON value from a model's reply.

Models wrap JSON in code fences, put prose around it, leave trailing commas, write
invalid backslash escapes, use Python-style quotes, or stop mid-object when they run out
of tokens. :func:`extract_json` tries the strict reading first and repairs step by step;
it raises :class:`JSONExtractError` (with a short reason) when nothing sensible is left.
Only the completion is parsed, never the prompt.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)(?:```|$)", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_VALID_ESCAPES = set('"\\/bfnrtu')
#: A bare value at the very end of a cut-off reply (no closer, comma or space after it).
_CUT_SCALAR = re.compile(r"[-+.\deEtrufalsn]")


class JSONExtractError(ValueError):
    """No JSON value could be read from the reply."""


def extract_json(text: str | None) -> Any:
    """The first JSON object (or array) in ``text``, repaired where possible."""
    if text is None or not text.strip():
        raise JSONExtractError("the reply is empty")
    if "```" not in text:
        # The common case: the reply is exactly one JSON object or array (what JSON mode
        # returns). Parsing it strictly gives what the repair path would, without
        # scanning it character by character in Python.
        stripped = text.strip()
        if stripped[0] in "{[":
            try:
                return json.loads(stripped)
            except json.JSONDecodeError:
                pass
    errors: list[str] = []
    for candidate in _candidates(text):
        try:
            return _parse_repaired(candidate)
        except JSONExtractError as exc:
            errors.append(str(exc))
    raise JSONExtractError(errors[0] if errors else "no JSON object found in the reply")


def _candidates(text: str) -> list[str]:
    """Fenced blocks first (a model often explains around them), then the whole reply."""
    out = [m.group(1) for m in _FENCE.finditer(text) if "{" in m.group(1) or "[" in m.group(1)]
    out.append(text)
    return out


def _parse_repaired(text: str) -> Any:
    start = _first_opener(text)
    if start is None:
        raise JSONExtractError("no JSON object found in the reply")
    body, complete = _balanced_span(text, start)
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        pass
    try:
        return json.loads(_fix_common(body))
    except json.JSONDecodeError:
        pass
    literal = _python_literal(body)
    if literal is not None:
        return literal
    if not complete:
        repaired = _repair_truncated(_fix_common(body))
        if repaired is not None:
            return repaired
        raise JSONExtractError("the JSON in the reply is cut off and could not be repaired")
    try:
        json.loads(_fix_common(body))
    except json.JSONDecodeError as exc:
        raise JSONExtractError(f"invalid JSON: {exc.msg} at position {exc.pos}") from None
    raise JSONExtractError("invalid JSON")  # pragma: no cover - loads above succeeded


def _first_opener(text: str) -> int | None:
    positions = [p for p in (text.find("{"), text.find("[")) if p >= 0]
    return min(positions) if positions else None


def _balanced_span(text: str, start: int) -> tuple[str, bool]:
    """From ``start`` to its matching closer (strings respected); False if never closed."""
    depth = 0
    in_string = False
    escape = False
    quote = ""
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                in_string = False
            continue
        if ch in "\"'" and (ch == '"' or _looks_like_python_quote(text, i)):
            in_string, quote = True, ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1], True
    return text[start:], False


def _looks_like_python_quote(text: str, i: int) -> bool:
    """A single quote opens a string only after {, [, :, or a comma (Python-style dicts)."""
    before = text[:i].rstrip()
    return bool(before) and before[-1] in "{[:,"


def _fix_common(text: str) -> str:
    """Trailing commas and invalid backslash escapes inside strings."""
    text = _TRAILING_COMMA.sub(r"\1", text)
    out: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_string and ch == "\\":
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if nxt in _VALID_ESCAPES and nxt:
                out.append(ch + nxt)
                i += 2
                continue
            out.append("\\\\")  # a lone backslash becomes a literal one
            i += 1
            continue
        if ch == '"':
            in_string = not in_string
        elif in_string and ch == "\n":
            out.append("\\n")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _python_literal(text: str) -> Any | None:
    """Read ``{'a': 'b', 'ok': True}`` style replies (the FinGrAct paper shows them)."""
    if "'" not in text:
        return None
    candidate = re.sub(r"\btrue\b", "True", text)
    candidate = re.sub(r"\bfalse\b", "False", candidate)
    candidate = re.sub(r"\bnull\b", "None", candidate)
    try:
        value = ast.literal_eval(candidate)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _repair_truncated(text: str) -> Any | None:
    """Close a reply cut off mid-object, dropping the last incomplete member if needed."""
    cut = text
    chars, in_string = _outside_strings(text)
    if (
        not in_string
        and chars
        and chars[-1][0] == len(text) - 1
        and _CUT_SCALAR.match(chars[-1][1])
    ):
        # A number (or true/false/null) running into the cut may have been longer ("4"
        # of "45", "0." of "0.8"): drop its member rather than read a made-up value.
        comma = _last_structural_comma(text)
        if comma is None:
            return None
        cut = text[:comma]
    for _ in range(50):
        closed = _close(cut)
        if closed is not None:
            try:
                return json.loads(_TRAILING_COMMA.sub(r"\1", closed))
            except json.JSONDecodeError:
                pass
        comma = _last_structural_comma(cut)
        if comma is None:
            return None
        cut = cut[:comma]
    return None


def _outside_strings(text: str) -> tuple[list[tuple[int, str]], bool]:
    """The characters of ``text`` that lie outside JSON strings, with their positions,
    and whether a string is still open at the end."""
    found: list[tuple[int, str]] = []
    in_string = False
    escape = False
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        else:
            found.append((i, ch))
    return found, in_string


def _close(text: str) -> str | None:
    """Append the closers that ``text`` lacks (closing an open string first)."""
    stack: list[str] = []
    chars, in_string = _outside_strings(text)
    for _, ch in chars:
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
    body = text + ('"' if in_string else "")
    body = body.rstrip()
    if body.endswith(":"):
        return None  # a key without a value: drop the member rather than invent one
    body = body.rstrip(",")
    return body + "".join(reversed(stack))


def _last_structural_comma(text: str) -> int | None:
    commas = [i for i, ch in _outside_strings(text)[0] if ch == ","]
    return commas[-1] if commas else None
