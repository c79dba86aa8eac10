"""The robustness probe of one judge (``alignment PROJECT --robustness``): for each attack
family, the judge re-run on the items it has judged with the attack in the judged output
(an ``inject:FAMILY`` probe run stored against its version), then the version's
robustness figures read back from the alignment document.

The attack texts are the project's (:mod:`evaluators.judges.injection`); the figures are
:mod:`alignment.robustness` and :mod:`alignment.bias_scan`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotation_store import Store


class RobustnessError(ValueError):
    """A probe that cannot run (no judge, nothing judged yet, unknown family)."""


def _judged_items(store: Store, project: str, signature_text: str) -> list[str]:
    """Items with an ok result of the plain version, in the project's order."""
    seen: set[str] = set()
    for run in store.runs(project):
        if run.signature_text == signature_text:
            seen.update(r.item_id for r in store.run_results(run.id) if r.status == "ok")
    return [i.item_id for i in store.items(project) if i.item_id in seen]


def run_injection(
    store: Store, project: str, evaluator: str | None, families: list[str] | None
) -> tuple[str, dict[str, str], list[str]]:
    """Run the injection probe of ``evaluator`` (default: the newest judge run on the
    project) for ``families`` (default: every family of the project); returns the plain
    version's signature text, the families run (family -> attack text) and notes."""
    from evaluators.judges.injection import ATTACK_KEY, INJECT, InjectionError, choose_families
    from jobs.runner import build_context, run_evaluator, stored_judge
    from workbench_api.drift import DriftError, newest_judge

    info = store.project(project)
    try:
        name = evaluator or newest_judge(store, project)
        chosen = choose_families(info.settings, families)
    except (DriftError, InjectionError) as exc:
        raise RobustnessError(str(exc)) from None
    if not name.startswith("judge:"):
        raise RobustnessError(f"the injection probe runs a stored judge (judge:NAME), not {name!r}")
    ctx = build_context(store)
    plain = stored_judge(store, info.kind, name, None, ctx)
    sig = str(plain.signature())
    items = _judged_items(store, project, sig)
    if not items:
        raise RobustnessError(
            f"{name} has no stored results on {project!r}: run it with 'evaluate' first, "
            "then probe it"
        )
    notes = []
    for family, text in chosen.items():
        settings = {"probe": f"{INJECT}{family}", ATTACK_KEY: text}
        ev = stored_judge(store, info.kind, name, settings, ctx)
        progress = run_evaluator(store, project, ev, item_ids=items, runs=1)
        notes.append(
            f"{family}: {progress.done} judged with the attack, {progress.failed} failed, "
            f"{progress.cached} cached"
        )
    return sig, chosen, notes


def robustness_document(
    store: Store,
    project: str,
    signature_text: str,
    field: str | None = None,
    *,
    n_resamples: int = 0,
    seed: int = 0,
) -> dict[str, Any]:
    """The robustness figures of the version with ``signature_text``: injection per
    family, self-preference counts and the bias scan, from the alignment document."""
    from alignment.table import alignment_table

    doc = alignment_table(store, project, field, n_resamples=n_resamples, seed=seed)
    for row in doc["versions"]:
        if row.get("signature") == signature_text:
            p = row["probes"]
            return {
                "project": project,
                "field": doc["field"],
                "version": row["label"],
                "injection": p.get("injection"),
                "self_preference": p.get("ego_bias"),
                "bias_scan": p.get("bias_scan"),
            }
    raise RobustnessError(f"the judge's version is not a row of the alignment of {doc['field']!r}")


def queue_injection(
    store: Store, project: str, evaluator: str, version: str, created_by: str | None = None
) -> list[int]:
    """Queue one injection probe run per attack family of the project for a judge version
    (the Alignment page's button); the job ids. RobustnessError for a bad setting or a
    version that is not a stored judge's."""
    from evaluators.judges.injection import ATTACK_KEY, INJECT, InjectionError, choose_families
    from jobs.worker import evaluate_params, submit_evaluate_job

    if not evaluator.startswith("judge:") or not version.isdigit():
        raise RobustnessError(f"the injection probe runs a stored judge, not {evaluator!r}")
    try:
        chosen = choose_families(store.project(project).settings, None)
    except InjectionError as exc:
        raise RobustnessError(str(exc)) from None
    name = f"{evaluator}@{version}"
    jobs = []
    for family, text in chosen.items():
        settings = {name: {"probe": f"{INJECT}{family}", ATTACK_KEY: text}}
        params = evaluate_params([name], settings=settings)
        jobs.append(submit_evaluate_job(store, project, params, created_by=created_by))
    return jobs
