"""The ranking question's control: the outputs side by side, each given its place.

The outputs are shown in this annotator's shuffled order as A, B, ...; a place picker
under each says 1 (best) .. k. The ranking is saved once every output has a place (and,
when the question allows no ties, each place is taken once).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.annotation.context import ItemContext, Target, save_target
from ui.annotation.controls import register_control
from ui.annotation.declared_fields import show_field
from ui.annotation.declared_questions import heading, shown_order

#: The question type's control name (a plugin copy of this module changes this line only).
NAME = "ranking"


def _places(saved: Any) -> dict[str, int]:
    """output -> place (1 = best) of a saved ranking (groups best first)."""
    out: dict[str, int] = {}
    for place, group in enumerate(saved or [], start=1):
        out.update({str(o): place for o in (group if isinstance(group, list) else [group])})
    return out


def _save(ctx: ItemContext, target: Target, keys: dict[str, str]) -> None:
    places = {o: st.session_state.get(k) for o, k in keys.items()}
    if any(p is None for p in places.values()):
        return
    taken = sorted(set(places.values()))
    if len(taken) < len(places) and not target.field.allow_tie:
        return  # two outputs on one place: the warning below says so
    save_target(ctx, target, [[o for o in places if places[o] == p] for p in taken])


@register_control(NAME)
def ranking(ctx: ItemContext, target: Target) -> None:
    """Each output with a place picker; saved when the ranking is complete."""
    heading(ctx, target)
    spec = target.field
    order = shown_order(ctx, spec.outputs)
    saved = _places(ctx.value(target))
    kind_fields = {f.name: f for f in ctx.project.task_kind.item_fields}
    keys = {name: f"rank::{ctx.token}::{target.key}::{name}" for name in order}
    for name, key in keys.items():
        if key not in st.session_state and name in saved:
            st.session_state[key] = saved[name]
    places = list(range(1, len(order) + 1))
    for pos, (col, name) in enumerate(zip(st.columns(len(order)), order, strict=True)):
        with col:
            st.markdown(f"**{chr(65 + pos)}**")
            show_field(kind_fields[name], ctx.item.fields.get(name, ""))
            fresh = {} if keys[name] in st.session_state else {"index": None}
            st.selectbox(
                f"Place of {chr(65 + pos)}",
                places,
                **fresh,
                key=keys[name],
                placeholder="place (1 = best)",
                on_change=_save,
                args=(ctx, target, keys),
            )
    chosen = [st.session_state.get(k) for k in keys.values()]
    given = [p for p in chosen if p is not None]
    if not spec.allow_tie and len(set(given)) < len(given):
        st.warning("Give each output its own place: this question allows no ties.")
