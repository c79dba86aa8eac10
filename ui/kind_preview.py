"""A read-only preview of a declared kind's annotation view on one item's fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from kinds import FieldType
from kinds.declared import KindDefinition
from ui.annotation.declared_fields import show_field


def _options(spec: Any) -> list[str]:
    if spec.type is FieldType.PAIRWISE:
        return [f"{chr(65 + i)} is better" for i in range(len(spec.outputs))] + (
            ["Tie"] if spec.allow_tie else []
        )
    if spec.type is FieldType.BINARY:
        return [spec.level_descriptions.get(1, "yes"), spec.level_descriptions.get(0, "no")]
    labels = spec.level_descriptions or {}
    return [f"{v} · {labels[v]}" if v in labels else str(v) for v in spec.values]


def _free_form(spec: Any) -> str:
    if spec.type is FieldType.TEXT:
        return "a text box"
    if spec.type is FieldType.SPANS:
        return f"word ranges of {spec.source_field} labelled {list(spec.values)}"
    return f"a slider from {spec.minimum:g} to {spec.maximum:g}"


def preview(definition: KindDefinition, fields: Mapping[str, Any]) -> None:
    """The item's shown fields by role, then each question with its choices (disabled)."""
    missing = [f.name for f in definition.item_fields if f.required and f.name not in fields]
    if missing:
        st.caption(f"This item lacks {', '.join(missing)}: those fields are left out here.")
    for spec in definition.item_fields:
        if not spec.hidden and spec.name in fields:
            show_field(spec, fields[spec.name])
    with st.container(border=True):
        for q in definition.questions:
            cond = f" · asked when {q.show_if[0]} is {list(q.show_if[1])}" if q.show_if else ""
            st.markdown(
                f"**{q.description or q.name}** `{q.type.value}`{cond}", help=q.help or None
            )
            if q.type in (FieldType.TEXT, FieldType.SPANS, FieldType.INTERVAL):
                st.caption(f"Answered with {_free_form(q)}.")
            else:
                with st.container(horizontal=True, gap="small", wrap=True):
                    for i, label in enumerate(_options(q)):
                        st.button(label, key=f"kind-preview::{q.name}::{i}", disabled=True)
