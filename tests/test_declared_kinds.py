"""Declared task kinds: TOML files checked key by key, stored in versions, used by
projects through the ordinary kind lookup, and driven from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store, StoreError
from commands import main
from kinds import FieldType, ValidationError, get_kind
from kinds.declared import DeclarationError, parse_toml
from workbench_api.kinds import save_kind

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kinds"
RUBRIC = (EXAMPLES / "summary_rubric.toml").read_text()
PAIRWISE = (EXAMPLES / "pairwise_preference.toml").read_text()
SPANS = (EXAMPLES / "error_spans.toml").read_text()

MINIMAL = """
title = "t"
[[fields]]
name = "text"
[[questions]]
name = "ok"
type = "binary"
"""


@pytest.fixture
def store(sqlite_url: str) -> Store:
    return Store(sqlite_url)


def test_examples_parse_into_the_question_types() -> None:
    rubric = parse_toml(RUBRIC)
    assert [q.type for q in rubric.questions] == [FieldType.ORDINAL] * 4
    assert rubric.questions[0].values == (1, 2, 3, 4, 5)
    assert rubric.questions[1].level_descriptions[5] == "fully supported"
    assert [f.role for f in rubric.item_fields] == ["chat", "text", "text"]
    pair = parse_toml(PAIRWISE).questions
    assert (pair[0].type, pair[0].outputs, pair[0].strengths) == (
        FieldType.PAIRWISE,
        ("answer_a", "answer_b"),
        ("slightly", "clearly"),
    )
    assert pair[1].show_if == ("preference", ("answer_a", "answer_b"))
    assert pair[2].type is FieldType.TEXT and pair[2].required is False
    spans = parse_toml(SPANS).questions
    assert spans[1].source_field == "translation" and spans[1].show_if == ("has_errors", (1,))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('type = "binary"', 'type = "sorting"'),
            "questions[0].type: unknown type 'sorting' (known: binary, single, multi, likert, "
            "score, text, pairwise, spans, ranking)",
        ),
        (
            (
                'name = "ok"\ntype = "binary"',
                'name = "ok"\ntype = "binary"\n[[questions]]\nname = "ok"\ntype = "text"',
            ),
            "questions[1].name: duplicate question 'ok'",
        ),
        (
            (
                'type = "binary"',
                'type = "text"\n[questions.show_if]\nquestion = "nope"\nanswer = "yes"',
            ),
            "questions[0].show_if.question: 'nope' is not a question declared before 'ok'",
        ),
        (
            ('type = "binary"', 'type = "single"\nlabels = ["a", "b", "a"]'),
            "questions[0].labels: labels must be distinct ('a' repeats)",
        ),
        (
            ('title = "t"', 'title = "t"\nguideline = "read <b>this</b>"'),
            "guideline: Markdown may not hold HTML (found '<b>')",
        ),
        (('name = "text"', 'name = "text"\nrole = "video"'), "fields[0].role: unknown role"),
        (('type = "binary"', 'type = "binary"\ncolour = 1'), "questions[0].colour: unknown key"),
        (
            ('type = "binary"', 'type = "spans"\nfield = "nope"\nlabels = ["x"]'),
            "questions[0].field: 'nope' is not a declared text, markdown or code field",
        ),
        (
            ('type = "binary"', 'type = "pairwise"\noutputs = ["text", "gone"]'),
            "questions[0].outputs[1]: 'gone' is not a declared field",
        ),
    ],
)
def test_a_bad_file_gets_one_line_naming_the_key_and_nothing_is_created(
    store: Store, change: tuple[str, str], message: str
) -> None:
    text = MINIMAL.replace(*change)
    with pytest.raises(DeclarationError) as exc:
        save_kind(store, "bad", text)
    assert str(exc.value).startswith(message)
    assert "\n" not in str(exc.value)
    assert store.kind_records() == []


def test_versions_projects_keep_theirs_and_labels_are_never_rewritten(store: Store) -> None:
    first = save_kind(store, "rubric", RUBRIC, new=True)
    assert first.ref == "decl:rubric@1"
    info = store.create_project("p1", "decl:rubric")
    assert info.kind == "decl:rubric@1"
    store.upsert_items(
        "p1",
        [
            {
                "item_id": "a",
                "fields": {
                    "dialogue": '[{"role": "user", "content": "hi"}]',
                    "summary": "s",
                    "system": "x",
                },
            }
        ],
    )
    store.save_label("p1", "a", "ann", "coherence", 4, status="submitted")
    edited = save_kind(store, "rubric", RUBRIC.replace('"well ordered"', '"in order"'))
    assert edited.version == 2
    with pytest.raises(DeclarationError, match="nothing changed since rubric version 2"):
        save_kind(store, "rubric", RUBRIC.replace('"well ordered"', '"in order"'))
    assert store.project("p1").kind == "decl:rubric@1"
    old, new = get_kind("decl:rubric@1"), get_kind("decl:rubric@2")
    assert old.human_field("coherence").level_descriptions[4] == "well ordered"
    assert new.human_field("coherence").level_descriptions[4] == "in order"
    frame = store.annotations_frame("p1")
    assert frame["value"].tolist() == [4]
    assert store.create_project("p2", "decl:rubric").kind == "decl:rubric@2"
    with pytest.raises(StoreError, match="a kind named 'rubric' exists"):
        save_kind(store, "rubric", PAIRWISE, new=True)


def test_structured_answers_are_checked_and_kept_canonical(store: Store) -> None:
    save_kind(store, "pair", PAIRWISE)
    save_kind(store, "spans", SPANS)
    pref = get_kind("decl:pair@1").human_field("preference")
    value = pref.validate({"choice": "answer_b", "shown": ["answer_b", "answer_a"]})
    assert value == {"choice": "answer_b", "shown": ["answer_b", "answer_a"], "strength": None}
    with pytest.raises(ValidationError, match="a tie has no strength"):
        pref.validate({"choice": "tie", "strength": "clearly"})
    reasons = get_kind("decl:pair@1").human_field("reasons")
    assert reasons.validate(["clarity", "correctness", "clarity"]) == ["correctness", "clarity"]
    errors = get_kind("decl:spans@1").human_field("errors")
    item = {"translation": "The cat sleep on the sofa."}
    spans = [{"start": 8, "end": 13, "label": "fluency"}, {"start": 0, "end": 3, "label": "style"}]
    assert errors.validate(spans, item) == sorted(spans, key=lambda s: s["start"])
    with pytest.raises(ValidationError, match="not a range inside 'translation'"):
        errors.validate([{"start": 20, "end": 40, "label": "style"}], item)


def test_cli_create_list_show_and_the_toml_comes_back_unchanged(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = EXAMPLES / "error_spans.toml"
    assert main(["--db", sqlite_url, "kind", "create", "spans", "--from", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kind spans version 1 saved (3 questions: has_errors, errors, severity)")
    assert main(["--db", sqlite_url, "kind", "list"]) == 0
    assert capsys.readouterr().out.startswith("decl:spans@1  Translation error spans")
    assert main(["--db", sqlite_url, "kind", "show", "spans", "--toml"]) == 0
    assert capsys.readouterr().out == path.read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(MINIMAL.replace('type = "binary"', 'type = "sorting"'))
    assert main(["--db", sqlite_url, "kind", "create", "bad", "--from", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bad.toml: questions[0].type: unknown type 'sorting'")
    assert err.count("\n") == 1
    assert main(["--db", sqlite_url, "project", "create", "p", "--kind", "decl:spans"]) == 0
    items = EXAMPLES / "error_spans_items.jsonl"
    assert main(["--db", sqlite_url, "import", "items", "p", str(items)]) == 0
    assert "items: 3 created" in capsys.readouterr().out


def test_adjudication_and_the_question_grid_read_structured_answers(store: Store) -> None:
    from adjudication.final_labels import (
        accept_majority,
        adjudicated_reference,
        adjudications,
    )
    from annotation_store.label_frames import labels_by_annotator
    from audit.question_grid import question_grid

    save_kind(store, "pair", PAIRWISE)
    store.create_project("p", "decl:pair")
    store.upsert_items(
        "p",
        [
            {
                "item_id": "i1",
                "fields": {
                    "request": "r",
                    "answer_a": "x",
                    "answer_b": "y",
                    "system_a": "m1",
                    "system_b": "m2",
                },
            }
        ],
    )
    answers = {
        "ann1": ({"choice": "answer_a", "shown": ["answer_a", "answer_b"]}, ["clarity"]),
        "ann2": ({"choice": "answer_a", "shown": ["answer_b", "answer_a"]}, ["clarity"]),
        "ann3": ({"choice": "tie", "shown": ["answer_b", "answer_a"]}, None),
    }
    for who, (pref, reasons) in answers.items():
        store.save_label("p", "i1", who, "preference", pref, status="submitted")
        if reasons is not None:
            store.save_label("p", "i1", who, "reasons", reasons, status="submitted")
    ref = adjudicated_reference(store, "p")
    by_field = dict(zip(ref["field"], zip(ref["value"], ref["source"], strict=True), strict=True))
    # two of three chose answer_a, whichever side it was shown on
    assert by_field["preference"] == ({"choice": "answer_a", "strength": None}, "majority")
    assert by_field["reasons"] == (("clarity",), "unanimous")
    store.ensure_annotator("rev", role="reviewer")
    final = accept_majority(store, "p", "i1", "preference", reviewer="rev")
    assert final["value"] == {
        "choice": "answer_a",
        "shown": ["answer_a", "answer_b"],
        "strength": None,
    }
    assert len(adjudications(store, "p")) == 1
    people = labels_by_annotator(store.annotations_frame("p"))["i1"]
    grid = question_grid(get_kind("decl:pair@1"), {}, people, {})
    assert grid.to_dict("records") == [
        {
            "question": "preference",
            "type": "pairwise",
            "ann1": "answer_a",
            "ann2": "answer_a",
            "ann3": "tie",
            "agree": "no",
        },
        {
            "question": "reasons",
            "type": "multi_label",
            "ann1": "clarity",
            "ann2": "clarity",
            "ann3": "",
            "agree": "yes",
        },
        {"question": "note", "type": "text", "ann1": "", "ann2": "", "ann3": "", "agree": ""},
    ]


def test_the_example_pairwise_judge_is_accepted_for_the_declared_kind(store: Store) -> None:
    from workbench_api.judges import save_judge

    save_kind(store, "pref", PAIRWISE)
    record = save_judge(store, "pref-judge", (EXAMPLES / "pairwise_judge.toml").read_text())
    assert (record.kind, record.definition["fields"]) == ("decl:pref@1", ["preference"])
    assert record.definition["output"]["labels"] == ["answer_a", "answer_b", "tie"]


def test_gold_answers_per_question_count_a_pairwise_choice_not_its_order(store: Store) -> None:
    from studies.flow_settings import answers_match
    from studies.gold import canonical_answers

    save_kind(store, "pair", PAIRWISE)
    store.create_project("p", "decl:pair")
    gold = canonical_answers(
        store, "p", {"preference": {"choice": "answer_b"}, "reasons": ["correctness"]}
    )
    worker = {
        "preference": {
            "choice": "answer_b",
            "shown": ["answer_b", "answer_a"],
            "strength": "clearly",
        },
        "reasons": ["correctness"],
    }
    assert answers_match(worker, gold)
    assert not answers_match({**worker, "reasons": ["clarity"]}, gold)
    assert not answers_match({**worker, "preference": {"choice": "tie"}}, gold)
    strict = canonical_answers(
        store, "p", {"preference": {"choice": "answer_b", "strength": "slightly"}}
    )
    assert not answers_match(worker, strict)
