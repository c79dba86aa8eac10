"""Agreement on span questions: pairwise span F1 and a character-level alpha per label.

Span F1 is taken between every pair of annotators who answered the same item, pooled:
F1 = (matched spans of a + matched spans of b) / (spans of a + spans of b), where a span
is matched when the other annotator has one with the same label and the same range
(exact) or an overlapping range (overlap). For exact matching this is 2 TP / (|A| + |B|).
Character alpha: every character of the item's text is a unit, rated 1 by an annotator
whose spans of that label cover it and 0 otherwise; nominal alpha per label, the headline
their mean. Values reach the ratings as JSON lists; the text lengths come as context.
"""

from __future__ import annotations

import json

import numpy as np

from agreement.measures import Measure, MeasureView
from agreement.ratings import MISSING, Ratings
from agreement.results import Stat
from agreement.statistics import StatContext, declare
from agreement.unit_context import alpha_with_distance, context_of

SPANS = frozenset({"spans"})
Span = tuple[int, int, str]


def _decoded(r: Ratings) -> list[list[Span]]:
    return [[(s["start"], s["end"], s["label"]) for s in json.loads(v)] for v in r.domain]


def _matched(a: list[Span], b: list[Span], overlap: bool) -> int:
    if not overlap:
        return len(set(a) & set(b))
    return sum(any(x[2] == y[2] and x[0] < y[1] and y[0] < x[1] for y in b) for x in a)


def span_f1(ctx: StatContext, overlap: bool) -> Stat:
    """Pooled pairwise span F1; n = annotator pairs on shared items."""
    r = ctx.ratings
    spans = _decoded(r)
    num = den = pairs = 0
    for row in r.codes:
        given = [spans[c] for c in row[row != MISSING]]
        for x in range(len(given)):
            for y in range(x + 1, len(given)):
                a, b = given[x], given[y]
                num += _matched(a, b, overlap) + _matched(b, a, overlap)
                den += len(a) + len(b)
                pairs += 1
    if pairs == 0:
        return Stat.undefined("no two annotators answered the same item")
    if den == 0:
        return Stat.undefined("no annotator marked a span", pairs)
    return Stat(num / den, pairs)


def char_alpha(ctx: StatContext) -> Stat:
    """Nominal alpha per label over characters; headline = mean over defined labels."""
    r = ctx.ratings
    context = context_of(r)
    lengths = context.get("lengths") or {}
    spans = _decoded(r)
    labels = list(context.get("labels") or sorted({s[2] for v in spans for s in v}))
    per: dict[str, float | None] = {}
    reasons: dict[str, str] = {}
    n_chars = 0
    for label in labels:
        blocks = []
        for u, row in zip(r.units, r.codes, strict=True):
            given = [spans[c] for c in row[row != MISSING]]
            size = lengths.get(u) or max((s[1] for g in given for s in g), default=0)
            if len(given) < 2 or size == 0:
                continue
            marks = np.zeros((len(given), size), dtype=bool)
            for k, g in enumerate(given):
                for start, end, lab in g:
                    if lab == label:
                        marks[k, start:end] = True
            yes = marks.sum(axis=0)
            blocks.append(np.stack([len(given) - yes, yes], axis=1))
        counts = np.concatenate(blocks) if blocks else np.zeros((0, 2), int)
        n_chars = len(counts)
        value, why = alpha_with_distance(counts, 1.0 - np.eye(2))
        per[label] = value
        if why:
            reasons[label] = why
    extra = {"char_alpha_by_label": per, "char_alpha_reasons": reasons}
    defined = [v for v in per.values() if v is not None]
    if not defined:
        return Stat(None, n_chars, "no label has a defined character alpha", extra=extra)
    return Stat(float(np.mean(defined)), n_chars, extra=extra)


SPAN_F1_EXACT = declare(
    Measure(
        "span_f1_exact",
        MeasureView(
            "span F1 exact",
            "Pairwise span F1, same label and range",
            summary=True,
            panel=True,
            method="between every two annotators of an item, pooled: (matched spans of each) / "
            "(spans of both); exact: same label and range; n = annotator pairs.",
        ),
        SPANS,
        compute=lambda ctx: span_f1(ctx, False),
        n_key="span_f1_exact_n_pairs",
    )
)
SPAN_F1_OVERLAP = declare(
    Measure(
        "span_f1_overlap",
        MeasureView(
            "span F1 overlap",
            "Pairwise span F1, same label and overlapping range",
            summary=True,
            method="as exact span F1, a span matching when one of the other annotator's spans "
            "with its label overlaps it.",
        ),
        SPANS,
        compute=lambda ctx: span_f1(ctx, True),
        n_key="span_f1_overlap_n_pairs",
    )
)
CHAR_ALPHA = declare(
    Measure(
        "span_char_alpha",
        MeasureView(
            "char alpha (mean)",
            "Character-level alpha per span label",
            summary=True,
            method="each character of an item's text is a unit, 1 when an annotator's span of "
            "the label covers it; nominal alpha per label in char_alpha_by_label, their mean "
            "as headline; n = characters of items with two or more answers.",
        ),
        SPANS,
        compute=char_alpha,
        n_key="span_char_alpha_n_chars",
    )
)
