"""The form editor of a declared kind: fields and questions without writing TOML.

Every widget is filled from the TOML editor's text and writes its change back through
:mod:`ui.kind_form_edits` (the writer behind ``kind show --toml`` for kinds saved as
data), so the TOML editor and the form never disagree. Checking is left to
:mod:`kinds.declared`; its error is shown under the field or question it names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from kinds.declared import ROLES, DeclarationError
from kinds.declared_form import answer_options, likert_text, lines, type_title
from kinds.question_registry import declarable_names, find
from kinds.question_type import FormField
from ui.kind_form_edits import (
    ALWAYS,
    PREFIX,
    Setter,
    add_field,
    add_question,
    apply_change,
    move_up,
    put,
    read_data,
    remove,
    rename_field,
    rename_question,
    retype,
    set_answers,
    set_condition,
    set_likert,
)


def _widget(
    widget: Callable[..., Any],
    label: str,
    key: str,
    shown: Any,
    path: tuple[Any, ...],
    setter: Setter,
    *,
    structural: bool = False,
    host: Any = st,
    **kwargs: Any,
) -> None:
    """One form widget: filled from the definition once, written back on change."""
    key = PREFIX + key
    if key not in st.session_state:
        st.session_state[key] = shown
    getattr(host, widget.__name__)(
        label, key=key, on_change=apply_change, args=(path, key, setter, structural), **kwargs
    )


def _error_here(error: DeclarationError | None, *prefixes: str) -> None:
    """The checker's error, when its key points into this part of the form."""
    if error is None:
        return
    if any(error.key == p or error.key.startswith(p + ".") for p in prefixes):
        st.error(str(error), icon=":material/error:")


def _number(value: Any) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() else value


# -- the parts of the form ------------------------------------------------------------


def _about(data: dict[str, Any], error: DeclarationError | None) -> None:
    st.markdown("**About the kind**")
    _widget(st.text_input, "Title", "title", str(data.get("title", "")), (), put("title", ""))
    _widget(
        st.text_input,
        "Description",
        "description",
        str(data.get("description", "")),
        (),
        put("description", ""),
    )
    _widget(
        st.text_area,
        "Guideline (Markdown, no HTML)",
        "guideline",
        str(data.get("guideline", "")),
        (),
        put("guideline", ""),
        height=100,
    )
    _error_here(error, "title", "description", "guideline", "judge_hint", "file")


def _fields(data: dict[str, Any], error: DeclarationError | None) -> None:
    st.markdown("**Item fields**: what the annotator sees of each item")
    for i, f in enumerate(data.get("fields") or []):
        path = ("fields", i)
        with st.container(border=True, key=f"kf_field_{i}"):
            c = st.columns([4, 3, 2], vertical_alignment="bottom")
            _widget(
                st.text_input,
                "Name",
                f"f{i}::name",
                str(f.get("name", "")),
                path,
                rename_field,
                host=c[0],
            )
            role = f.get("role", "text")
            _widget(
                st.selectbox,
                "Shown as",
                f"f{i}::role",
                role if role in ROLES else ROLES[0],
                path,
                put("role"),
                host=c[1],
                options=ROLES,
            )
            _entry_buttons(c[2], "fields", i)
            c = st.columns([3, 3, 4], vertical_alignment="center")
            _widget(
                st.checkbox,
                "output",
                f"f{i}::output",
                bool(f.get("output", False)),
                path,
                put("output", False),
                host=c[0],
                help="A judged output (a pairwise question compares these)",
            )
            _widget(
                st.checkbox,
                "hidden",
                f"f{i}::hidden",
                bool(f.get("hidden", False)),
                path,
                put("hidden", False),
                host=c[1],
                help="Never shown to annotators (gold, metadata)",
            )
            _widget(
                st.text_input,
                "Description",
                f"f{i}::description",
                str(f.get("description", "")),
                path,
                put("description", ""),
                host=c[2],
                label_visibility="collapsed",
                placeholder="what this field holds (optional)",
            )
            _error_here(error, f"fields[{i}]")
    _error_here(error, "fields")
    st.button("Add a field", key=f"{PREFIX}add_field", icon=":material/add:", on_click=add_field)


def _question(
    data: dict[str, Any], i: int, q: dict[str, Any], error: DeclarationError | None
) -> None:
    path = ("questions", i)
    fields = [f for f in data.get("fields") or [] if isinstance(f, dict)]
    names = [str(f.get("name", "")) for f in fields]
    qtype = q.get("type")
    c = st.columns([8, 2], vertical_alignment="bottom")
    _widget(
        st.text_input,
        "Name",
        f"q{i}::name",
        str(q.get("name", "")),
        path,
        rename_question(i),
        host=c[0],
    )
    _entry_buttons(c[1], "questions", i)
    # A row of its own: beside the name, at 1024 px, "Likert (a label per level)" was cut.
    _widget(
        st.selectbox,
        "Type",
        f"q{i}::type",
        qtype if qtype in declarable_names() else None,
        path,
        retype(fields),
        structural=True,
        options=declarable_names(),
        format_func=type_title,
    )
    c = st.columns([3, 1], vertical_alignment="bottom")
    _widget(
        st.text_input,
        "Prompt",
        f"q{i}::prompt",
        str(q.get("prompt", "")),
        path,
        put("prompt", ""),
        host=c[0],
    )
    _widget(
        st.checkbox,
        "required",
        f"q{i}::required",
        bool(q.get("required", True)),
        path,
        put("required", True),
        host=c[1],
    )
    _widget(st.text_input, "Help", f"q{i}::help", str(q.get("help", "")), path, put("help", ""))
    _typed(i, q, names, fields)
    _condition(data, i, q)
    _error_here(error, f"questions[{i}]")


def _entry_buttons(host: Any, section: str, i: int) -> None:
    """Move an entry up (a condition may only name an earlier question), or remove it."""
    tag = section[0]
    with host.container(horizontal=True, gap="small"):
        if i:
            st.button(
                "↑",
                key=f"{PREFIX}{tag}{i}::up",
                type="tertiary",
                help="Move up",
                on_click=move_up,
                args=(section, i),
            )
        st.button(
            "✕",
            key=f"{PREFIX}{tag}{i}::remove",
            type="tertiary",
            help="Remove",
            on_click=remove,
            args=(section, i),
        )


def _words(value: Any) -> list[str]:
    return [w.strip() for w in str(value).split(",") if w.strip()]


def _entry(i: int, q: dict[str, Any], ff: FormField, host: Any, ctx: dict[str, Any]) -> None:
    """One entry of the type's part of the form, drawn by its widget."""
    path = ("questions", i)
    key = f"q{i}::{ff.key}"
    extra = {k: v for k, v in (("help", ff.help), ("placeholder", ff.placeholder)) if v}
    current = q.get(ff.key, ff.default)
    if ff.widget == "note":
        host.caption(ff.label)
    elif ff.widget == "labels":
        shown = "\n".join(str(v) for v in q.get(ff.key) or ff.default or [])
        setter = put(ff.key, ff.default, lines)
        _widget(st.text_area, ff.label, key, shown, path, setter, host=host, height=100)
    elif ff.widget == "likert":
        _widget(
            st.text_area, ff.label, key, likert_text(q), path, set_likert, host=host, height=130
        )
    elif ff.widget == "number":
        setter = put(ff.key, None, _number)
        _widget(st.number_input, ff.label, key, float(current), path, setter, host=host)
    elif ff.widget == "outputs":
        chosen = list(current or [])
        options = _with(ctx["names"], chosen)
        setter = put(ff.key, [])
        _widget(
            st.multiselect, ff.label, key, chosen, path, setter, host=host, options=options, **extra
        )
    elif ff.widget == "checkbox":
        setter = put(ff.key, ff.default)
        _widget(
            st.checkbox,
            ff.label,
            key,
            bool(current),
            path,
            setter,
            structural=ff.structural,
            host=host,
            **extra,
        )
    elif ff.widget == "words":
        shown = ", ".join(current or [])
        setter = put(ff.key, [], _words)
        _widget(st.text_input, ff.label, key, shown, path, setter, host=host, **extra)
    elif ff.widget == "text_field":
        texts = ctx["texts"]
        shown = current if current in texts else None
        _widget(st.selectbox, ff.label, key, shown, path, put(ff.key), host=host, options=texts)


def _typed(i: int, q: dict[str, Any], names: list[str], fields: list[dict[str, Any]]) -> None:
    """The type's own entries (its declared form fields), rows side by side."""
    qt = find(q.get("type"))
    if qt is None:
        return
    ctx = {
        "names": names,
        "texts": [
            str(f.get("name"))
            for f in fields
            if f.get("role", "text") in ("text", "markdown", "code")
        ],
    }
    rows: dict[int, list[FormField]] = {}
    for ff in qt.form:
        rows.setdefault(ff.row or -len(rows) - 1, []).append(ff)
    for entries in rows.values():
        hosts = st.columns(len(entries)) if len(entries) > 1 else [st]
        for ff, host in zip(entries, hosts, strict=True):
            _entry(i, q, ff, host, ctx)


def _condition(data: dict[str, Any], i: int, q: dict[str, Any]) -> None:
    """Show only when an earlier question has one of some answers."""
    path = ("questions", i)
    before = {
        str(b.get("name")): b for b in (data.get("questions") or [])[:i] if isinstance(b, dict)
    }
    cond = q.get("show_if") if isinstance(q.get("show_if"), dict) else None
    target = str(cond.get("question")) if cond else ALWAYS
    c = st.columns(2)
    _widget(
        st.selectbox,
        "Ask",
        f"q{i}::when",
        target,
        path,
        set_condition(before),
        structural=True,
        host=c[0],
        options=_with([ALWAYS, *before], [target]),
        format_func=lambda v: "always" if v == ALWAYS else f"only when {v} is …",
    )
    if cond is None:
        return
    options = answer_options(before.get(target, {}))
    given = cond.get("answer")
    given = given if isinstance(given, list) else [given]
    _widget(
        st.multiselect,
        "one of",
        f"q{i}::answers",
        given,
        path,
        set_answers,
        host=c[1],
        options=_with(options, given),
    )


def render_form(error: DeclarationError | None) -> None:
    """The whole form, filled from the TOML editor; ``error`` is shown where it points."""
    data = read_data()
    if data is None:
        st.warning(
            "The TOML cannot be read: fix it in the TOML tab and the form follows.",
            icon=":material/warning:",
        )
        return
    odd = _not_tables(data)
    if odd:
        st.warning(
            f"{odd} is not a table the form can show: fix it in the TOML tab.",
            icon=":material/warning:",
        )
        return
    st.caption("A form edit rewrites the TOML in the usual key order (comments are dropped).")
    _about(data, error)
    _fields(data, error)
    st.markdown("**Questions**: what the annotator answers, in this order")
    for i, q in enumerate(data.get("questions") or []):
        with st.container(border=True, key=f"kf_question_{i}"):
            try:
                _question(data, i, q, error)
            except (TypeError, ValueError, AttributeError):  # a value of the wrong type
                st.warning(
                    f"questions[{i}] holds a value the form cannot show: edit it in the TOML tab.",
                    icon=":material/warning:",
                )
                _error_here(error, f"questions[{i}]")
    _error_here(error, "questions")
    c = st.columns([2, 1], vertical_alignment="bottom")
    c[0].selectbox(
        "New question's type", declarable_names(), key="kf_new_type", format_func=type_title
    )
    c[1].button(
        "Add a question", key=f"{PREFIX}add_question", icon=":material/add:", on_click=add_question
    )


def _not_tables(data: dict[str, Any]) -> str | None:
    """The first part of the definition that is not a list of tables (or a table)."""
    for section in ("fields", "questions"):
        entries = data.get(section, [])
        if not isinstance(entries, list):
            return section
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                return f"{section}[{i}]"
    return None


def _with(options: list[Any], current: list[Any]) -> list[Any]:
    """``options`` plus any current value not among them (shown, so it can be removed)."""
    return [*options, *(v for v in current if v not in options)]
