"""A judge definition: what it scores, its template, the output it must give, sampling.

The same model reads a TOML file (``python cli.py judge create NAME --from judge.toml``),
the Judges page's form and a stored version. :func:`check_spec` checks it against its
task kind before anything is saved: fields exist, the output fits, the template only
uses item fields and never reaches Python attributes.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluators.base import stable_hash
from evaluators.judges.template import TemplateError, check_template, trial_render

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
OutputType = Literal["binary", "label", "integer", "decimal", "fact_labels"]


class _Swappable(Mapping[str, tuple[tuple[str, str], ...]]):
    """kind -> the pairs of texts a judge may read in exchanged positions (``swap_texts``),
    as each kind declares them (``TaskKind.swappable``); kinds without any are absent."""

    def _all(self) -> dict[str, tuple[tuple[str, str], ...]]:
        from kinds import get_kind, kind_names

        return {k: get_kind(k).swappable for k in kind_names() if get_kind(k).swappable}

    def __getitem__(self, kind: str) -> tuple[tuple[str, str], ...]:
        # Any kind get_kind resolves, so declared kinds (data, not in kind_names) too.
        from kinds import get_kind

        try:
            pairs = get_kind(kind).swappable
        except KeyError:  # an unknown kind (the registry's error is a KeyError)
            raise KeyError(kind) from None
        if not pairs:
            raise KeyError(kind)
        return pairs

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


SWAPPABLE: Mapping[str, tuple[tuple[str, str], ...]] = _Swappable()


class JudgeError(ValueError):
    """A definition that cannot be saved or run; the message says why in one line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OutputSpec(_Strict):
    """What the judge must answer: binary, a label, a number in a range, or C/M per fact."""

    type: OutputType
    labels: list[str] = Field(default_factory=list)
    min: float | None = None
    max: float | None = None
    facts_field: str | None = None  # fact_labels: the item field holding the facts
    explanation: bool = True  # ask for a short explanation before the answer
    probability: bool = False  # binary: also ask for the probability of "yes"


class SamplingSpec(_Strict):
    """Model and decoding: ``samples`` replies per item, combined by mean or majority."""

    model: str | None = None  # None: the configured model
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    samples: int = Field(1, ge=1, le=20)
    aggregate: Literal["mean", "majority"] = "majority"
    max_tokens: int | None = Field(600, ge=16)


class FewShotSpec(_Strict):
    """Worked examples from human labels: chosen ids, or ``sample`` of them with ``seed``.

    ``examples`` is filled when the version is saved (each item's fields and its human
    answer), so a version renders the same prompt whatever happens to the labels later.
    """

    project: str | None = None
    item_ids: list[str] = Field(default_factory=list)
    sample: int = Field(0, ge=0, le=20)
    seed: int = 0
    examples: list[dict[str, Any]] = Field(default_factory=list)


class JudgeSpec(_Strict):
    """One judge version's definition."""

    kind: str
    fields: list[str] = Field(min_length=1)
    description: str = ""
    system: str = ""
    template: str = Field(min_length=1)
    output: OutputSpec
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    swap_texts: bool = False
    few_shot: FewShotSpec = Field(default_factory=FewShotSpec)

    def prompt_hash(self) -> str:
        """Hash of what the model reads: system text, template, output spec, examples."""
        return stable_hash(
            {
                "system": self.system,
                "template": self.template,
                "output": self.output.model_dump(mode="json"),
                "examples": self.few_shot.examples,
            },
            16,
        )

    def few_shot_item_ids(self) -> list[str]:
        """Ids of the items shown as worked examples (kept out of this version's figures)."""
        return [str(e["item_id"]) for e in self.few_shot.examples]

    def signature_settings(self) -> dict[str, Any]:
        """Settings recorded in every result's signature."""
        return {
            "fields": list(self.fields),
            "output": self.output.type,
            "temperature": self.sampling.temperature,
            "samples": self.sampling.samples,
            "aggregate": self.sampling.aggregate,
            "max_tokens": self.sampling.max_tokens,
            "swap_texts": self.swap_texts,
            "few_shot_item_ids": self.few_shot_item_ids(),
        }


def check_name(name: str) -> str:
    """A judge name: letters, digits, ``_ . -``, at most 64 characters."""
    if not NAME_RE.match(name or ""):
        raise JudgeError(
            f"judge name {name!r} must start with a letter or digit and use only "
            "letters, digits, '_', '.', '-' (at most 64 characters)"
        )
    return name


def parse_spec(data: dict[str, Any]) -> JudgeSpec:
    """A checked :class:`JudgeSpec` from plain data (TOML, form, stored JSON)."""
    try:
        spec = JudgeSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "definition"
        raise JudgeError(f"judge definition: {where}: {err['msg']}") from None
    check_spec(spec)
    return spec


def parse_toml(text: str) -> JudgeSpec:
    """A checked spec from a TOML document (format in the README)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise JudgeError(f"judge TOML is not valid: {exc}") from None
    return parse_spec(data)


def item_field_names(kind: str) -> list[str]:
    """Names a template may use: the kind's item fields."""
    from kinds import get_kind

    return [f.name for f in get_kind(kind).item_fields]


def check_spec(spec: JudgeSpec) -> None:
    """Raise JudgeError when the definition does not fit its kind or its template is unsafe."""
    from common.registry import UnknownEntryError
    from kinds import get_kind

    try:
        kind = get_kind(spec.kind)
    except UnknownEntryError as exc:
        raise JudgeError(str(exc)) from None
    scoreable = {f.name for f in kind.human_fields()} | {d.name for d in kind.derived_scores}
    unknown = [f for f in spec.fields if f not in scoreable]
    if unknown:
        raise JudgeError(
            f"kind {spec.kind} has no field {unknown[0]!r} (fields: {sorted(scoreable)})"
        )
    _check_output(spec, kind)
    names = item_field_names(spec.kind)
    try:
        for text in (spec.template, spec.system):
            check_template(text, names)
            trial_render(text, _trial_values(spec.kind))
    except TemplateError as exc:
        raise JudgeError(str(exc)) from None
    if spec.swap_texts and spec.kind not in SWAPPABLE:
        raise JudgeError(f"swap_texts needs a kind with two texts ({', '.join(SWAPPABLE)})")


def _check_output(spec: JudgeSpec, kind: Any) -> None:
    out = spec.output
    if out.type == "label" and len(set(out.labels)) < 2:
        raise JudgeError("output type 'label' needs at least two distinct labels")
    if out.type in ("integer", "decimal"):
        if out.min is None or out.max is None or out.min >= out.max:
            raise JudgeError(f"output type {out.type!r} needs min < max")
        if out.type == "integer" and (out.min != int(out.min) or out.max != int(out.max)):
            raise JudgeError("output type 'integer' needs whole-number min and max")
    if out.type == "fact_labels":
        lists = [f.name for f in kind.item_fields if f.kind == "list"]
        if out.facts_field not in lists:
            raise JudgeError(f"output type 'fact_labels' needs facts_field, one of {lists}")
    if out.probability and out.type != "binary":
        raise JudgeError("probability is asked only of a binary output")
    if spec.sampling.aggregate == "mean" and out.type in ("label", "fact_labels"):
        raise JudgeError(f"samples of a {out.type!r} output are combined by majority, not mean")


def _trial_values(kind_name: str) -> dict[str, Any]:
    """Stand-in item values for a trial render (a text, a one-element list, an object)."""
    from kinds import get_kind

    shapes: dict[str, Any] = {"text": "text", "list": ["fact"], "object": {}}
    return {f.name: shapes.get(f.kind, "text") for f in get_kind(kind_name).item_fields}
