"""Versioned prompt templates, stored as files in ``evaluators/prompts/``.

A template file is named ``NAME.vN.md``. Lines ``[system]`` and ``[user]`` open the two
message parts; ``{{field}}`` marks a value filled in at render time (values are inserted
as they are, never re-scanned, so a claim containing braces is safe). The prompt hash in
an evaluator's signature is the sha256 of the template files it uses.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.M)
_escape = json.encoder.encode_basestring  # a JSON string literal, as json.dumps writes it


class RenderedMessages(list):  # type: ignore[type-arg]
    """The chat messages of one rendering, with their canonical JSON text (as inside a
    cache key) built from the template's pre-escaped pieces: the long literal text is
    escaped once per template instead of once per item."""

    __slots__ = ("_json", "_parts")

    def __init__(self, messages: list[dict[str, str]], text: str) -> None:
        super().__init__(messages)
        self._json = text
        self._parts = [(m["role"], m["content"]) for m in messages]

    def canonical_json(self) -> str | None:
        """The canonical JSON text of the messages, or None when the list or a message
        changed after rendering (then the caller serialises them itself)."""
        if len(self) != len(self._parts):
            return None
        for message, (role, content) in zip(self, self._parts, strict=True):
            if (
                type(message) is not dict
                or len(message) != 2
                or message.get("role") is not role
                or message.get("content") is not content
            ):
                return None
        return self._json


@dataclass(frozen=True)
class PromptTemplate:
    """One template file: its id (``name.vN``), text and sha256."""

    id: str
    text: str
    sha256: str

    @cached_property
    def placeholders(self) -> frozenset[str]:
        """Names of the ``{{...}}`` fields the template expects."""
        return frozenset(_PLACEHOLDER.findall(self.text))

    def render(self, values: Mapping[str, Any]) -> list[dict[str, str]]:
        """Chat messages with every placeholder filled; a missing value is an error."""
        missing = self.placeholders - values.keys()
        if missing:
            raise KeyError(f"prompt {self.id} needs {sorted(missing)}")
        text = {name: str(values[name]) for name in self.placeholders}
        sections = self._sections
        if sections is not None and not any("[" in v for v in text.values()):
            messages = []
            encoded = []
            plans = self._json_plans
            for index, (role, pieces) in enumerate(sections):
                filled = [text[p] if i % 2 else p for i, p in enumerate(pieces)]
                body = "".join(filled).strip()
                if body:
                    messages.append({"role": role, "content": body})
                    encoded.append(_message_json(plans[index], filled, role, body))
            if messages:
                return RenderedMessages(messages, "[" + ", ".join(encoded) + "]")
        return self._render_text(text)

    def _render_text(self, text: Mapping[str, str]) -> list[dict[str, str]]:
        """Fill the whole text, then split it into messages (the reference rendering)."""
        filled = _PLACEHOLDER.sub(lambda m: text[m.group(1)], self.text)
        parts = _SECTION.split(filled)
        messages = [
            {"role": role, "content": body.strip()}
            for role, body in zip(parts[1::2], parts[2::2], strict=True)
            if body.strip()
        ]
        if not messages:
            messages = [{"role": "user", "content": filled.strip()}]
        return messages

    @cached_property
    def _json_plans(self) -> list[list[str] | None]:
        """Per section, its message's canonical JSON with the values left out: the
        escaped literal pieces (even places; the first and last carry the text around the
        content and are stripped as the body is), to be joined with the escaped values.
        None when the first or last piece is blank, so that a strip could reach a value.

        Escaping works character by character, so the JSON string of a text is the JSON
        strings of its parts put together: the long literal text is escaped once here.
        """
        plans: list[list[str] | None] = []
        for role, pieces in self._sections or []:
            first, last = pieces[0].lstrip(), pieces[-1].rstrip()
            if not first or not last:
                plans.append(None)
                continue
            if len(pieces) == 1:  # no value: one piece, stripped at both ends
                first = last = pieces[0].strip()
            plan = [_escape(p)[1:-1] if i % 2 == 0 else "" for i, p in enumerate(pieces)]
            plan[0] = _escape(first)[1:-1]
            plan[-1] = _escape(last)[1:-1]
            plan[0] = '{"content": "' + plan[0]
            plan[-1] += f'", "role": {_escape(role)}}}'
            plans.append(plan)
        return plans

    @cached_property
    def _sections(self) -> list[tuple[str, list[str]]] | None:
        """Each section's role and pieces (literal text, placeholder name, literal ...).

        Split once instead of on every render. It gives :meth:`_render_text`'s messages
        whenever no value holds a "[": then every line of the filled text that starts a
        section is a template line (a template line with a "[" must have no placeholder,
        which this checks), so the sections are the template's. None when a template
        line has both (render falls back to the reference rendering).
        """
        if any("[" in line and _PLACEHOLDER.search(line) for line in self.text.splitlines()):
            return None
        parts = _SECTION.split(self.text)
        return [
            (role, _PLACEHOLDER.split(body))
            for role, body in zip(parts[1::2], parts[2::2], strict=True)
        ]


def _message_json(plan: list[str] | None, filled: list[str], role: str, body: str) -> str:
    """The canonical JSON of one message ``{"role": role, "content": body}``."""
    if plan is None:
        return f'{{"content": {_escape(body)}, "role": {_escape(role)}}}'
    out = list(plan)
    for i in range(1, len(filled), 2):
        out[i] = _escape(filled[i])[1:-1]
    return "".join(out)


@lru_cache(maxsize=64)
def load_prompt(prompt_id: str) -> PromptTemplate:
    """The template ``prompt_id`` (e.g. ``bifact_decompose.v1``)."""
    path = PROMPT_DIR / f"{prompt_id}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template {path.name} in {PROMPT_DIR}")
    data = path.read_bytes()
    return PromptTemplate(prompt_id, data.decode("utf-8"), hashlib.sha256(data).hexdigest())


def latest_prompt(name: str) -> str | None:
    """The newest version of template ``name`` (``name.vN`` with the largest N), or None."""
    versions = [
        int(m.group(1))
        for path in PROMPT_DIR.glob(f"{name}.v*.md")
        if (m := re.fullmatch(rf"{re.escape(name)}\.v(\d+)\.md", path.name))
    ]
    return f"{name}.v{max(versions)}" if versions else None


def prompts_hash(prompt_ids: Iterable[str], length: int = 16) -> str:
    """sha256 over the named template files (ids sorted), shortened for signatures."""
    digest = hashlib.sha256()
    for pid in sorted(set(prompt_ids)):
        digest.update(pid.encode("utf-8") + b"\0" + load_prompt(pid).sha256.encode("ascii"))
    return digest.hexdigest()[:length]
