"""The base of the generic 1-5 rubric judges (G-Eval, Prometheus).

What a judge scores, on which range and from which item fields comes from the item's
task kind (:mod:`evaluators.llm.targets`); the prompt is the kind's own template or the
judge's generic one filled from the kind's declarations. Subclasses only ask the model
and read its 1-5 grade (:meth:`RubricJudge.grade`); the prompt, the failure handling and
the mapping onto the kind's field live here once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from evaluators.base import (
    EvalItem,
    EvalResult,
    SettingsT,
    Signature,
    run_settings,
    stable_hash,
)
from evaluators.llm.evaluator import LLMEvaluator, Usage
from evaluators.llm.prompts import prompts_hash
from evaluators.llm.targets import (
    GENERIC,
    ScaleMapping,
    Target,
    heading,
    level_lines,
    mapping_note,
    prompt_values,
    target_of,
    template_for,
)
from evaluators.ucr.judging import UCRJudgeSettings, add_link_content, retriever_notes
from kinds import TaskKind, get_kind, kind_names
from kinds.registry import KINDS


@dataclass
class Grade:
    """A judge's 1-5 grade with what it wants kept (details, feedback, raw reply)."""

    value: float
    details: dict[str, Any]
    raw: str | None
    reasoning: str | None = None


@dataclass
class NoGrade:
    """The judge's reply held no usable grade: the reason and the raw reply."""

    error: str
    details: dict[str, Any]
    raw: str | None


class RubricJudge(LLMEvaluator[SettingsT]):
    """A 1-5 judge of a kind's one numeric score (see :mod:`evaluators.llm.targets`)."""

    #: Template prefix: ``<judge>_<kind>.v1`` and ``<judge>_generic.v1``.
    judge: ClassVar[str] = ""
    #: The ``_ucr`` variants render one fixed template (actionability only).
    use_ucr: ClassVar[bool] = False
    ucr_prompt: ClassVar[str] = ""

    @classmethod
    def applies_to(cls, kind: str) -> bool:
        """Every kind with a target and a template (its own, or the generic one through
        a ``judge_hint``); the ``_ucr`` variants only the kinds they name."""
        if cls.use_ucr or kind not in KINDS:
            return super().applies_to(kind)
        task = get_kind(kind)
        return target_of(task) is not None and template_for(cls.judge, task) is not None

    @classmethod
    def template_ids(cls) -> tuple[str, ...]:
        """Every template the judge may render: the kinds' own ones and the generic one."""
        if cls.use_ucr:
            return (cls.ucr_prompt,)
        own = {template_for(cls.judge, get_kind(name)) for name in kind_names()}
        return tuple(sorted({f"{cls.judge}_{GENERIC}.v1", *(t for t in own if t)}))

    def prompt_hash(self) -> str | None:
        """sha256 over :meth:`template_ids` (a kind's words in the generic template are
        part of the kind, as its guideline is, and are hashed into each result's
        details instead)."""
        return prompts_hash(self.template_ids())

    def prompt_versions(self) -> list[str]:
        """Template ids the judge may render."""
        return list(self.template_ids())

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """The judge's own notes, then the 1-5 mapping (and the retriever's notes)."""
        s = run_settings(results)
        notes = [
            *cls.decoding_notes(s, results),
            mapping_note(str(s.get("scale_mapping", "stretch"))),
        ]
        if cls.use_ucr:
            notes += retriever_notes(r.details for r in results)
        return notes

    @classmethod
    def decoding_notes(cls, s: Mapping[str, Any], results: Sequence[EvalResult]) -> list[str]:
        """Notes on the decoding and scoring settings; subclasses say theirs."""
        return []

    # -- the prompt ---------------------------------------------------------------------
    def target(self, item: EvalItem) -> tuple[TaskKind, Target, str]:
        """The item's kind, its target and the template to render (ValueError if none)."""
        if not item.kind:
            raise ValueError("the item carries no task kind (the runner sets it)")
        kind = get_kind("actionability" if self.use_ucr else item.kind)
        target = target_of(kind)
        prompt = self.ucr_prompt if self.use_ucr else template_for(self.judge, kind)
        if target is None or prompt is None:
            raise ValueError(f"{self.name} does not apply to kind {kind.name!r}")
        return kind, target, prompt

    def generic_values(self, target: Target, values: Mapping[str, str]) -> dict[str, str]:
        """The generic template's placeholders from the kind's declarations."""
        lo, hi = f"{target.minimum:g}", f"{target.maximum:g}"
        return {
            "task": target.title,
            "criterion_name": heading(target.field),
            "criterion": target.hint.strip(),
            "question": target.description or heading(target.field),
            "scale": f"{lo} to {hi}",
            "levels": level_lines(target) or f"- the field runs from {lo} to {hi}",
            "inputs": self.input_block({heading(k): v for k, v in values.items()}),
        }

    def input_block(self, named: Mapping[str, str]) -> str:
        """The item's inputs as prompt text; subclasses lay them out their way."""
        return "\n".join(f"{name}: {text}" for name, text in named.items())

    async def messages(
        self, item: EvalItem, details: dict[str, Any]
    ) -> tuple[Target, list[dict[str, str]]]:
        """The target and the rendered prompt; with UCR, the linked pages are fetched
        into it. ``details`` gets the template and target."""
        _kind, target, prompt = self.target(item)
        values = prompt_values(item.fields, target)
        details.update(prompt_versions=[prompt], target=target.field)
        if self.use_ucr:
            settings = self.settings
            if not isinstance(settings, UCRJudgeSettings):
                raise TypeError(f"{self.name} reads linked pages but has no retriever settings")
            await add_link_content(values, settings, self.ctx.pages, details)
        if prompt.startswith(f"{self.judge}_{GENERIC}."):
            generic = self.generic_values(target, {k: values[k] for k in target.inputs})
            static = {k: v for k, v in generic.items() if k != "inputs"}
            details["kind_prompt_hash"] = stable_hash(static)
            values = generic
        return target, self.render(prompt, **values)

    # -- one item -----------------------------------------------------------------------
    async def grade(
        self, messages: list[dict[str, str]], usage: Usage, details: dict[str, Any]
    ) -> Grade | NoGrade:
        """Ask the model and read its 1-5 grade; subclasses implement it."""
        raise NotImplementedError

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        """Prompt, grade, and map the grade onto the kind's field."""
        mapping: ScaleMapping = getattr(self.settings, "scale_mapping", "stretch")
        usage = Usage()
        details: dict[str, Any] = {}
        target, messages = await self.messages(item, details)
        outcome = await self.grade(messages, usage, details)
        if isinstance(outcome, NoGrade):
            return self.failed(item, sig, usage, outcome.error, outcome.raw, outcome.details)
        res = EvalResult(
            item.item_id,
            sig,
            scores={target.field: target.rescale(outcome.value, mapping)},
            details=outcome.details,
            reasoning=outcome.reasoning,
            raw_reply=outcome.raw,
        )
        return usage.apply(res)
