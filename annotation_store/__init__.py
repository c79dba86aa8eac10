"""The annotation store: SQLAlchemy models, the Store API, import/export and the demo."""

from annotation_store.records import (
    AnnotatorInfo,
    ImportReport,
    ItemRecord,
    ProjectInfo,
    ProjectSummary,
    SaveOutcome,
)
from annotation_store.store import Store, open_store
from annotation_store.store_projects import StoreError

__all__ = [
    "AnnotatorInfo",
    "ImportReport",
    "ItemRecord",
    "ProjectInfo",
    "ProjectSummary",
    "SaveOutcome",
    "Store",
    "StoreError",
    "open_store",
]
