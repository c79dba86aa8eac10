"""Evaluation records: what an evaluator reads and writes, and how its output is signed.

Plain frozen records on the standard library only, so the store, the jobs runner, the
reports and the evaluators can all share them without importing evaluator machinery
(pydantic, the registry). ``evaluators.base`` re-exports them for existing callers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal


def stable_hash(value: Any, length: int = 12) -> str:
    """Short sha256 of a JSON-serialisable value (keys sorted), for signatures and caches."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class Signature:
    """Everything that determines an evaluator's output, as sacrebleu's signature does."""

    evaluator: str
    version: str
    model: str | None = None
    prompt_hash: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def settings_hash(self) -> str:
        """Hash of the settings, so long settings stay short in print."""
        return stable_hash(dict(self.settings), 8)

    def __str__(self) -> str:
        parts = [f"{self.evaluator}:{self.version}"]
        if self.model:
            parts.append(f"model:{self.model}")
        if self.prompt_hash:
            parts.append(f"prompt:{self.prompt_hash}")
        parts.append(f"settings:{self.settings_hash}")
        return "|".join(parts)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Signature:
        """The signature back from :meth:`to_dict`'s form (derived keys are ignored)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored with every result, printed in reports)."""
        out = asdict(self)
        out["settings"] = dict(self.settings)
        out["settings_hash"] = self.settings_hash
        out["text"] = str(self)
        return out


@dataclass(frozen=True)
class EvalItem:
    """An item as an evaluator sees it: its external id, fields, generator and the name
    of its project's task kind (set by the runner; evaluators never guess it)."""

    item_id: str
    fields: Mapping[str, Any]
    generator: str | None = None
    kind: str | None = None


@dataclass
class EvalResult:
    """One evaluator's output for one item."""

    item_id: str
    signature: Signature
    status: Literal["ok", "failed"] = "ok"
    scores: dict[str, float | None] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    reasoning: str | None = None
    raw_reply: str | None = None
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    cached: bool = False
    #: Fields to fix on the item once (Bi-Fact stores the gold facts it decomposed).
    item_updates: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def failure(
        cls, item_id: str, signature: Signature, error: str, raw_reply: str | None = None
    ) -> EvalResult:
        """A failed result: no scores, the reason, and the reply that could not be used."""
        return cls(item_id, signature, status="failed", error=error, raw_reply=raw_reply)
