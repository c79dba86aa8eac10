"""The annotation store, plain persistence: the Store (reached by its methods), its tables
and models, migrations and records. Policy built on it lives in packages above
(``studies``, ``crowd``, ``annotating``, ``accounts``, ``adjudication``, ``interop``).

Public names are imported on first use (PEP 562), so a light submodule (records, the
quick project listing) does not pull in SQLAlchemy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from common.package import own_module

if TYPE_CHECKING:
    from annotation_store.records import (
        AnnotatorInfo,
        ImportReport,
        ItemRecord,
        JobInfo,
        ProjectInfo,
        ProjectSummary,
        RunInfo,
        SaveOutcome,
        StudyChecks,
    )
    from annotation_store.store import Store, open_store
    from annotation_store.store_projects import StoreError

_EXPORTS = {
    "AnnotatorInfo": "annotation_store.records",
    "ImportReport": "annotation_store.records",
    "ItemRecord": "annotation_store.records",
    "JobInfo": "annotation_store.records",
    "ProjectInfo": "annotation_store.records",
    "ProjectSummary": "annotation_store.records",
    "RunInfo": "annotation_store.records",
    "SaveOutcome": "annotation_store.records",
    "StudyChecks": "annotation_store.records",
    "Store": "annotation_store.store",
    "StoreError": "annotation_store.store_projects",
    "open_store": "annotation_store.store",
}

__all__ = [
    "AnnotatorInfo",
    "ImportReport",
    "ItemRecord",
    "JobInfo",
    "ProjectInfo",
    "ProjectSummary",
    "RunInfo",
    "SaveOutcome",
    "StudyChecks",
    "Store",
    "StoreError",
    "open_store",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(own_module(_EXPORTS[name])), name)
    raise AttributeError(f"module 'annotation_store' has no attribute {name!r}")
