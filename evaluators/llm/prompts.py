"""Versioned prompt templates, stored as files in ``evaluators/prompts/``.

A template file is named ``NAME.vN.md``. Lines ``[system]`` and ``[user]`` open the two
message parts; ``{{field}}`` marks a value filled in at render time (values are inserted
as they are, never re-scanned, so a claim containing braces is safe). The prompt hash in
an evaluator's signature is the sha256 of the template files it uses.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.M)


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
            for role, pieces in sections:
                body = "".join([text[p] if i % 2 else p for i, p in enumerate(pieces)]).strip()
                if body:
                    messages.append({"role": role, "content": body})
            if messages:
                return messages
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
