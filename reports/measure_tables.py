"""The evaluator tables of the reports, column by declared measure.

Headers, decimals and notes come from the measures of the evaluator-vs-people, binary
decision and bias sections (:mod:`agreement.measures`); a measure declared there (or by a
plugin) is a column here with no edit.
"""

from __future__ import annotations

from typing import Any

from agreement.measures import BIAS, BINARY, DASH, EVALUATOR, Entry, Measure, measures, read
from agreement.views import evaluator_views
from common.notes import once_each
from reports.bias_text import own_model_text


def _tested(m: Measure) -> bool:
    return m.nested or m.p_key is not None


def _with_ci(e: Entry) -> str:
    return e.text if not e.ci else f"{e.text} {e.ci_text}"


def evaluator_header() -> list[str]:
    """evaluator, field, n, runs, each correlation-like measure with its p, the bias counts."""
    head = ["evaluator", "field", "n", "runs"]
    for m in measures(EVALUATOR):
        head += [f"{m.view.header} [CI]", "p"] if _tested(m) else [f"{m.view.header} [CI]"]
    return head + [f"bias {m.view.header}" for m in measures(BIAS) if m.view.summary]


def _bias_cell(e: Entry) -> str:
    return DASH if e.value is None else f"{e.text} of {e.n}"


def evaluator_rows(data: dict[str, Any]) -> list[list[Any]]:
    """One row per evaluator and field of the JSON document ``data``."""
    rows = []
    for v in evaluator_views(data):
        row: list[Any] = [v.evaluator, v.field, v.block["n"], v.block["n_runs"]]
        for x in v.entries(EVALUATOR):
            row += [_with_ci(x), x.p_text] if _tested(x.measure) else [_with_ci(x)]
        bias = [x for x in v.entries(BIAS) if x.measure.view.summary]
        rows.append(row + [_bias_cell(x) for x in bias])
    return rows


def decision_header() -> list[str]:
    """The calibrated binary comparison's columns."""
    return ["evaluator", "score", *(m.view.header for m in measures(BINARY)), "n test", "n dev"]


def decision_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per calibrated comparison (``data["calibrated"][field]``)."""
    return [
        [
            r["evaluator"],
            r["score_field"],
            *(x.text for m in measures(BINARY) for x in read(m, r)),
            r["n"],
            r.get("n_dev", DASH),
        ]
        for r in rows
    ]


def evaluator_notes(data: dict[str, Any]) -> list[str]:
    """Why an evaluator figure or a calibrated row shows a dash, and how 1-5 grades were
    mapped for the bias counts; each reason once, with the figures it concerns."""
    out: list[tuple[str, str]] = []
    for v in evaluator_views(data):
        where = f"{v.evaluator} / {v.field}"
        for x in v.entries(EVALUATOR):
            if x.reason:
                out.append((f"{where} / {x.measure.key}", x.reason))
        mapping = (v.bias or {}).get("scale_mapping")
        if mapping:
            out.append((f"{where} / bias", f"1-5 grades {mapping}"))
        if v.bias:
            out.append((f"{where} / bias", own_model_text(v.bias)))
    for rows in data.get("calibrated", {}).values():
        for r in rows:
            if r.get("reason"):
                out.append((f"{r['evaluator']} / {r['score_field']}", r["reason"]))
            for k, why in (r.get("reasons") or {}).items():
                out.append((f"{r['evaluator']} / {r['score_field']} / {k}", why))
    return once_each(out, "figures")


def method_notes() -> list[tuple[str, str]]:
    """The method notes of every declared measure that has one."""
    return [(m.view.name, m.view.method) for m in measures() if m.view.method]
