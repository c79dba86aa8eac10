"""The side panel's headline figures for one field (no bootstrap: it must be quick)."""

from __future__ import annotations

from typing import Any

from annotation_store import Store
from reports.data import agreement_document


def panel_summary(store: Store, project: str, field: str | None = None) -> dict[str, Any]:
    """Alpha, Fleiss' kappa, each evaluator's correlations and bias counts, with n, for
    ``field`` (default: the project's first human field)."""
    info = store.project(project)
    names = [f.name for f in info.task_kind.human_fields(info.settings)]
    names += [d.name for d in info.task_kind.derived_scores]
    field = field if field in names else (names[0] if names else None)
    if field is None:
        return {"field": None, "fields": names}
    doc = agreement_document(
        store, project, fields=[field], n_resamples=0, timeline=False
    ).to_dict()
    f = doc["fields"].get(field) or doc["derived"].get(field)
    level = f["level"] if f else None
    alpha = f["krippendorff_alpha"].get(level) if f else None
    if f and alpha is None and f["krippendorff_alpha"]:
        level, alpha = next(iter(f["krippendorff_alpha"].items()))
    evaluators = []
    for name, by_field in doc["evaluators"].items():
        e = by_field.get(field)
        if e is None:
            continue
        bias = e.get("bias") or {}
        evaluators.append(
            {
                "evaluator": name,
                "n": e["n"],
                "pearson": e["pearson"]["r"],
                "spearman": e["spearman"]["r"],
                "kendall": e["kendall"]["r"],
                "reason": e["pearson"].get("reason"),
                "over": bias.get("over"),
                "under": bias.get("under"),
                "bias_n": bias.get("n"),
                "bias_runs": bias.get("n_runs"),
            }
        )
    return {
        "field": field,
        "fields": names,
        "level": level,
        "alpha": alpha,
        "alpha_reason": (f or {}).get("reasons", {}).get(f"krippendorff_alpha.{level}"),
        "n_pairable": f["n_pairable"] if f else 0,
        "n_items": f["n_items"] if f else 0,
        "n_ratings": f["n_ratings"] if f else 0,
        "kappa": f.get("fleiss_kappa") if f else None,
        "kappa_n": f.get("fleiss_n_items") if f else 0,
        "kappa_reason": (f or {}).get("reasons", {}).get("fleiss_kappa"),
        "evaluators": evaluators,
    }
