"""An item as its annotator labels it: the keyboard targets, saved values, what is missing.

A target is one thing an answer is given to: a question, or one fact of a fact-label
question. The Annotate page (``ui.annotation.context.ItemContext`` adds its keyboard
focus) and the annotation client's routes read items through this one model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from annotation_store.records import AnnotatorInfo, ItemRecord, ProjectInfo
from annotation_store.store import Store
from kinds import FieldType, HumanField
from kinds.base import FACT_UNSET
from kinds.values import is_asked

if TYPE_CHECKING:
    from annotation_store.label_writes import LabelTarget


@dataclass(frozen=True)
class Target:
    """One thing the keyboard can point at: a field, or one fact of a fact-label field."""

    field: HumanField
    index: int | None = None

    @property
    def key(self) -> str:
        """A stable id for widget keys and the client's requests."""
        return self.field.name if self.index is None else f"{self.field.name}.{self.index}"


@dataclass
class ItemView:
    """The item in view and the annotator's saved state on it."""

    store: Store
    project: ProjectInfo
    item: ItemRecord
    user: AnnotatorInfo
    state: dict[str, Any]
    fields: dict[str, HumanField]
    targets: list[Target] = field(default_factory=list)
    #: The item's label target as this request read it (the fast lane's ``open_view``):
    #: its saves and submit look up no project, item and annotator again.
    target: LabelTarget | None = None

    @property
    def labels(self) -> dict[str, Any]:
        """The annotator's saved labels on this item."""
        return self.state["labels"]

    def value(self, target: Target) -> Any:
        """The saved value of a target (None when not given yet)."""
        saved = self.labels.get(target.field.name)
        if target.index is None:
            return saved
        if not isinstance(saved, list) or target.index >= len(saved):
            return None
        return None if saved[target.index] == FACT_UNSET else saved[target.index]

    def refresh(self) -> ItemView:
        """This view with the saved state and the targets read again."""
        self.state = self.store.item_state(self.project.name, self.item.item_id, self.user.name)
        self.targets = build_targets(self)
        return self


def read_view(store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> ItemView:
    """The item ``item_id`` with ``user``'s saved state and targets."""
    view = ItemView(
        store,
        project,
        store.item(project.name, item_id),
        user,
        store.item_state(project.name, item_id, user.name),
        {f.name: f for f in project.task_kind.human_fields(project.settings)},
    )
    view.targets = build_targets(view)
    return view


def facts_of(view: ItemView, spec: HumanField) -> list[str]:
    """The facts a fact-label field is about."""
    return list(view.item.fields.get(spec.facts_field or "", []) or [])


def build_targets(
    view: ItemView, order: list[str] | None = None, *, every: bool = False
) -> list[Target]:
    """Every keyboard target of the item: each fact of fact fields, then other fields
    (questions whose condition is not met are not asked, and left out unless ``every``)."""
    names = order or sorted(
        view.fields, key=lambda n: view.fields[n].type is not FieldType.FACT_LABELS
    )
    out: list[Target] = []
    for name in names:
        spec = view.fields[name]
        if not every and not is_asked(spec, view.labels):
            continue
        if spec.type is FieldType.FACT_LABELS:
            out += [Target(spec, i) for i in range(len(facts_of(view, spec)))]
        else:
            out.append(Target(spec))
    return out


def is_required(target: Target) -> bool:
    """True when submit needs an answer to this target (every fact; required questions)."""
    return target.index is not None or target.field.required


def missing_targets(view: ItemView) -> list[Target]:
    """The targets (questions, single facts) that still need an answer, in keyboard order."""
    return [t for t in view.targets if view.value(t) is None and is_required(t)]


def missing_answers(view: ItemView) -> list[str]:
    """Names of the questions not answered yet (submit refuses while any remain)."""
    missing = []
    for spec in view.fields.values():
        saved = view.labels.get(spec.name)
        if spec.type is FieldType.FACT_LABELS:
            n = len(facts_of(view, spec))
            if n and (not isinstance(saved, list) or len(saved) != n or FACT_UNSET in saved):
                todo = (
                    n
                    if not isinstance(saved, list)
                    else sum(1 for v in saved if v == FACT_UNSET) + max(0, n - len(saved))
                )
                missing.append(f"{spec.name.replace('_', ' ')} ({todo} left)")
        elif saved is None and spec.required and is_asked(spec, view.labels):
            missing.append(spec.name.replace("_", " "))
    return missing


def derived_values(view: ItemView) -> dict[str, float | None]:
    """The kind's derived scores (intent match: recall, precision, F1) of this annotator's
    saved labels, unset facts counting as not yet labelled."""
    labels = {
        k: [x for x in v if x != FACT_UNSET] if isinstance(v, list) else v
        for k, v in view.labels.items()
    }
    return view.project.task_kind.derive(labels, view.item.fields)
