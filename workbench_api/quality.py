"""Annotator quality, label aggregation and exclusions of one project, headless.

``store.exclude_annotator(project, annotator, reason, source=...)``,
``store.include_annotator`` and ``store.exclusions`` record who is left out and why.
"""

from __future__ import annotations

from reports.quality import annotator_table
from study_inputs.gold import gold_answers
from study_inputs.labels import apply_crowd_flags
from study_inputs.references import (
    REFERENCES,
    aggregable_fields,
    aggregate_labels,
    aggregated_reference,
    combined_reference,
)

__all__ = [
    "REFERENCES",
    "aggregable_fields",
    "aggregate_labels",
    "aggregated_reference",
    "annotator_table",
    "apply_crowd_flags",
    "combined_reference",
    "gold_answers",
]
