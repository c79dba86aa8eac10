"""The kind form on the Task kinds page: every question type added by form shows up in the
TOML and in the live preview (the real Annotate view); TOML edits fill the form; a bad
entry is named in place and creates nothing; the preview writes no label."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from kinds.declared import DeclarationError, parse_definition
from kinds.declared_form import answer_options, change_type, likert_text, parse_likert
from tests.support.apptest import assert_ok, open_app
from tests.support.kind_examples import example_project

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kinds"


def _toml(at: AppTest) -> dict[str, Any]:
    return tomllib.loads(at.text_area(key="kd_toml").value)


def _keys(at: AppTest) -> set[str]:
    """Keys of every button, text area, slider and select box drawn."""
    widgets = [*at.button, *at.text_area, *at.slider, *at.selectbox]
    return {w.key for w in widgets if w.key}


def _labels(at: AppTest, question: str) -> set[str]:
    """Labels of a preview question's buttons, without the focused question's ``[1]``."""
    return {
        re.sub(r"^\[\d\] ", "", b.label)
        for b in at.button
        if re.match(rf"^(opt|none)::\w+::{question}(::|$)", b.key or "")
    }


def _add(at: AppTest, qtype: str) -> str:
    """Add a question of ``qtype`` by form; its name."""
    before = len(_toml(at).get("questions", []))
    at.selectbox(key="kf_new_type").set_value(qtype)
    at.button(key="kf::add_question").click()
    assert_ok(at.run())
    questions = _toml(at)["questions"]
    assert len(questions) == before + 1 and questions[-1]["type"] == qtype
    return questions[-1]["name"]


def _field(at: AppTest, i: int, name: str, *, output: bool = False) -> None:
    at.button(key="kf::add_field").click()
    assert_ok(at.run())
    at.text_input(key=f"kf::f{i}::name").set_value(name)
    assert_ok(at.run())
    if output:
        at.checkbox(key=f"kf::f{i}::output").check()
        assert_ok(at.run())


def test_every_question_type_by_form_with_toml_and_live_preview(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py")
    at.text_input(key="kd_name").set_value("by_form")
    at.text_input(key="kf::title").set_value("Built by form")
    assert_ok(at.run())
    _field(at, 0, "summary")
    _field(at, 1, "answer_a", output=True)
    _field(at, 2, "answer_b", output=True)
    at.selectbox(key="kf::f0::role").set_value("markdown")
    assert_ok(at.run())
    assert _toml(at)["fields"] == [
        {"name": "summary", "role": "markdown"},
        {"name": "answer_a", "role": "text", "output": True},
        {"name": "answer_b", "role": "text", "output": True},
    ]

    q = _add(at, "binary")
    assert _labels(at, q) == {"yes", "no"}
    at.text_input(key="kf::q0::prompt").set_value("Is the summary faithful?")
    assert_ok(at.run())
    assert _toml(at)["questions"][0] == {
        "name": q,
        "type": "binary",
        "prompt": "Is the summary faithful?",
    }
    assert any("Is the summary faithful?" in m.value for m in at.markdown)

    q = _add(at, "single")
    at.text_area(key="kf::q1::labels").set_value("short\nright\nlong")
    assert_ok(at.run())
    assert _toml(at)["questions"][1]["labels"] == ["short", "right", "long"]
    assert _labels(at, q) == {"short", "right", "long"}

    q = _add(at, "multi")
    assert _labels(at, q) == {"first label", "second label", "none of these"}

    q = _add(at, "likert")
    at.text_area(key="kf::q3::likert").set_value("0: bad\n1: fine\n2: good")
    assert_ok(at.run())
    assert {k: _toml(at)["questions"][3][k] for k in ("labels", "levels")} == {
        "labels": ["bad", "fine", "good"],
        "levels": [0, 1, 2],
    }
    assert _labels(at, q) == {"0 · bad", "1 · fine", "2 · good"}

    q = _add(at, "score")
    at.number_input(key="kf::q4::max").set_value(5.0)
    assert_ok(at.run())
    assert _toml(at)["questions"][4] == {"name": q, "type": "score", "min": 0, "max": 5}
    slider = next(s for s in at.slider if s.key.endswith(f"::{q}"))
    assert (slider.min, slider.max) == (0.0, 5.0)

    q = _add(at, "text")
    assert any(k.startswith("text::") and k.endswith(f"::{q}") for k in _keys(at))

    q = _add(at, "pairwise")
    assert _toml(at)["questions"][6]["outputs"] == ["answer_a", "answer_b"]
    assert _labels(at, q) == {"A is better", "B is better", "Tie"}
    at.checkbox(key="kf::q6::tie").uncheck()
    assert_ok(at.run())
    assert _toml(at)["questions"][6]["tie"] is False
    assert _labels(at, q) == {"A is better", "B is better"}

    q = _add(at, "spans")
    at.text_area(key="kf::q7::labels").set_value("omission\naddition")
    assert_ok(at.run())
    assert _toml(at)["questions"][7] == {
        "name": q,
        "type": "spans",
        "field": "summary",
        "labels": ["omission", "addition"],
    }
    assert any(k.endswith(f"::{q}::add") for k in _keys(at))

    # a condition: the free-text question only once the first is answered "no"
    at.selectbox(key="kf::q5::when").set_value("question1")
    assert_ok(at.run())
    at.multiselect(key="kf::q5::answers").set_value(["no"])
    assert_ok(at.run())
    assert _toml(at)["questions"][5]["show_if"] == {"question": "question1", "answer": ["no"]}
    assert not any(k.startswith("text::") for k in _keys(at))
    no = next(
        b for b in at.button if b.key.startswith("opt::") and b.key.endswith("::question1::0")
    )
    no.click()
    assert_ok(at.run())
    assert any(k.startswith("text::") for k in _keys(at))  # asked now
    assert not at.error, [e.value for e in at.error]

    toml = at.text_area(key="kd_toml").value
    assert [q.type.value for q in parse_definition(tomllib.loads(toml)).questions] == [
        "binary",
        "categorical",
        "multi_label",
        "ordinal",
        "interval",
        "text",
        "pairwise",
        "spans",
    ]
    at.button(key="kd_save").click()
    assert_ok(at.run())
    record = store.kind_record("by_form")
    assert record.version == 1 and record.source == toml  # what `kind show --toml` prints
    assert record.definition["title"] == "Built by form"


def test_a_bad_entry_is_named_in_place_and_creates_nothing(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py")
    at.text_input(key="kd_name").set_value("bad")
    _field(at, 0, "text")
    _add(at, "single")
    at.text_area(key="kf::q0::labels").set_value("same\nsame")
    assert_ok(at.run())
    errors = [e.value for e in at.error]
    reason = "questions[0].labels: labels must be distinct ('same' repeats)"
    assert errors == [reason, f"Not valid: {reason}"]  # under the question, then the summary
    assert not any(b.key == "kd_save" for b in at.button)
    assert "kd_preview" not in str(_keys(at))
    at.text_area(key="kf::q0::labels").set_value("same\nother")
    assert_ok(at.run())
    assert not at.error, [e.value for e in at.error]
    _add(at, "binary")
    at.text_input(key="kf::q1::name").set_value("question1")  # a duplicate name
    assert_ok(at.run())
    assert at.error[0].value == "questions[1].name: duplicate question 'question1'"
    assert store.kind_records() == []


def test_toml_edits_fill_the_form_and_renames_follow_conditions(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    store.create_project("pairs", "binary")
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py")
    at.text_input(key="kd_name").set_value("prefs")
    at.text_area(key="kd_toml").set_value((EXAMPLES / "pairwise_preference.toml").read_text())
    assert_ok(at.run())
    assert at.text_input(key="kf::q0::name").value == "preference"
    assert at.multiselect(key="kf::q0::outputs").value == ["answer_a", "answer_b"]
    assert at.text_input(key="kf::q0::strength").value == "slightly, clearly"
    assert at.selectbox(key="kf::q1::when").value == "preference"
    assert at.multiselect(key="kf::q1::answers").value == ["answer_a", "answer_b"]
    assert at.checkbox(key="kf::f3::hidden").value is True
    at.text_input(key="kf::q0::name").set_value("pick")
    assert_ok(at.run())
    assert _toml(at)["questions"][1]["show_if"]["question"] == "pick"
    assert at.selectbox(key="kf::q1::when").value == "pick"
    assert not at.error, [e.value for e in at.error]
    at.text_input(key="kf::f1::name").set_value("first")  # a compared output renamed
    assert_ok(at.run())
    assert _toml(at)["questions"][0]["outputs"] == ["first", "answer_b"]
    assert at.multiselect(key="kf::q0::outputs").value == ["first", "answer_b"]
    assert _toml(at)["questions"][1]["show_if"]["answer"] == ["first", "answer_b"]
    assert not at.error, [e.value for e in at.error]
    at.button(key="kf::q2::up").click()  # "note" before "reasons"
    assert_ok(at.run())
    assert [q["name"] for q in _toml(at)["questions"]] == ["pick", "note", "reasons"]
    at.button(key="kf::q1::up").click()  # "note" first: "reasons" still follows "pick"
    assert_ok(at.run())
    assert [q["name"] for q in _toml(at)["questions"]] == ["note", "pick", "reasons"]
    assert at.multiselect(key="kf::q2::answers").value == ["first", "answer_b"]
    at.button(key="kf::q2::up").click()  # "reasons" before "pick": its condition is refused
    assert_ok(at.run())
    assert at.error[0].value.startswith(
        "questions[1].show_if.question: 'pick' is not a question declared before 'reasons'"
    )
    at.button(key="kf::q2::up").click()
    assert_ok(at.run())
    assert not at.error, [e.value for e in at.error]
    # the TOML changes, the form follows
    text = at.text_area(key="kd_toml").value.replace('"clearly"', '"much"')
    at.text_area(key="kd_toml").set_value(text)
    assert_ok(at.run())
    assert at.text_input(key="kf::q1::strength").value == "slightly, much"
    assert store.kind_records() == []


def test_the_preview_writes_nothing_on_a_real_item(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    store.create_project("texts", "binary")
    store.upsert_items("texts", [{"item_id": "t1", "fields": {"text": "Paris is in Peru."}}])
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py", project="texts")
    at.text_input(key="kd_name").set_value("checks")
    at.text_area(key="kd_toml").set_value(
        '[[fields]]\nname = "text"\n\n[[questions]]\nname = "ok"\ntype = "binary"\n\n'
        '[[questions]]\nname = "why"\ntype = "multi"\nlabels = ["wrong", "vague"]\n'
        '[questions.show_if]\nquestion = "ok"\nanswer = "no"\n'
    )
    assert_ok(at.run())
    assert at.selectbox(key="kd_preview_on").value == "texts"
    assert "Paris is in Peru\\." in [m.value for m in at.markdown]
    at.button(key=next(k for k in _keys(at) if k.endswith("::ok::0"))).click()
    assert_ok(at.run())
    at.button(key=next(k for k in _keys(at) if k.endswith("::why::wrong"))).click()
    assert_ok(at.run())
    assert at.session_state["kd_preview_answers"] == {"texts/t1": {"ok": 0, "why": ["wrong"]}}
    wrong = next(b for b in at.button if b.key.endswith("::why::wrong"))
    assert wrong.proto.type == "primary"  # shown as chosen
    assert store.annotations_frame("texts", ("draft", "submitted", "skipped")).empty
    assert store.item_state("texts", "t1", "admin")["labels"] == {}
    at.button(key="kd_preview_clear").click()
    assert_ok(at.run())
    assert at.session_state["kd_preview_answers"] == {"texts/t1": {}}
    assert not any(k.endswith("::why::wrong") for k in _keys(at))  # not asked any more
    # the sample item instead of the project's
    at.selectbox(key="kd_preview_on").set_value("the kind's sample item")
    assert_ok(at.run())
    assert any("A sample text for the field text" in m.value for m in at.markdown)


def test_form_edits_on_plain_data() -> None:
    assert parse_likert("1: poor\n2: good") == (["poor", "good"], None)
    assert parse_likert("0: poor\n5: good") == (["poor", "good"], [0, 5])
    assert parse_likert("poor\n2: good") == (["poor", "2: good"], None)
    assert likert_text({"labels": ["a", "b"], "levels": [3, 7]}) == "3: a\n7: b"
    fields = [{"name": "x", "role": "code"}]
    q = {"name": "q", "type": "single", "labels": ["a", "b"], "help": "h"}
    assert change_type(q, "spans", fields) == {
        "name": "q",
        "type": "spans",
        "help": "h",
        "field": "x",
        "labels": ["a", "b"],
    }
    assert change_type(q, "score", fields) == {
        "name": "q",
        "type": "score",
        "help": "h",
        "min": 0,
        "max": 10,
    }
    assert change_type(q, "binary", fields)["labels"] == ["a", "b"]  # two labels fit
    three = {**q, "labels": ["a", "b", "c"]}
    assert change_type(three, "binary", fields) == {"name": "q", "type": "binary", "help": "h"}
    assert answer_options({"type": "pairwise", "outputs": ["a", "b"]}) == ["a", "b", "tie"]
    assert answer_options({"type": "likert", "labels": ["x", "y"]}) == [1, 2]
    assert answer_options({"type": "text"}) == []


def test_a_condition_naming_no_answer_is_refused() -> None:
    data = {
        "fields": [{"name": "t"}],
        "questions": [
            {"name": "a", "type": "binary"},
            {"name": "b", "type": "text", "show_if": {"question": "a", "answer": []}},
        ],
    }
    with pytest.raises(DeclarationError, match=r"^questions\[1\]\.show_if\.answer: name at"):
        parse_definition(data)


@pytest.mark.parametrize(
    ("toml", "shown"),
    [
        ('fields = ["text"]', "fields[0] is not a table the form can show"),
        ("[fields]\nname = 1", "fields is not a table the form can show"),
        (
            '[[fields]]\nname = "t"\n[[questions]]\nname = "s"\ntype = "score"\nmin = "low"',
            "questions[0] holds a value the form cannot show",
        ),
        ("title = [", "The TOML cannot be read"),
    ],
)
def test_odd_toml_leaves_the_form_with_a_warning(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, toml: str, shown: str
) -> None:
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py")
    at.text_area(key="kd_toml").set_value(toml)
    assert_ok(at.run())
    assert any(w.value.startswith(shown) for w in at.warning)
    assert at.error and at.error[-1].value.startswith("Not valid: ")


def test_a_form_edit_of_a_labelled_kind_saves_a_new_version(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(sqlite_url)
    example_project(store, "error_spans", "errs")
    store.save_label("errs", "e1", "ann", "has_errors", 0, status="submitted")
    at = open_app(monkeypatch, sqlite_url, page="pages/kinds.py")
    at.selectbox(key="kd_pick").set_value("errs")
    assert_ok(at.run())
    assert at.text_area(key="kf::q2::labels").value == "minor\nmajor\ncritical"
    at.text_area(key="kf::q2::labels").set_value("minor\nmajor")
    assert_ok(at.run())
    at.button(key="kd_save").click()
    assert_ok(at.run())
    assert [r.version for r in store.kind_versions("errs")] == [1, 2]
    assert store.kind_record("errs").definition["questions"][2]["labels"] == ["minor", "major"]
    assert store.kind_record("errs", 1).source == (EXAMPLES / "error_spans.toml").read_text()
    assert store.project("errs").kind == "decl:errs@1"  # the project keeps its version
    assert store.annotations_frame("errs")["value"].tolist() == [0]
    assert at.selectbox(key="kd_pick").value == "errs"  # the new version is open
    assert at.text_area(key="kf::q2::labels").value == "minor\nmajor"
