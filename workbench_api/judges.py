"""Custom judges: create, edit (a new version each time), list, show, preview.

The CLI's ``judge`` commands and the Judges page call these. A definition is checked
(template sandbox, output spec, kind) before anything is stored; worked examples are
drawn from human labels here and frozen into the version.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluators.judges.spec import JudgeError, JudgeSpec, check_name, parse_spec, parse_toml

if TYPE_CHECKING:
    from annotation_store import Store
    from annotation_store.store_judges import JudgeRecord

#: Reference sources a worked example may come from (a bare majority is not settled).
EXAMPLE_SOURCES = ("unanimous", "adjudicated")


def save_judge(
    store: Store,
    name: str,
    definition: str | Mapping[str, Any] | JudgeSpec,
    *,
    new: bool | None = None,
    created_by: str | None = None,
) -> JudgeRecord:
    """Check ``definition`` (TOML text, plain data or a spec) and store it as the judge's
    next version; ``new`` True: create only, False: edit only. JudgeError when invalid."""
    check_name(name)
    if isinstance(definition, str):
        spec = parse_toml(definition)
    elif isinstance(definition, JudgeSpec):
        spec = parse_spec(definition.model_dump(mode="json"))
    else:
        spec = parse_spec(dict(definition))
    spec = with_examples(store, spec)
    definition_data = spec.model_dump(mode="json")
    if new is not True:
        _refuse_unchanged(store, name, definition_data)
    return store.save_judge_version(
        name,
        spec.kind,
        definition_data,
        spec.prompt_hash(),
        created_by=created_by,
        new=new,
    )


def _refuse_unchanged(store: Store, name: str, definition: dict[str, Any]) -> None:
    """A save that would repeat the latest version is refused (a double click, an
    unchanged form): versions are meant to be compared, and twins would muddle that."""
    from annotation_store.store_base import StoreError

    try:
        latest = store.judge(name)
    except StoreError:
        return  # a new judge
    if latest.definition == definition:
        raise JudgeError(f"nothing changed since {name} version {latest.version}; edit it first")


def example_candidates(store: Store, project: str, spec: JudgeSpec) -> dict[str, Any]:
    """Items whose human answer to the judged field is settled (unanimous or adjudicated):
    item id -> that answer, in item order."""
    from adjudication.final_labels import adjudicated_reference

    field = answer_field(spec)
    ref = adjudicated_reference(store, project, include_derived=False)
    ref = ref[(ref["field"] == field) & ref["source"].isin(EXAMPLE_SOURCES)]
    return {str(i): v for i, v in zip(ref["item_id"], ref["value"], strict=True)}


def answer_field(spec: JudgeSpec) -> str:
    """The human field a worked example's answer comes from."""
    if spec.output.type == "fact_labels":
        from kinds import get_kind

        for f in get_kind(spec.kind).human_fields():
            if f.facts_field == spec.output.facts_field:
                return f.name
    return spec.fields[0]


def with_examples(store: Store, spec: JudgeSpec) -> JudgeSpec:
    """The spec with its worked examples frozen (fields and human answer of each item).

    Chosen ids must have a settled answer; ``sample`` draws that many with ``seed`` from
    the items that have one. No project or no examples asked: the spec unchanged.
    """
    few = spec.few_shot
    if not few.item_ids and not few.sample:
        return spec.model_copy(update={"few_shot": few.model_copy(update={"examples": []})})
    if not few.project:
        raise JudgeError("few_shot needs 'project': the project whose labels give the examples")
    info = store.project(few.project)
    if info.kind != spec.kind:
        raise JudgeError(f"few_shot project {few.project!r} is of kind {info.kind!r}")
    candidates = example_candidates(store, few.project, spec)
    if few.item_ids:
        missing = [i for i in few.item_ids if i not in candidates]
        if missing:
            raise JudgeError(
                f"item {missing[0]!r} has no unanimous or adjudicated label for "
                f"{answer_field(spec)!r}; it cannot be a worked example"
            )
        chosen = list(dict.fromkeys(few.item_ids))
    else:
        if few.sample > len(candidates):
            raise JudgeError(
                f"few_shot asks for {few.sample} examples; only {len(candidates)} items "
                "have a unanimous or adjudicated label"
            )
        chosen = random.Random(few.seed).sample(sorted(candidates), few.sample)
    items = {r.item_id: r for r in store.items(few.project) if r.item_id in set(chosen)}
    examples = [
        {"item_id": i, "fields": dict(items[i].fields), "answer": _answer(spec, candidates[i])}
        for i in chosen
    ]
    return spec.model_copy(update={"few_shot": few.model_copy(update={"examples": examples})})


def _answer(spec: JudgeSpec, value: Any) -> Any:
    if spec.output.type in ("integer", "binary") and isinstance(value, float):
        return int(value) if value.is_integer() else value
    return value


def preview(spec: JudgeSpec, item_fields: Mapping[str, Any]) -> list[dict[str, str]]:
    """The messages the judge would send for an item (JudgeError when it cannot render)."""
    from evaluators.judges.evaluator import JudgeEvaluator
    from evaluators.judges.template import TemplateError

    try:
        return JudgeEvaluator("preview", 0, spec).messages(item_fields)
    except TemplateError as exc:
        raise JudgeError(str(exc)) from None


def available_probes(store: Store, evaluator: str, version: str) -> list[str]:
    """The probes that apply to a stored judge version (``[]`` for anything else)."""
    from annotation_store import StoreError
    from evaluators.judges.evaluator import split_name
    from evaluators.judges.probes import PROBES, check_probe

    if not evaluator.startswith("judge:") or not version.isdigit():
        return []
    try:
        spec = JudgeSpec.model_validate(
            store.judge(split_name(evaluator)[0], int(version)).definition
        )
    except (StoreError, ValueError):
        return []
    out = []
    for probe in PROBES:
        try:
            check_probe(spec, probe)
        except JudgeError:
            continue
        out.append(probe)
    return out


def queue_probe(
    store: Store,
    project: str,
    evaluator: str,
    version: str,
    probe: str,
    created_by: str | None = None,
) -> int:
    """Queue a probe run of a judge version (the Alignment page's button); the job id.
    JudgeError when the probe does not apply to the version."""
    from jobs.worker import evaluate_params, submit_evaluate_job

    if probe not in available_probes(store, evaluator, version):
        raise JudgeError(f"the {probe!r} probe does not apply to {evaluator} version {version}")
    name = f"{evaluator}@{version}"
    params = evaluate_params([name], settings={name: {"probe": probe}})
    return submit_evaluate_job(store, project, params, created_by=created_by)
