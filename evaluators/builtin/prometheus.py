"""Prometheus-style absolute grading: rubric with five levels, ``Feedback ... [RESULT] n``.

Only the completion is parsed, and only after the LAST ``[RESULT]`` marker: an integer
1..5 must follow it and nothing else but punctuation. A reply that breaks the format is
re-asked (with the reason) up to ``max_reasks`` times and then recorded as a failure
with the raw reply -- never as a score. The 1-5 grade is mapped onto the kind's field by
the setting ``scale_mapping`` (see :mod:`evaluators.llm.targets`).

Decoding follows the FinGrAct paper's Prometheus baseline: temperature 1 and top_p 0.9
by default; ``temperature=0`` (with any ``top_p``) is the deterministic variant.
``prometheus_ucr`` is the paper's second experiment: the links of the explanation are
fetched by the URL Content Retriever (shared with ``fingract_ucr`` and ``geval_ucr``) and
their condensed text is added to the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from evaluators.base import EvalResult, EvaluatorSettings
from evaluators.llm.client import LLMError
from evaluators.llm.evaluator import Usage
from evaluators.llm.rubric import Grade, NoGrade, RubricJudge
from evaluators.llm.targets import ScaleMapping
from evaluators.registry import register_evaluator
from evaluators.ucr.judging import RetrieverJudge, UCRJudgeSettings

PROMPT_UCR = "prometheus_actionability_ucr.v2"
_MARKER = "[RESULT]"
_TAIL = re.compile(
    r"^\s*[:=\-]?\s*\(?\s*([1-5])\s*\)?\s*(?:/\s*5|out of 5)?\s*[.!]?\s*(?:</s>)?\s*$", re.I
)
_REASK = (
    "Your reply did not follow the required format: {error}. Reply again as "
    '"Feedback: (your feedback) [RESULT] (an integer from 1 to 5)" and nothing else.'
)


class PrometheusSettings(EvaluatorSettings):
    """Decoding (the FinGrAct paper's baseline: temperature 1, top_p 0.9), re-asks and
    the 1-5 -> field mapping."""

    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float = Field(0.9, gt=0.0, le=1.0)
    max_tokens: int | None = Field(1024, ge=16)
    max_reasks: int = Field(2, ge=0, le=10)
    scale_mapping: ScaleMapping = "stretch"


class PrometheusUCRSettings(PrometheusSettings, UCRJudgeSettings):
    """Prometheus settings plus the URL Content Retriever's."""


class GradeParseError(ValueError):
    """The reply has no usable ``[RESULT] n`` at its end."""


def parse_grade(text: str | None) -> tuple[str, int]:
    """(feedback, grade) from the end of a reply; raises GradeParseError otherwise."""
    if not text or not text.strip():
        raise GradeParseError("the reply is empty")
    pos = text.upper().rfind(_MARKER)
    if pos < 0:
        raise GradeParseError("no [RESULT] marker in the reply")
    tail = text[pos + len(_MARKER) :]
    match = _TAIL.match(tail)
    if not match:
        shown = tail.strip()[:40] or "nothing"
        raise GradeParseError(f"the last [RESULT] is followed by {shown!r}, not an integer 1-5")
    feedback = text[:pos].strip()
    feedback = re.sub(r"^\s*Feedback\s*:\s*", "", feedback, flags=re.I)
    return feedback, int(match.group(1))


@register_evaluator
class Prometheus(RubricJudge[PrometheusSettings]):
    """Prometheus absolute grading (Kim et al. 2024) on each kind's one numeric score."""

    name = "prometheus"
    # 2: level 1 also covers an explanation that points out the error but corrects
    # nothing and cites no source, as the paper's rubric has it (prompts v2)
    version = "2"
    title = "Prometheus (absolute grading)"
    description = (
        "Rubric with five level descriptions; 'Feedback: ... [RESULT] n' parsed "
        "from the end of the reply only."
    )
    kinds = ("actionability", "intent_resolution")
    fields = ("actionability", "resolution")
    Settings = PrometheusSettings
    judge = "prometheus"

    @classmethod
    def decoding_notes(cls, s: Mapping[str, Any], results: Sequence[EvalResult]) -> list[str]:
        """The decoding (paper: temperature 1, top_p 0.9)."""
        paper = s.get("temperature") == 1.0 and s.get("top_p") == 0.9
        return [
            f"decoding temperature {s.get('temperature')}, top_p {s.get('top_p')}"
            + (" (the FinGrAct paper's baseline)" if paper else " (not the paper's 1 / 0.9)")
        ]

    def input_block(self, named: Mapping[str, str]) -> str:
        """One ``###Heading:`` section per input, as the Prometheus format lays them out."""
        return "\n\n".join(f"###{name}:\n{text}" for name, text in named.items())

    async def grade(
        self, messages: list[dict[str, str]], usage: Usage, details: dict[str, Any]
    ) -> Grade | NoGrade:
        """Ask, read ``[RESULT] n``; re-ask with the reason up to ``max_reasks`` times."""
        s = self.settings
        details = {
            "decoding": {"temperature": s.temperature, "top_p": s.top_p},
            "scale_mapping": s.scale_mapping,
            **details,
        }
        raw: str | None = None
        error = ""
        for attempt in range(s.max_reasks + 1):
            try:
                reply = usage.add(
                    await self.llm.complete(
                        messages,
                        temperature=s.temperature,
                        top_p=s.top_p,
                        max_tokens=s.max_tokens,
                        cache_salt=self.run_salt(s.temperature),
                    )
                )
            except LLMError as exc:
                return NoGrade(f"LLM call failed: {exc}", details, raw)
            raw = reply.raw or ""
            try:
                feedback, grade = parse_grade(raw)
            except GradeParseError as exc:
                error = str(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": _REASK.format(error=error)},
                ]
                continue
            done = {**details, "grade_1_5": grade, "attempts": attempt + 1}
            return Grade(grade, done, raw, reasoning=feedback)
        error = f"no valid grade after {s.max_reasks + 1} attempts: {error}"
        return NoGrade(error, details, raw)


@register_evaluator
class PrometheusUCR(RetrieverJudge, Prometheus):
    """Prometheus with the URL Content Retriever: the linked pages are in the prompt."""

    name = "prometheus_ucr"
    title = "Prometheus + URL Content Retriever"
    description = (
        "Prometheus's rubric grading with each link of the explanation fetched (safely), "
        "condensed and shown to the judge; pages shared with fingract_ucr and geval_ucr."
    )
    Settings = PrometheusUCRSettings
    ucr_prompt = PROMPT_UCR
