"""Kinds from what people already have: a Label Studio labeling config and a Potato
YAML become declared kinds, and what could not be carried over is said plainly."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from kinds import FieldType, get_kind

DATA = Path(__file__).resolve().parent / "data" / "kinds"


def test_label_studio_config_to_a_kind_with_its_losses(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = DATA / "label_studio_config.xml"
    assert main(["--db", sqlite_url, "kind", "create", "ls", "--from", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("not carried over")] == [
        "not carried over: <Rating name='stars'>: its levels have no words; named 1..4",
        "not carried over: <TextArea name='why'>: asked per region in Label Studio; here per item",
        "not carried over: <Image name='shot'>: media is not shown; left out",
        "not carried over: <Ranker name='rank'>: no workbench question type; left out",
    ]
    store = Store(sqlite_url)  # the CLI's store is gone: this one answers decl: names
    kind = get_kind("decl:ls@1")
    assert store.kind_record("ls").version == 1
    assert kind.title == "Chatbot answers"
    assert [f.name for f in kind.item_fields] == ["question", "answer_1", "answer_2"]
    q = {f.name: f for f in kind.human_fields()}
    assert q["better"].type is FieldType.PAIRWISE
    assert q["better"].outputs == ("answer_1", "answer_2")
    assert (q["helpful"].type, q["helpful"].values, q["helpful"].required) == (
        FieldType.CATEGORICAL,
        ("yes", "no"),
        True,
    )
    assert q["problems"].type is FieldType.MULTI_LABEL
    assert q["problems"].show_if == ("helpful", ("no",))
    assert q["stars"].values == (1, 2, 3, 4)
    assert (q["errors"].type, q["errors"].source_field) == (FieldType.SPANS, "answer_1")
    assert q["why"].type is FieldType.TEXT and q["why"].required is False


def test_potato_schemes_to_a_kind_with_its_losses(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = DATA / "potato_config.yaml"
    assert main(["--db", sqlite_url, "kind", "create", "stance", "--from", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("not carried over")] == [
        "not carried over: scheme 'stance', label 'none': tooltip not carried over",
        "not carried over: scheme 'stance': sequential_key_binding not carried over "
        "(keyboard is the workbench's own)",
        "not carried over: scheme 'certainty': likert levels 2..4 are named by number",
        "not carried over: scheme 'best_worst': annotation type 'bws' has no counterpart; left out",
    ]
    store = Store(sqlite_url)
    kind = get_kind("decl:stance@1")
    assert store.kind_record("stance").version == 1
    q = {f.name: f for f in kind.human_fields()}
    assert list(q) == ["stance", "certainty", "topics", "evidence", "comment"]
    assert q["stance"].values == ("favor", "against", "none")
    assert q["certainty"].level_descriptions == {
        1: "1 · guessing",
        2: "2",
        3: "3",
        4: "4",
        5: "5 · certain",
    }
    assert (q["evidence"].type, q["evidence"].source_field) == (FieldType.SPANS, "tweet")


def test_an_unreadable_foreign_file_is_one_line_and_creates_nothing(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "config.xml"
    bad.write_text("<View><Choices name='x'></View>")
    assert main(["--db", sqlite_url, "kind", "create", "x", "--from", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: config.xml: file: not a readable Label Studio config (")
    assert err.count("\n") == 1
    empty = tmp_path / "schemes.yaml"
    empty.write_text("annotation_schemes:\n  - annotation_type: radio\n    name: s\n")
    assert main(["--db", sqlite_url, "kind", "create", "x", "--from", str(empty)]) == 2
    err = capsys.readouterr().err
    assert (
        err == "error: schemes.yaml: questions[0].labels: a list of at least 2 labels is needed\n"
    )
    assert main(["--db", sqlite_url, "kind", "list"]) == 0
    assert "no declared kinds yet" in capsys.readouterr().out


POTATO_PAIRS = """\
annotation_task_name: Answers
item_properties: {id_key: id, text_key: source}
annotation_schemes:
- annotation_type: pairwise
  name: which answer
  description: Which answer is better?
  mode: scale
  items_key: answers
  allow_tie: true
  scale: {min: -2, max: 2}
- annotation_type: error_span
  name: mqm-errors
  description: Mark the errors.
  source_field: translation
  error_types:
  - {name: accuracy, subtypes: [mistranslation]}
  - {name: fluency}
- annotation_type: bws
  name: best worst
  description: Pick
"""


def test_potato_pairwise_and_error_span_schemes_to_a_kind(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text(POTATO_PAIRS)
    assert main(["--db", sqlite_url, "kind", "create", "pairs", "--from", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.removeprefix("not carried over: ") for line in out[:-1]] == [
        "scheme 'which answer': the two compared texts (a list in 'answers') are the item "
        "fields answers_a and answers_b",
        "scheme 'which answer': a scale point's size is its strength (1..2)",
        "scheme 'which answer': named 'which_answer' (letters, digits and _ only)",
        "scheme 'mqm-errors': error subtypes not carried over (their type is)",
        "scheme 'mqm-errors': severities and the quality score not carried over "
        "(a span keeps its error type)",
        "scheme 'mqm-errors': named 'mqm_errors' (letters, digits and _ only)",
        "scheme 'best worst': annotation type 'bws' has no counterpart; left out",
    ]
    kind = get_kind("decl:pairs@1")
    assert [(f.name, f.output) for f in kind.item_fields] == [
        ("source", False),
        ("answers_a", True),
        ("answers_b", True),
        ("translation", False),
    ]
    q = {f.name: f for f in kind.human_fields()}
    assert q["which_answer"].type is FieldType.PAIRWISE
    assert q["which_answer"].strengths == ("1", "2")
    assert q["which_answer"].outputs == ("answers_a", "answers_b")
    assert (q["mqm_errors"].source_field, q["mqm_errors"].values) == (
        "translation",
        ("accuracy", "fluency"),
    )


def test_a_potato_file_without_a_usable_scheme_names_its_schemes(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bws.yaml"
    path.write_text("annotation_schemes:\n- {annotation_type: bws, name: bw, description: x}\n")
    assert main(["--db", sqlite_url, "kind", "create", "x", "--from", str(path)]) == 2
    assert capsys.readouterr().err == (
        "error: bws.yaml: annotation_schemes: no scheme has a workbench question type: 'bw' (bws)\n"
    )


def test_potato_names_a_kind_file_cannot_hold_are_made_safe_and_distinct(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "names.yaml"
    path.write_text(
        "item_properties: {text_key: tweet-text}\n"
        "annotation_schemes:\n"
        "- {annotation_type: radio, name: my scheme, description: a, labels: [x, y]}\n"
        "- {annotation_type: radio, name: my-scheme, description: b, labels: [x, y]}\n"
    )
    assert main(["--db", sqlite_url, "kind", "create", "names", "--from", str(path)]) == 0
    out = capsys.readouterr().out
    assert "item field 'tweet-text': named 'tweet_text'" in out
    assert "question 'my_scheme' repeats a name; this one is 'my_scheme_2'" in out
    kind = get_kind("decl:names@1")
    assert [f.name for f in kind.item_fields] == ["tweet_text"]
    assert [f.name for f in kind.human_fields()] == ["my_scheme", "my_scheme_2"]
