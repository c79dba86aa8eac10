"""Annotate: the item in view for the signed-in annotator (see ui/annotation/)."""

from ui.annotation.page import render
from ui.context import current_user, get_store, require_project

render(get_store(), require_project(), current_user())
