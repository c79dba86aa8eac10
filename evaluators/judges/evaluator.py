"""The evaluator behind every stored judge: renders its prompt, asks, checks, combines.

Results are signed ``judge:NAME`` / version ``N`` with the judge's model, the hash of its
template and output spec, and its settings (sampling, ``swap_texts``,
``few_shot_item_ids``). Calls go through the shared client (cache, retries, JSON repair);
a reply that does not fit the output spec is re-asked, then stored as a failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

from evaluators.base import EvalContext, EvalItem, EvalResult, Signature
from evaluators.judges.injection import ATTACK_KEY, injected, is_injection
from evaluators.judges.output import (
    JudgeReply,
    combine,
    instructions,
    parse_answer,
    reply_problem,
    scores_of,
)
from evaluators.judges.probes import by_content, check_probe, probe_output
from evaluators.judges.spec import SWAPPABLE, JudgeSpec, item_field_names
from evaluators.judges.template import TemplateError, render_template
from evaluators.llm.evaluator import LLMEvaluator, Usage

PREFIX = "judge:"
#: The run setting that overrides a version's number of samples per item.
SAMPLES_KEY = "samples"


def split_name(evaluator: str) -> tuple[str, int | None]:
    """``judge:NAME[@N]`` -> (NAME, N or None); ValueError for anything else."""
    if not evaluator.startswith(PREFIX):
        raise ValueError(f"{evaluator!r} is not a judge name (judge:NAME[@VERSION])")
    name, _, version = evaluator[len(PREFIX) :].partition("@")
    if version and not version.isdigit():
        raise ValueError(f"judge version must be a number, got {version!r}")
    return name, int(version) if version else None


@lru_cache(maxsize=256)
def judge_class(evaluator: str) -> type[LLMEvaluator]:
    """A registry stand-in for ``judge:NAME[@N]`` (what the job queue checks before a run:
    LLM, one run). The definition itself is read from the store when the run starts."""
    from kinds import kind_names

    name, _ = split_name(evaluator)
    return type(
        f"Judge_{name}",
        (LLMEvaluator,),
        {
            "name": f"{PREFIX}{name}",
            "title": f"Judge {name}",
            "description": "A custom LLM judge stored in the database (see the Judges page).",
            "kinds": tuple(kind_names()),
            "applies_to": classmethod(_applies_to_known_kind),
        },
    )


def _applies_to_known_kind(cls: type, kind: str) -> bool:
    """Any kind the registry resolves, declared kinds (data, not in ``kind_names``)
    included: whether the judge fits the project's kind is checked when the run starts."""
    from kinds import get_kind

    try:
        get_kind(kind)
    except KeyError:  # the registry's unknown-kind error is a KeyError
        return False
    return True


class JudgeEvaluator(LLMEvaluator):
    """One stored judge version as an evaluator."""

    name: ClassVar[str] = "judge"
    title: ClassVar[str] = "Custom judge"
    structured_output: ClassVar[bool] = True

    def __init__(
        self,
        judge_name: str,
        version: int,
        spec: JudgeSpec,
        ctx: EvalContext | None = None,
        probe: str | None = None,
        attack: str | None = None,
    ) -> None:
        super().__init__(None, ctx)
        check_probe(spec, probe)
        if is_injection(probe) != bool(attack):
            raise ValueError("an injection probe (inject:FAMILY) and its attack text go together")
        self.probe = probe
        self.attack = attack
        self.name = f"{PREFIX}{judge_name}"  # type: ignore[misc]
        self.version = str(version)  # type: ignore[misc]
        self.kinds = (spec.kind,)  # type: ignore[misc]
        self.fields = tuple(spec.fields)  # type: ignore[misc]
        self.spec = spec
        self._client: Any = None

    # -- client and signature -----------------------------------------------------------
    @property
    def llm(self) -> Any:
        """The shared client, or one for the judge's own model on the same endpoint."""
        base = self.ctx.llm
        wanted = self.spec.sampling.model
        if base is None or not wanted or wanted == getattr(base, "model", None):
            return base
        if self._client is None:
            from evaluators.llm.client import LLMClient

            self._client = LLMClient(dataclasses.replace(base.config, model=wanted), base.cache)
            self._client.read_cache = getattr(base, "read_cache", True)
        return self._client

    def model_name(self) -> str | None:
        """The judge's model (its own setting, else the configured one)."""
        if self.spec.sampling.model:
            return self.spec.sampling.model
        return super().model_name()

    def prompt_hash(self) -> str | None:
        """Hash of the template, system text, output spec and worked examples."""
        return self.spec.prompt_hash()

    def signature_settings(self) -> dict[str, Any]:
        """Sampling, fields, ``swap_texts`` and ``few_shot_item_ids`` of this version, and
        ``probe`` for a probe run (same version, same prompt hash)."""
        settings = self.spec.signature_settings()
        if self.probe:
            settings["probe"] = self.probe
        if self.attack:
            settings[ATTACK_KEY] = self.attack
        return settings

    @property
    def texts_swapped(self) -> bool:
        """True when the prompt shows the kind's two texts exchanged (the version's own
        ``swap_texts``, or the swap probe, which undoes it)."""
        return self.spec.swap_texts != (self.probe == "swap")

    # -- prompt -------------------------------------------------------------------------
    def item_values(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The values a template sees: every item field of the kind ('' when absent), with
        the two texts exchanged when ``swap_texts`` (or the swap probe) is on."""
        names = item_field_names(self.spec.kind)
        values = {name: fields.get(name, "") for name in names}
        if self.texts_swapped:
            for a, b in SWAPPABLE.get(self.spec.kind, ()):
                values[a], values[b] = values[b], values[a]
        return values

    def item_text(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The item's values with the injection probe's attack in its judged output (worked
        examples keep theirs unchanged)."""
        values = self.item_values(fields)
        if self.attack:
            values = injected(values, item_field_names(self.spec.kind), self.attack)
        return values

    def facts(self, values: Mapping[str, Any]) -> list[str]:
        """The facts to label (fact_labels output), from the (possibly swapped) values."""
        field = self.spec.output.facts_field
        if self.spec.output.type != "fact_labels" or not field:
            return []
        facts = values.get(field) or []
        return [str(f) for f in facts] if isinstance(facts, list) else []

    def messages(self, fields: Mapping[str, Any]) -> list[dict[str, str]]:
        """The chat messages for one item (TemplateError when the template cannot render)."""
        values = self.item_text(fields)
        out = self.spec.output
        parts: list[str] = []
        examples = self.spec.few_shot.examples
        if examples:
            parts.append("Worked examples, with the answers people gave:")
            for i, ex in enumerate(examples, 1):
                ex_values = self.item_values(ex.get("fields") or {})
                parts.append(f"### Example {i}\n{render_template(self.spec.template, ex_values)}")
                parts.append(f'Answer: {{"answer": {_json(ex.get("answer"))}}}')
            parts.append("### The item to judge")
        parts.append(render_template(self.spec.template, values))
        parts.append(instructions(probe_output(out, self.probe), self.facts(values)))
        messages = []
        if self.spec.system.strip():
            messages.append(
                {"role": "system", "content": render_template(self.spec.system, values)}
            )
        messages.append({"role": "user", "content": "\n\n".join(p.strip() for p in parts)})
        return messages

    # -- evaluation ---------------------------------------------------------------------
    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s, out = self.spec.sampling, self.spec.output
        usage = Usage()
        base_details: dict[str, Any] = {"judge": self.name, "judge_version": int(self.version)}
        if self.probe:  # a failed item of a probe run says which probe too
            base_details["probe"] = self.probe
        try:
            messages = self.messages(item.fields)
        except TemplateError as exc:
            return self.failed(item, sig, usage, str(exc), None, base_details)
        n_facts = len(self.facts(self.item_values(item.fields)))
        if out.type == "fact_labels" and n_facts == 0:
            return self.failed(
                item, sig, usage, f"item has no facts in {out.facts_field!r}", None, base_details
            )
        salt = self.run_salt(s.temperature)
        replies = await asyncio.gather(
            *(
                self.llm.complete_json(
                    messages,
                    JudgeReply,
                    check=reply_problem(out, n_facts),
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    cache_salt=salt if s.samples == 1 else f"{salt}|sample:{k}",
                )
                for k in range(s.samples)
            )
        )
        for reply in replies:
            usage.add(reply)
        bad = next((r for r in replies if not r.ok), None)
        if bad is not None:
            return self.failed(item, sig, usage, bad.error or "no reply", bad.raw, base_details)
        values: list[JudgeReply] = [r.value for r in replies]
        answers = [parse_answer(out, v.answer, n_facts) for v in values]
        shown = None
        if self.texts_swapped and out.type == "label":
            # Labels naming the exchanged fields are stored by content, not by position.
            mapped = [by_content(self.spec.kind, a) for a in answers]
            if mapped != answers:
                shown, answers = combine(out, s.aggregate, answers), mapped
        answer = combine(out, s.aggregate, answers)
        details = {**base_details, "answer": answer}
        if shown is not None:
            details["answer_as_shown"] = shown
        if s.samples > 1:
            details["samples"] = answers
        probability = _probability(out.type, values, answers)
        if probability is not None:
            details["probability"] = probability
        if self.texts_swapped:
            details["swap_texts"] = True
        explanations = [v.explanation.strip() for v in values if v.explanation.strip()]
        result = EvalResult(
            item.item_id,
            sig,
            scores=scores_of(out, self.spec.fields, answer),
            details=details,
            reasoning="\n\n".join(explanations) or None,
            raw_reply=replies[0].raw,
        )
        return usage.apply(result)


def _probability(kind: str, values: list[JudgeReply], answers: list[Any]) -> float | None:
    """Binary only: the mean of the probabilities the judge gave, else (several samples)
    the share of samples that said yes."""
    if kind != "binary":
        return None
    given = [v.probability for v in values if v.probability is not None]
    if given:
        return sum(given) / len(given)
    if len(answers) > 1:
        return sum(answers) / len(answers)
    return None


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def from_record(
    record: Any,
    ctx: EvalContext | None = None,
    probe: str | None = None,
    samples: int | None = None,
    attack: str | None = None,
) -> JudgeEvaluator:
    """The evaluator of a stored judge version (a ``JudgeRecord`` from the store), or a
    probe run of it (``probe``: see :mod:`evaluators.judges.probes`); ``samples`` replies
    per item instead of the version's own number (ValueError outside 1 to 20); ``attack``
    the text of an ``inject:FAMILY`` probe."""
    spec = JudgeSpec.model_validate(record.definition)
    if samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 20:
            raise ValueError(f"samples must be a whole number from 1 to 20, got {samples!r}")
        spec = spec.model_copy(
            update={"sampling": spec.sampling.model_copy(update={"samples": samples})}
        )
    return JudgeEvaluator(record.name, record.version, spec, ctx, probe, attack)
