"""A judge's reply: the instructions that ask for it, its checks, and combining samples."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluators.judges.spec import OutputSpec
from kinds.base import ValidationError, parse_binary


class JudgeReply(BaseModel):
    """The JSON a judge returns: an optional explanation, the answer, maybe a probability."""

    model_config = ConfigDict(extra="ignore")
    explanation: str = ""
    answer: Any = None
    probability: float | None = None


def instructions(out: OutputSpec, facts: Sequence[str] | None = None) -> str:
    """The reply format, in words, appended to the rendered template."""
    shape = {
        "binary": '"answer": 1 for yes or 0 for no',
        "label": f'"answer": exactly one of {json.dumps(out.labels)}',
        "integer": f'"answer": a whole number from {_num(out.min)} to {_num(out.max)}',
        "decimal": f'"answer": a number from {_num(out.min)} to {_num(out.max)}',
        "fact_labels": '"answer": a list with one label per fact, in order: "C" when the fact '
        'is implied, "M" when it is missing or contradicted',
    }[out.type]
    keys = []
    if out.explanation:
        keys.append('"explanation": your reasoning in a few sentences (write it first)')
    keys.append(shape)
    if out.probability:
        keys.append('"probability": how likely the answer is yes, from 0 to 1')
    lines = ["Reply with one JSON object and nothing else, with these keys:"]
    lines += [f"- {k}" for k in keys]
    if out.type == "fact_labels":
        lines.append("")
        lines.append("Facts to label:")
        lines += [f"{i}. {fact}" for i, fact in enumerate(facts or [], 1)]
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def parse_answer(out: OutputSpec, value: Any, n_facts: int = 0) -> Any:
    """The answer in canonical form (0/1, a label, a number, a C/M list); ValueError if it
    does not fit the output spec."""
    if value is None:
        raise ValueError("the reply has no 'answer'")
    if out.type == "binary":
        try:
            return parse_binary(value)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None
    if out.type == "label":
        text = str(value).strip()
        for label in out.labels:
            if text.lower() == label.lower():
                return label
        raise ValueError(f"{text!r} is not one of {out.labels}")
    if out.type == "fact_labels":
        if not isinstance(value, list):
            raise ValueError("'answer' must be a list of 'C' / 'M'")
        labels = [str(v).strip().upper() for v in value]
        if any(v not in ("C", "M") for v in labels):
            raise ValueError("every fact label must be 'C' or 'M'")
        if len(labels) != n_facts:
            raise ValueError(f"{len(labels)} labels for {n_facts} facts")
        return labels
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a number") from None
    if math.isnan(number) or number < (out.min or 0) - 1e-9 or number > (out.max or 0) + 1e-9:
        raise ValueError(f"{value!r} is outside {_num(out.min)}..{_num(out.max)}")
    if out.type == "integer":
        if abs(number - round(number)) > 1e-9:
            raise ValueError(f"{value!r} is not a whole number")
        return int(round(number))
    return number


def reply_problem(out: OutputSpec, n_facts: int) -> Any:
    """A check for the client: None when a reply fits, else what to fix (re-asked)."""

    def check(reply: JudgeReply) -> str | None:
        try:
            parse_answer(out, reply.answer, n_facts)
        except ValueError as exc:
            return str(exc)
        if out.probability and reply.probability is not None:
            if not 0.0 <= reply.probability <= 1.0:
                return "'probability' must be between 0 and 1"
        return None

    return check


def combine(out: OutputSpec, aggregate: str, answers: Sequence[Any]) -> Any:
    """One answer from the samples: the mean (numbers) or the most frequent one.

    Ties in a majority go to the smallest number, the label listed first, or 'M' for a fact
    (the stricter reading), so the choice never depends on reply order.
    """
    if out.type == "fact_labels":
        return [_majority(col, ["M", "C"]) for col in zip(*answers, strict=True)]
    if out.type == "label":
        return _majority(answers, out.labels)
    if aggregate == "mean":
        return sum(float(a) for a in answers) / len(answers)
    return _majority(answers, sorted(set(answers)))


def _majority(values: Sequence[Any], order: Sequence[Any]) -> Any:
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in order if counts.get(v) == best)


def scores_of(out: OutputSpec, fields: Sequence[str], answer: Any) -> dict[str, float | None]:
    """The numbers stored for each scored field: the answer itself, a label's position in
    the label list, or the share of facts labelled C."""
    if out.type == "label":
        value: float | None = float(out.labels.index(answer))
    elif out.type == "fact_labels":
        value = sum(v == "C" for v in answer) / len(answer) if answer else None
    else:
        value = float(answer)
    return {f: value for f in fields}
