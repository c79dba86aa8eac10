"""Blindness rules: who may see evaluator outputs and other annotators' labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation_store.study import study_of

REVIEW_ROLES = ("admin", "reviewer")


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


def submitted_is_final(role: str, project_settings: Mapping[str, Any]) -> bool:
    """In a study, an annotator's submitted item is final: no Resubmit, no later edits
    (reviewers and admins may still correct)."""
    return role not in REVIEW_ROLES and study_of(project_settings).active
