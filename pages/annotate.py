"""Annotate: the item in view for the signed-in annotator (see ui/annotation/), inside
the project's study flow when it has one (ui/study/)."""

from ui.context import current_user, get_store, require_project
from ui.study.flow import render_study

render_study(get_store(), require_project(), current_user())
