"""Blindness rules: who may see evaluator outputs, other annotators' labels, item ids and
anything else about an item that could give away a label, a condition or the system."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from annotating.actions import submitted_is_final
from annotation_store import ItemRecord

__all__ = [
    "blinded_item",
    "may_see_evaluators",
    "may_see_item_ids",
    "may_see_others",
    "opted_in",
    "submitted_is_final",
]

REVIEW_ROLES = ("admin", "reviewer")
#: What an annotator may be shown on top of the kind's own item fields (project setting
#: ``annotators_see``): item field names, ``item_id`` and ``generator``.
SEES_KEY = "annotators_see"


def may_see_evaluators(role: str, show_evaluators: str, item_status: str | None) -> bool:
    """Reviewers and admins always; annotators per the project setting.

    ``never``: not at all; ``after_submit`` (default): once they submitted this item;
    ``always``: from the start.
    """
    if role in REVIEW_ROLES:
        return True
    if show_evaluators == "always":
        return True
    if show_evaluators == "after_submit":
        return item_status == "submitted"
    return False


def may_see_others(role: str) -> bool:
    """Only reviewers and admins see other annotators' labels."""
    return role in REVIEW_ROLES


def opted_in(settings: Mapping[str, Any]) -> frozenset[str]:
    """The extra things a project lets its annotators see (``annotators_see``)."""
    value = settings.get(SEES_KEY) or []
    return (
        frozenset(v for v in value if isinstance(v, str))
        if isinstance(value, list)
        else (frozenset())
    )


def may_see_item_ids(role: str, settings: Mapping[str, Any]) -> bool:
    """Reviewers and admins see real item ids; annotators a neutral number unless opted in.

    Ids often encode the answer or the condition (``...:tampered``, ``...:neg``).
    """
    return role in REVIEW_ROLES or "item_id" in opted_in(settings)


def blinded_item(
    item: ItemRecord, role: str, settings: Mapping[str, Any], kind_fields: Iterable[str]
) -> ItemRecord:
    """``item`` as an annotator may see it: the kind's declared item fields only.

    Other columns (context, provenance, ``tampered_from``) and the ``generator`` are
    dropped unless the project opts in to them; reviewers and admins see everything.
    """
    if role in REVIEW_ROLES:
        return item
    keep = set(kind_fields) | opted_in(settings)
    keep.discard("generator")
    fields = {k: v for k, v in item.fields.items() if k in keep}
    if "generator" in opted_in(settings) and "generator" in item.fields:
        fields["generator"] = item.fields["generator"]
    generator = item.generator if "generator" in opted_in(settings) else None
    return replace(item, fields=fields, generator=generator)
