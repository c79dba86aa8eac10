"""Schema-Guided Semantic Accuracy (Chen, Lin and Byrne): is a dialogue act realised?

For each item (one act):

1. Candidate references are built from the slot name and schema description
   (:mod:`evaluators.sgd_references`, the paper's Appendix B).
2. The *ground-truth* utterance is the premise that picks the entailment reference: the
   candidate with the highest entailment probability. Our data model: the item's
   ``utterance`` is the text judged; when the item also has a ``reference_utterance``
   (setting ``reference_field``) that is the ground truth, otherwise the utterance is its
   own ground truth (SGD imports: the utterances are the dataset's ground truth).
3. Validation (optional, on by default): the ground truth must entail at least one
   candidate and none of the negative references, which are the candidates of the same act
   with substituted values (item field ``substitute_values``, a flipped boolean, or other
   possible values of a categorical slot). Tampered copies (items with
   ``original_values``, as the SGD import writes, or ``tampered_from``, as the demo
   does) are validated with their original act, since validation is about
   the ground-truth pair, not about the text judged.
4. When a premise alone does not entail, it is augmented as
   "{previous turn} {slot description}. {utterance}" and checked again; validation uses the
   same premise (plain, or augmented when the plain one entails no candidate) for the
   positive and the negative references.
5. The judged utterance is faithful when entailment is the most probable class against the
   entailment reference (augmented premise when needed).

Scores: ``faithful`` (0/1) and ``entailment`` (its probability in the deciding check).
Details carry ``validated``, the references, the utterance the act belongs to and the NLI
backend that ran, so :func:`corpus_report` can give SGSAcc per utterance (the paper's
figure: an utterance is faithful only when all its acts are) and per act, with and
without validation, and the share of items that fail validation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings
from evaluators.nli import (
    NLIBackend,
    NLIPrediction,
    NLISettings,
)
from evaluators.nli.evaluator import NLIEvaluator
from evaluators.registry import register_evaluator
from evaluators.sgd_acts import Act
from evaluators.utterances import (
    UtteranceKey,
    group_units,
    original_values,
    share,
    unit_values,
    utterance_key,
)

Pair = tuple[str, str]


class SGSAccSettings(NLISettings):
    """NLI backend plus the SGSAcc options."""

    validate_references: bool = True
    max_negatives: int = 3
    augment: bool = True
    reference_field: str = "reference_utterance"


def augmented(text: str, previous: str | None, description: str | None) -> str | None:
    """Premise with the previous turn and slot description in front (None if neither)."""
    parts = [p.strip() for p in (previous,) if p and p.strip()]
    if description and description.strip():
        parts.append(description.strip().rstrip(".") + ".")
    return " ".join([*parts, text]) if parts else None


@dataclass
class _Plan:
    """What one item needs from the NLI model."""

    item: EvalItem
    judged: str
    truth: str
    aug_judged: str | None
    aug_truth: str | None
    candidates: list[str]
    positives: list[str]
    negatives: list[str]
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class _Cache:
    """Pair -> prediction, filled in batched rounds; each pair's usage is charged to the
    first item that asked for it (acts of one turn share premises)."""

    def __init__(self, backend: NLIBackend) -> None:
        self.backend = backend
        self.known: dict[Pair, NLIPrediction] = {}
        self.owner: dict[Pair, str] = {}

    async def fill(self, wanted: Iterable[tuple[str, Pair]]) -> None:
        todo: list[Pair] = []
        for item_id, pair in wanted:
            if pair not in self.known and pair not in self.owner:
                self.owner[pair] = item_id
                todo.append(pair)
        if todo:
            self.known.update(zip(todo, await self.backend.predict(todo), strict=True))

    def __getitem__(self, pair: Pair) -> NLIPrediction:
        return self.known[pair]

    def charged_to(self, item_id: str) -> list[NLIPrediction]:
        return [self.known[p] for p, owner in self.owner.items() if owner == item_id]


class _NLIError(Exception):
    pass


def _entails(cache: _Cache, premise: str, hypothesis: str) -> bool:
    pred = cache[(premise, hypothesis)]
    if pred.probs is None:
        raise _NLIError(pred.error or "NLI failed")
    return pred.probs.entails


def _entailment(cache: _Cache, premise: str, hypothesis: str) -> float:
    pred = cache[(premise, hypothesis)]
    if pred.probs is None:
        raise _NLIError(pred.error or "NLI failed")
    return pred.probs.entailment


def _survivors(plans: list[_Plan], step: Callable[[_Plan], None]) -> list[_Plan]:
    """Apply ``step`` to each plan; a plan whose NLI failed gets its error and drops out."""
    for p in plans:
        try:
            step(p)
        except _NLIError as exc:
            p.error = f"NLI failed: {exc}"
    return [p for p in plans if p.error is None]


@register_evaluator
class SGSAccEvaluator(NLIEvaluator[SGSAccSettings]):
    """SGSAcc with any NLI backend (the paper uses roberta-large-mnli)."""

    name = "sgsacc"
    version = "1"
    title = "Schema-Guided Semantic Accuracy"
    description = (
        "Faithful when the utterance entails the act's entailment reference "
        "(built from the schema by the SGSAcc rules), judged by an NLI backend."
    )
    kinds: ClassVar[tuple[str, ...]] = ("dialogue_faithfulness",)
    fields: ClassVar[tuple[str, ...]] = ("faithful",)
    Settings: ClassVar[type[EvaluatorSettings]] = SGSAccSettings

    @classmethod
    def corpus_summary(cls, results: Sequence[EvalResult]) -> dict[str, Any] | None:
        """SGSAcc per utterance (headline) and per act, with and without validation,
        the share failing validation and the NLI backend that ran."""
        return corpus_report(results).as_dict()

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """The backend, then SGSAcc per utterance and per act, and the human comparison."""
        majority = None
        if human is not None:
            majority = {i: _majority(f.get("faithful")) for i, f in human.items()}
        return [*super().run_notes(results, human), report_text(corpus_report(results, majority))]

    def _plan(self, item: EvalItem) -> _Plan:
        s = self.settings
        f = item.fields
        judged = str(f.get("utterance") or "")
        truth = str(f.get(s.reference_field) or judged)
        act = Act.from_fields(f)
        aug = (
            (lambda t: augmented(t, f.get("previous_turn"), act.description))
            if s.augment
            else (lambda t: None)
        )
        original = original_values(f)
        truth_act = act.with_values(original) if original else act
        negatives: list[str] = []
        if s.validate_references and truth_act.values:
            extra = [str(v) for v in f.get("substitute_values") or []]
            for value in truth_act.substitutes(extra)[: s.max_negatives]:
                swapped = list(truth_act.values)
                swapped[0] = value  # one wrong value is enough to make the act false
                negatives += truth_act.with_values(swapped).candidates()
        # REQUEST references ignore example values, so "negatives" could equal positives.
        positives = truth_act.candidates()
        negatives = [n for n in negatives if n not in positives]
        plan = _Plan(
            item,
            judged,
            truth,
            aug(judged),
            aug(truth),
            act.candidates(),
            positives,
            list(dict.fromkeys(negatives)),
        )
        if not judged:
            plan.error = "item has no utterance"
        elif not plan.candidates:
            plan.error = f"no candidate references for act {act.act!r}"
        return plan

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        sig = self.signature()
        cache = _Cache(self.backend)
        plans = [self._plan(item) for item in items]
        live = [p for p in plans if p.error is None]
        s = self.settings
        # Round 1: the plain ground truth against the candidates and positives.
        await cache.fill(
            (p.item.item_id, (p.truth, h)) for p in live for h in (*p.candidates, *p.positives)
        )
        # Round 2: the augmented ground truth where the plain one entails no positive.
        need_aug = [p for p in live if p.aug_truth and not self._any(cache, p, p.truth)]
        await cache.fill(
            (p.item.item_id, (p.aug_truth, h))  # type: ignore[misc]
            for p in need_aug
            for h in (*p.candidates, *p.positives)
        )
        ready = _survivors(live, lambda p: self._choose(cache, p))
        # Round 3: negatives, only against the premise chosen above and only where a
        # positive is entailed: otherwise validation has already failed.
        if s.validate_references:
            await cache.fill(
                (p.item.item_id, (p.details["truth_premise"], n))
                for p in ready
                if p.details["positive_entailed"]
                for n in p.negatives
            )
            ready = _survivors(ready, lambda p: self._validate(cache, p))
        # Rounds 4 and 5: the judged utterance, plain then augmented.
        await cache.fill((p.item.item_id, (p.judged, p.details["reference"])) for p in ready)
        await cache.fill(
            (p.item.item_id, (p.aug_judged, p.details["reference"]))  # type: ignore[misc]
            for p in ready
            if p.aug_judged and not self._safe_entails(cache, p.judged, p)
        )
        for p in plans:  # working values, not part of the result
            p.details.pop("truth_premise", None)
            p.details.pop("positive_entailed", None)
        results = [self._result(cache, p, sig) for p in plans]
        for res, p in zip(results, plans, strict=True):
            res.details["utterance"] = utterance_key(p.item.item_id, p.item.fields).as_dict()
        return self.stamp_backend(results)

    @staticmethod
    def _any(cache: _Cache, plan: _Plan, premise: str) -> bool:
        preds = [cache[(premise, h)] for h in plan.positives]
        return any(pr.probs is not None and pr.probs.entails for pr in preds)

    @staticmethod
    def _safe_entails(cache: _Cache, premise: str, plan: _Plan) -> bool:
        pred = cache[(premise, plan.details["reference"])]
        return pred.probs is None or pred.probs.entails  # failures need no second try

    def _choose(self, cache: _Cache, p: _Plan) -> None:
        """The ground-truth premise (plain or augmented) and the entailment reference."""
        premise = p.truth
        if p.aug_truth and not self._any(cache, p, p.truth):
            premise = p.aug_truth
        scores = {c: _entailment(cache, premise, c) for c in p.candidates}
        reference = max(p.candidates, key=lambda c: scores[c])  # first of equals wins
        p.details.update(
            reference=reference,
            candidates=scores,
            truth_premise_augmented=premise != p.truth,
            truth_premise=premise,
            positive_entailed=any(_entails(cache, premise, c) for c in p.positives),
        )

    @staticmethod
    def _validate(cache: _Cache, p: _Plan) -> None:
        """``validated``: a positive is entailed and no negative is (negatives are not
        checked, ``negatives_entailed`` None, when no positive is entailed)."""
        positive_ok = p.details.pop("positive_entailed")
        entailed = (
            [n for n in p.negatives if _entails(cache, p.details["truth_premise"], n)]
            if positive_ok
            else None
        )
        p.details.update(
            validated=positive_ok and not entailed,
            validation={
                "positive_entailed": positive_ok,
                "negatives": len(p.negatives),
                "negatives_entailed": entailed,
            },
        )

    def _result(self, cache: _Cache, p: _Plan, sig: Any) -> EvalResult:
        if p.error is not None:
            return EvalResult.failure(p.item.item_id, sig, p.error)
        reference = p.details["reference"]
        used = p.judged
        pred = cache[(p.judged, reference)]
        if pred.probs is not None and not pred.probs.entails and p.aug_judged:
            used = p.aug_judged
            pred = cache[(p.aug_judged, reference)]
        if pred.probs is None:
            return EvalResult.failure(p.item.item_id, sig, f"NLI failed: {pred.error}", pred.raw)
        p.details.update(premise_augmented=used != p.judged, nli=pred.probs.as_dict())
        usage = cache.charged_to(p.item.item_id)
        return EvalResult(
            p.item.item_id,
            sig,
            scores={"faithful": float(pred.probs.entails), "entailment": pred.probs.entailment},
            details=p.details,
            raw_reply=pred.raw,
            tokens_in=sum(u.tokens_in for u in usage),
            tokens_out=sum(u.tokens_out for u in usage),
            cost=sum(u.cost for u in usage),
            cached=bool(usage) and all(u.cached for u in usage),
        )


@dataclass(frozen=True)
class SGSAccReport:
    """Corpus-level SGSAcc (shares in 0..1). The headline is per utterance, as the paper
    counts it (faithful only when all its acts are, see :mod:`evaluators.utterances`);
    beside it the per-act share, each with and without validation, the share failing
    validation per act and per utterance, and the NLI backend that ran. With human labels, the human
    ``faithful`` share at both levels and the evaluator's agreement with it."""

    sgsacc_utterance: float | None
    sgsacc_act: float | None
    n_utterances: int
    sgsacc_utterance_validated: float | None
    sgsacc_act_validated: float | None
    n: int
    failed: int
    n_validated: int
    validation_fail_share_act: float | None
    validation_fail_share_utterance: float | None
    unkeyed_acts: int
    nli_backend: str | None
    human: dict[str, Any] | None = None

    # the per-act names earlier versions printed
    @property
    def sgsacc_all(self) -> float | None:
        """Per-act SGSAcc over all scored acts."""
        return self.sgsacc_act

    @property
    def sgsacc_validated(self) -> float | None:
        """Per-act SGSAcc over the validated acts."""
        return self.sgsacc_act_validated

    @property
    def validation_fail_share(self) -> float | None:
        """Share of checked acts failing validation."""
        return self.validation_fail_share_act

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (without ``human`` when no labels were given)."""
        out = dict(self.__dict__)
        if out["human"] is None:
            out.pop("human")
        return out


def corpus_report(
    results: Iterable[EvalResult], human: Mapping[str, float | None] | None = None
) -> SGSAccReport:
    """SGSAcc per utterance and per act, with and without validation.

    Failed results (NLI errors, acts without references) are counted, not scored; an
    utterance with a failed act counts only when another act already makes it unfaithful.
    Items evaluated without validation count in the "all" figures only. The validated
    per-utterance figure leaves out every utterance with an act that failed validation
    (the paper excludes a failing instance), and the share failing validation is given
    per act and per utterance (the paper's figure is per instance). ``human`` maps
    item ids to the majority human ``faithful`` label (None for a tie) and adds the
    human figures at both levels (see :func:`human_comparison`).
    """
    results = list(results)
    ok = [r for r in results if r.status == "ok" and r.scores.get("faithful") is not None]
    checked = [r for r in ok if "validated" in r.details]
    checked_ids = {r.item_id for r in checked}
    passed = [r for r in checked if r.details["validated"]]
    keys = {r.item_id: _key(r) for r in results}
    units = group_units(keys)
    faithful = {r.item_id: float(r.scores["faithful"] or 0) for r in ok}
    validated = {r.item_id: faithful[r.item_id] for r in passed}
    failing = {r.item_id for r in checked if not r.details["validated"]}
    checked_units = [u for u, acts in units.items() if any(a in checked_ids for a in acts)]
    failing_units = {u for u in checked_units if failing.intersection(units[u])}
    clean_units = {u: acts for u, acts in units.items() if u not in failing_units}
    backends = sorted(
        {str(r.details.get("nli_backend")) for r in ok if r.details.get("nli_backend")}
    )
    return SGSAccReport(
        sgsacc_utterance=share(unit_values(units, faithful).values()),
        sgsacc_act=share(faithful.values()),
        n_utterances=len(unit_values(units, faithful)),
        sgsacc_utterance_validated=share(unit_values(clean_units, validated).values()),
        sgsacc_act_validated=share(validated.values()),
        n=len(results),
        failed=len(results) - len(ok),
        n_validated=len(passed),
        validation_fail_share_act=len(failing) / len(checked) if checked else None,
        validation_fail_share_utterance=(
            len(failing_units) / len(checked_units) if checked_units else None
        ),
        unkeyed_acts=sum(not k.keyed for k in keys.values()),
        nli_backend="; ".join(backends) or None,
        human=None if human is None else human_comparison(units, faithful, human),
    )


def _key(result: EvalResult) -> UtteranceKey:
    data = result.details.get("utterance")
    return UtteranceKey.from_dict(data) if data else UtteranceKey(result.item_id, False)


def human_comparison(
    units: Mapping[str, list[str]],
    evaluator: Mapping[str, float],
    human: Mapping[str, float | None],
) -> dict[str, Any]:
    """Human ``faithful`` per act and per utterance (faithful iff every act is judged
    faithful by the majority), and the share of acts / utterances where the evaluator
    agrees with it."""
    acts = {a for members in units.values() for a in members}
    per_act = {a: human.get(a) for a in acts}
    human_units = unit_values(units, per_act)
    eval_units = unit_values(units, evaluator)

    def agreement(mine: Mapping[str, float], theirs: Mapping[str, float | None]) -> float | None:
        both = [k for k in mine if theirs.get(k) is not None]
        return share(float(mine[k] == theirs[k]) for k in both)

    return {
        "human_act": share(v for v in per_act.values() if v is not None),
        "human_utterance": share(human_units.values()),
        "agreement_act": agreement(evaluator, per_act),
        "agreement_utterance": agreement(eval_units, human_units),
        "n_human_acts": sum(v is not None for v in per_act.values()),
        "n_human_utterances": len(human_units),
    }


def _majority(mean: Any) -> float | None:
    """The majority of 0/1 labels from their mean; None for a tie or no label."""
    if mean is None or mean != mean or abs(float(mean) - 0.5) < 1e-9:
        return None
    return 1.0 if float(mean) > 0.5 else 0.0


def report_text(r: SGSAccReport) -> str:
    """The corpus figures as one sentence (per utterance first, as the paper reports)."""

    def f(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.4f}"

    text = (
        f"SGSAcc per utterance {f(r.sgsacc_utterance)} over {r.n_utterances} utterances "
        f"(validated {f(r.sgsacc_utterance_validated)}); per act {f(r.sgsacc_act)} over "
        f"{r.n - r.failed} acts (validated {f(r.sgsacc_act_validated)}, "
        f"{r.n_validated} acts); validation fails on {f(r.validation_fail_share_act)} of "
        f"acts and {f(r.validation_fail_share_utterance)} of utterances"
    )
    if r.unkeyed_acts:
        text += f"; {r.unkeyed_acts} acts without utterance keys count as their own utterance"
    if r.human:
        h = r.human
        text += (
            f"; human faithful per act {f(h['human_act'])}, per utterance "
            f"{f(h['human_utterance'])}; evaluator agrees with the human majority on "
            f"{f(h['agreement_act'])} of acts and {f(h['agreement_utterance'])} of utterances"
        )
    return text
