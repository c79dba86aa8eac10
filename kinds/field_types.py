"""The types of a human field's value, levels of measurement, and the error a value that
does not fit raises.

Apart from :mod:`kinds.base` so that the question types (:mod:`kinds.question_type`,
which the base asks to validate a value) can use them without importing the base back.
A field's ``type`` is one of these members for the built-in types, or the plain
``field_type`` string of a question type a plugin registers.
"""

from __future__ import annotations

from enum import StrEnum


class FieldType(StrEnum):
    """How a human field's value looks."""

    BINARY = "binary"  # 0 / 1
    CATEGORICAL = "categorical"  # one of a label set
    ORDINAL = "ordinal"  # one of an ordered set of numbers
    INTERVAL = "interval"  # a number in [min, max]
    FACT_LABELS = "fact_labels"  # a list of "C" / "M", one per fact of an item list
    MULTI_LABEL = "multi_label"  # a set of labels from a label set (a sorted list)
    TEXT = "text"  # free text
    PAIRWISE = "pairwise"  # which of two or more outputs is better, or a tie
    SPANS = "spans"  # labelled character ranges of one item text field


class Level(StrEnum):
    """Level of measurement, as Krippendorff uses the word."""

    NOMINAL = "nominal"
    ORDINAL = "ordinal"
    INTERVAL = "interval"
    RATIO = "ratio"


class ValidationError(ValueError):
    """A value does not fit its field; the message says why, ``field`` names the field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
