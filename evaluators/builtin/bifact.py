"""Bi-Fact: bidirectional atomic-fact comparison of a gold and a predicted intent.

Part 1 splits the gold intent into atomic facts once; the facts are returned as an item
update, fixed on the item and reused by every later run (and shown to annotators): the
paper freezes the reference facts. Part 2, in a single request, splits the prediction
guided by the gold facts, labels every gold fact C/M against the whole prediction and
every predicted fact C/M against the whole gold intent. Recall, precision and F1 are
computed from the labels, never asked of the model.

The prediction is split again by every run and every judge model, as in the paper
(``details["predicted_facts_source"] == "model"``). Freezing the predicted facts too is
the explicit setting ``freeze_predicted_facts`` (off by default, part of the signature):
then an item's ``predicted_facts`` are labelled as given, and when it has none the
model's split is returned as an item update (the store only fills empty fields), so
annotators and later runs label the same predicted facts.

Labels are matched to facts by the fact text the reply repeats (case, spacing and end
punctuation aside), not only by position: labels in another order are put back in
order, and a label whose fact text matches no fact fails the item.

The reply may use the paper's key names (``expert_fact_coverage`` for the reference
side) as well as ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature, run_settings
from evaluators.llm.evaluator import LLMEvaluator, Usage, field_text
from evaluators.registry import register_evaluator
from kinds.base import f1, share_implied

DECOMPOSE = "bifact_decompose.v1"
ASSESS = "bifact_assess.v2"  # v2: our own one-shot example
ASSESS_GIVEN = "bifact_assess_given.v1"


class Facts(BaseModel):
    """Part 1 reply."""

    facts: list[str] = Field(min_length=1)

    @field_validator("facts")
    @classmethod
    def _clean(cls, value: list[str]) -> list[str]:
        cleaned = [f.strip() for f in value if f and f.strip()]
        if not cleaned:
            raise ValueError("the fact list is empty")
        return cleaned


class FactLabel(BaseModel):
    """One labelled fact."""

    fact: str
    reasoning: str = ""
    label: Literal["C", "M"]

    @field_validator("label", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper()[:1] if isinstance(value, str) else value


# The paper's output names the reference side ``expert_fact_coverage``; both spellings
# are accepted. Our name comes first and the docstring stays as it was, so the JSON schema
# sent to the server (part of the cache key) does not change.
class Assessment(BaseModel):
    """Part 2 reply."""

    predicted_facts: list[str] | None = None
    gold_fact_coverage: list[FactLabel] = Field(
        validation_alias=AliasChoices("gold_fact_coverage", "expert_fact_coverage")
    )
    predicted_fact_accuracy: list[FactLabel]


class BiFactSettings(EvaluatorSettings):
    """Decoding settings of both parts, and whether predicted facts are frozen too."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=16)
    freeze_predicted_facts: bool = False


@register_evaluator
class BiFact(LLMEvaluator[BiFactSettings]):
    """Bi-Fact (Caduri 2025) with the paper's two parts and three reasoning steps."""

    name = "bifact"
    # 2: the prediction is split by every run; labels matched by fact text
    # 3: the one-shot example is our own (prompt bifact_assess.v2)
    version = "3"
    title = "Bi-Fact"
    description = (
        "Atomic facts of gold and predicted intent, labelled implied (C) or "
        "missing (M) in both directions; precision/recall/F1 from the labels."
    )
    kinds = ("intent_match",)
    fields = ("recall", "precision", "f1")
    Settings = BiFactSettings
    prompt_ids = (DECOMPOSE, ASSESS, ASSESS_GIVEN)
    structured_output = True

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """Whether the predicted facts were split by this run or frozen, and the
        structured-output mode."""
        if run_settings(results).get("freeze_predicted_facts"):
            facts = (
                "freeze_predicted_facts=True (not the paper's protocol): predicted facts "
                "fixed on the item and labelled as given"
            )
        else:
            facts = "gold facts frozen on the item; the prediction split by this run (the paper's)"
        return [facts, *super().run_notes(results, human)]

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s = self.settings
        usage = Usage()
        gold, predicted = field_text(item, "gold"), field_text(item, "predicted")
        gold_facts = _as_list(item.fields.get("gold_facts"))
        updates: dict[str, Any] = {}
        if not gold_facts:
            reply = usage.add(
                await self.llm.complete_json(
                    self.render(DECOMPOSE, sentence=gold),
                    Facts,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                )
            )
            if not reply.ok:
                return self.failed(
                    item,
                    sig,
                    usage,
                    f"gold decomposition: {reply.error}",
                    reply.raw,
                    {"stage": "decompose"},
                )
            gold_facts = reply.value.facts
            updates["gold_facts"] = gold_facts
        frozen = s.freeze_predicted_facts
        given = _as_list(item.fields.get("predicted_facts")) if frozen else []
        if given:
            messages = self.render(
                ASSESS_GIVEN,
                gold=gold,
                predicted=predicted,
                gold_facts=json.dumps(gold_facts, ensure_ascii=False),
                predicted_facts=json.dumps(given, ensure_ascii=False),
            )
        else:
            messages = self.render(
                ASSESS,
                gold=gold,
                predicted=predicted,
                gold_facts=json.dumps(gold_facts, ensure_ascii=False),
            )
        reply = usage.add(
            await self.llm.complete_json(
                messages,
                Assessment,
                check=_counts_check(len(gold_facts), given),
                temperature=s.temperature,
                max_tokens=s.max_tokens,
            )
        )
        if not reply.ok:
            res = self.failed(
                item, sig, usage, f"assessment: {reply.error}", reply.raw, {"stage": "assess"}
            )
            res.item_updates = updates  # the gold facts are still worth fixing
            return res
        value: Assessment = reply.value
        pred_facts = (
            given or value.predicted_facts or [x.fact for x in value.predicted_fact_accuracy]
        )
        if frozen and not given and pred_facts:
            # fix the model's split on the item, like the gold facts, so annotators and
            # later runs label the same predicted facts
            updates["predicted_facts"] = list(pred_facts)
        try:
            gold_rows = _rows(gold_facts, value.gold_fact_coverage, "gold")
            pred_rows = _rows(pred_facts, value.predicted_fact_accuracy, "predicted")
        except FactMismatch as exc:
            res = self.failed(item, sig, usage, str(exc), reply.raw, {"stage": "match"})
            res.item_updates = {k: v for k, v in updates.items() if k == "gold_facts"}
            return res
        recall = share_implied([r["label"] for r in gold_rows])
        precision = share_implied([r["label"] for r in pred_rows])
        res = EvalResult(
            item.item_id,
            sig,
            scores={"recall": recall, "precision": precision, "f1": f1(precision, recall)},
            details={
                "gold_facts": gold_rows,
                "predicted_facts": pred_rows,
                "predicted_facts_source": "item" if given else "model",
                "predicted_facts_frozen": frozen,
                "gold_facts_source": "model" if "gold_facts" in updates else "item",
                "prompt_versions": self.prompt_versions(),
            },
            reasoning="\n".join(
                f"[{r['label']}] {r['fact']}: {r['reasoning']}" for r in gold_rows + pred_rows
            ),
            raw_reply=reply.raw,
            item_updates=updates,
        )
        return usage.apply(res)


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _counts_check(n_gold: int, given: list[str]):
    """Re-ask unless every gold (and given predicted) fact got exactly one label."""

    def check(value: Assessment) -> str | None:
        if len(value.gold_fact_coverage) != n_gold:
            return (
                f"gold_fact_coverage has {len(value.gold_fact_coverage)} entries but there "
                f"are {n_gold} reference facts; label each one, in order"
            )
        if given and len(value.predicted_fact_accuracy) != len(given):
            return (
                f"predicted_fact_accuracy has {len(value.predicted_fact_accuracy)} entries "
                f"but {len(given)} predicted facts were given; label each one, in order"
            )
        if (
            not given
            and value.predicted_facts is not None
            and len(value.predicted_facts) != len(value.predicted_fact_accuracy)
        ):
            return "predicted_fact_accuracy must have one entry per predicted fact"
        return None

    return check


class FactMismatch(ValueError):
    """The labels' fact texts do not match the facts they should label."""


def _norm(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .;:!?'\"")


def _rows(facts: list[str], labels: list[FactLabel], side: str) -> list[dict[str, str]]:
    """Per-fact detail rows, each label matched to its fact by text (see the module
    docstring); the fact text is ours, so rows align with the item's lists."""
    by_text: dict[str, FactLabel] = {}
    for lab in labels:
        by_text.setdefault(_norm(lab.fact), lab)
    if [_norm(x.fact) for x in labels] == [_norm(f) for f in facts]:
        ordered = list(labels)
    elif all(_norm(f) in by_text for f in facts) and len(by_text) == len(facts):
        ordered = [by_text[_norm(f)] for f in facts]
    else:
        unknown = [x.fact for x in labels if _norm(x.fact) not in {_norm(f) for f in facts}]
        shown = unknown[0] if unknown else "(a fact labelled twice)"
        raise FactMismatch(
            f"{side} fact labels do not match the facts: {shown!r} is not one of {facts}"
        )
    return [
        {"fact": fact, "label": lab.label, "reasoning": lab.reasoning}
        for fact, lab in zip(facts, ordered, strict=True)
    ]
