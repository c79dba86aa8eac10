"""The declaration API of the among-people measures, and the field tests they apply by.

A measure among people is a :class:`~agreement.measures.Measure` of the among-people
section, in the one measure registry: it names its JSON key, the field types it applies
to, the keys of its CI and n, its ``compute`` function, and its view (header, name, how
its value and CI are formatted: :class:`~agreement.measures.MeasureView`). The engine (:func:`agreement.human.variable_agreement`) computes
every declared measure through the registry; the JSON document, the text, HTML and
Markdown reports, the side panel and the Agreement page all read this list, so a new
measure is one module in ``agreement/builtin_measures/among_people/`` (or one
:func:`declare` call in a plugin or a test).

The classic statistics (alpha by level, Fleiss' kappa, percent agreement, AC1/AC2,
Cohen's pair mean) are computed in :mod:`agreement.people_measures`; their ``layout`` and
``json_rank`` keep the JSON keys where the document always had them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from agreement.measures import (
    AMONG_PEOPLE,
    DetailEntry,
    Entry,
    Measure,
    measures,
    read,
    read_details,
    register_measure,
    unregister_measure,
)
from agreement.measures import (
    DASH as DASH,  # re-exported: the views import the dash from here
)
from agreement.stat_context import StatContext as StatContext  # re-exported for plugins
from kinds import Level
from kinds.question_type import QuestionType

# The field types by name, for statistics declared that way (a plugin's, a test's toy):
# a pairwise choice is a nominal field (its choice); a multi-label set has exact-set
# alpha and percent agreement, and MASI alpha of its own (agreement/multilabel.py).
ALL = frozenset(
    {
        "binary",
        "categorical",
        "ordinal",
        "interval",
        "fact_labels",
        "derived",
        "pairwise",
        "multi_label",
    }
)
CATEGORICAL = frozenset({"binary", "categorical", "ordinal", "fact_labels", "pairwise"})
NOMINAL = frozenset({"binary", "categorical", "fact_labels", "pairwise"})
SCALED = frozenset({"ordinal", "interval"})
NUMERIC = frozenset({"ordinal", "interval", "derived"})
CONTINUOUS = frozenset({"interval", "derived"})
#: Derived scores (a kind's formula over one annotator's labels) are no question type:
#: the classic statistics name them; every question type is matched by its properties.
DERIVED = frozenset({"derived"})


def alpha_fits(t: QuestionType) -> bool:
    """Krippendorff's alpha (and percent agreement) fit: the type has alpha levels."""
    return bool(t.agreement_levels)


def few_categories(t: QuestionType) -> bool:
    """Fleiss and Cohen fit: answers fall in a few categories."""
    return t.categories


def nominal_categories(t: QuestionType) -> bool:
    """AC1 fits: a few unordered categories."""
    return t.categories and t.level is Level.NOMINAL


def scaled(t: QuestionType) -> bool:
    """AC2 fits: one ordinal or interval value per answer."""
    return not t.structured and t.level in (Level.ORDINAL, Level.INTERVAL)


def numeric_scale(t: QuestionType) -> bool:
    """The ICC fits: one number per answer on an ordinal or interval scale."""
    return t.numeric and not t.structured and t.level in (Level.ORDINAL, Level.INTERVAL)


def continuous(t: QuestionType) -> bool:
    """Pearson's r fits: one number per answer on an interval scale."""
    return t.numeric and not t.structured and t.level is Level.INTERVAL


def __getattr__(name: str) -> Any:
    # ``Statistic`` was the among-people name of a Measure; plugins may still import it.
    if name == "Statistic":
        warnings.warn(
            "agreement.statistics.Statistic is deprecated: use agreement.measures.Measure",
            DeprecationWarning,
            stacklevel=2,
        )
        return Measure
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def declare(stat: Measure) -> Measure:
    """Add a statistic to the measure registry (its key must be new); returns it."""
    return register_measure(stat)


def undeclare(key: str) -> None:
    """Remove the statistic declared under ``key``."""
    unregister_measure(key)


@contextlib.contextmanager
def declared(stat: Measure) -> Iterator[Measure]:
    """The statistic declared for the duration of a ``with`` block (tests, plugins)."""
    declare(stat)
    try:
        yield stat
    finally:
        unregister_measure(stat.key, stat.section)


def statistics() -> tuple[Measure, ...]:
    """Every declared statistic among people, in display order."""
    return measures(AMONG_PEOPLE)


def field_entries(f: dict[str, Any], keep: Callable[[Measure], bool] | None = None) -> list[Entry]:
    """The statistics that apply to field block ``f`` (a JSON field dict), in order."""
    out = []
    for stat in statistics():
        if not stat.applies(f["type"]) or (keep is not None and not keep(stat)):
            continue
        out += read(stat, f, f["n_items"])
    return out


def field_details(f: dict[str, Any], kind: str | None = None) -> list[DetailEntry]:
    """The declared details (notes, per-pair values) present in field block ``f``, in
    declaration order; of ``kind`` only when given."""
    return [d for stat in statistics() for d in read_details(stat, f, kind)]
