"""Task kinds: one module each, found by the registry in ``kinds.registry``."""

from kinds.base import (
    DerivedScore,
    FieldType,
    HumanField,
    ItemField,
    Level,
    TaskKind,
    ValidationError,
)
from kinds.registry import get_kind, kind_names, register_kind

__all__ = [
    "DerivedScore",
    "FieldType",
    "HumanField",
    "ItemField",
    "Level",
    "TaskKind",
    "ValidationError",
    "get_kind",
    "kind_names",
    "register_kind",
]
