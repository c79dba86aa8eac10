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
from functools import lru_cache
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

    @property
    def placeholders(self) -> set[str]:
        """Names of the ``{{...}}`` fields the template expects."""
        return set(_PLACEHOLDER.findall(self.text))

    def render(self, values: Mapping[str, Any]) -> list[dict[str, str]]:
        """Chat messages with every placeholder filled; a missing value is an error."""
        missing = self.placeholders - set(values)
        if missing:
            raise KeyError(f"prompt {self.id} needs {sorted(missing)}")
        filled = _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.text)
        parts = _SECTION.split(filled)
        messages = [
            {"role": role, "content": body.strip()}
            for role, body in zip(parts[1::2], parts[2::2], strict=True)
            if body.strip()
        ]
        if not messages:
            messages = [{"role": "user", "content": filled.strip()}]
        return messages


@lru_cache(maxsize=64)
def load_prompt(prompt_id: str) -> PromptTemplate:
    """The template ``prompt_id`` (e.g. ``bifact_decompose.v1``)."""
    path = PROMPT_DIR / f"{prompt_id}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template {path.name} in {PROMPT_DIR}")
    data = path.read_bytes()
    return PromptTemplate(prompt_id, data.decode("utf-8"), hashlib.sha256(data).hexdigest())


def prompts_hash(prompt_ids: Iterable[str], length: int = 16) -> str:
    """sha256 over the named template files (ids sorted), shortened for signatures."""
    digest = hashlib.sha256()
    for pid in sorted(set(prompt_ids)):
        digest.update(pid.encode("utf-8") + b"\0" + load_prompt(pid).sha256.encode("ascii"))
    return digest.hexdigest()[:length]
