"""The question type registry and the ranking type.

A type is one registered declaration: the built-ins in their picker order, each complete;
a type missing a part is refused when it registers (a plugin's refusal is a warning naming
it); nothing outside the three ranking modules names the ranking type. Ranking answers
are canonical groups best first; Kendall's W equals scipy's tie-corrected Friedman
statistic rescaled, alpha on the ranks equals the krippendorff package on the same units,
and the Bradley-Terry strengths of the implied pairs maximise the likelihood as SciPy
finds it.
"""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import friedmanchisquare

from annotation_store import Store
from kinds import HumanField, ValidationError
from kinds.declared import DeclarationError, parse_toml
from kinds.question_registry import (
    QUESTION_TYPES,
    declarable_names,
    for_field,
    question_types,
    register_question_type,
)
from kinds.question_type import QuestionType
from reports.data import agreement_document
from tests.support.bt_reference import bt_by_scipy
from tests.support.kind_examples import example_project

ROOT = Path(__file__).resolve().parent.parent
HALF = QuestionType(name="half", field_type="half", title="Half a type")
PEOPLE = ("ann1", "ann2", "ann3")
OUTPUTS = ("answer_1", "answer_2", "answer_3")
SYSTEMS = {  # item -> system of answer_1..3 (examples/kinds/ranked_answers_items.jsonl)
    "r1": ("model-x", "model-y", "model-z"),
    "r2": ("model-y", "model-z", "model-x"),
    "r3": ("model-z", "model-x", "model-y"),
    "r4": ("model-x", "model-y", "model-z"),
}
RANKINGS = {
    "r1": (["answer_3", "answer_1", "answer_2"], [["answer_1", "answer_3"], ["answer_2"]], None),
    "r2": (["answer_2", "answer_1", "answer_3"], ["answer_1", "answer_2", "answer_3"], None),
    "r3": (
        ["answer_2", "answer_1", "answer_3"],
        ["answer_2", "answer_3", "answer_1"],
        [["answer_1"], ["answer_2", "answer_3"]],
    ),
    "r4": (["answer_3", "answer_2", "answer_1"], ["answer_3", "answer_1", "answer_2"], None),
}


def test_the_built_in_types_in_picker_order_each_complete() -> None:
    assert declarable_names() == [
        *("binary", "single", "multi", "likert", "score", "text", "pairwise", "spans"),
        "ranking",
    ]
    assert [qt.name for qt in question_types(declarable=False)] == ["fact_labels"]
    assert all(not qt.missing_parts() for qt in question_types())
    assert {qt.control for qt in question_types(declarable=True)} == {
        *("binary", "single", "multi_label", "likert", "score", "text", "pairwise"),
        *("spans", "ranking"),
    }
    assert for_field("multi_label").name == "multi" and for_field("ranking").name == "ranking"


def test_a_type_missing_a_part_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="^question type 'half' lacks its answer_shape, "):
        register_question_type(HALF)
    assert "half" not in QUESTION_TYPES
    with pytest.raises(ValueError, match="lacks its .*parse, control$"):
        register_question_type(HALF)


def test_a_form_entry_the_page_cannot_draw_is_refused() -> None:
    from dataclasses import replace

    from kinds.question_type import FormField

    odd = replace(for_field("ranking"), name="odd", field_type="odd", form=(FormField("dial"),))
    with pytest.raises(ValueError, match="^question type 'odd': form widget 'dial' is not one"):
        register_question_type(odd)
    assert "odd" not in QUESTION_TYPES


@pytest.mark.plugins
def test_a_plugin_type_missing_a_part_is_a_warning_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ep = EntryPoint("half", "tests.test_question_types:HALF", "metric_audit.question_types")
    QUESTION_TYPES.names()  # the built-ins first: the snapshot below holds them
    monkeypatch.setattr(
        "common.registry.entry_points",
        lambda group: [ep] if group == "metric_audit.question_types" else [],
    )
    monkeypatch.setattr(QUESTION_TYPES, "_entries", dict(QUESTION_TYPES._entries))
    monkeypatch.setattr(QUESTION_TYPES, "_discovered", False)
    monkeypatch.setattr(QUESTION_TYPES, "_loads", None)
    monkeypatch.setattr(QUESTION_TYPES, "plugin_errors", {})
    with pytest.warns(RuntimeWarning, match="question type plugin 'half'"):
        QUESTION_TYPES.discover()
    assert "lacks its answer_shape" in QUESTION_TYPES.plugin_errors["half"]
    assert "half" not in QUESTION_TYPES and "ranking" in declarable_names()


def test_only_the_three_ranking_modules_name_the_ranking_type() -> None:
    named = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", "build/", "docs/", "node_modules/")) or any(
            part.startswith(".") for part in path.relative_to(ROOT).parts
        ):  # venvs (.venv, .venv-peers) and other hidden folders
            continue
        if rel.startswith(("agreement/metaeval/", "reports/metaeval_section")):
            continue  # the meta-evaluation's ranking of evaluators, not the question type
        if re.search(r"[\"']ranking[\"']", path.read_text(encoding="utf-8")):
            named.add(rel)
    assert named == {
        "kinds/question_types/ranking.py",
        "agreement/builtin_measures/ranking.py",
        "ui/annotation/ranking_control.py",
    }


def _question(tie: bool) -> HumanField:
    text = (ROOT / "examples" / "kinds" / "ranked_answers.toml").read_text()
    return parse_toml(text.replace("tie = true", f"tie = {str(tie).lower()}")).questions[0]


def test_ranking_answers_are_groups_best_first() -> None:
    q = _question(tie=True)
    assert q.validate('["answer_2", "answer_1", "answer_3"]') == [
        ["answer_2"],
        ["answer_1"],
        ["answer_3"],
    ]
    assert q.validate([["answer_3", "answer_1"], "answer_2"]) == [
        ["answer_1", "answer_3"],
        ["answer_2"],
    ]
    with pytest.raises(ValidationError, match="place each of"):
        q.validate(["answer_1", "answer_2"])
    with pytest.raises(ValidationError, match="allows no ties"):
        _question(tie=False).validate([["answer_1", "answer_2"], ["answer_3"]])
    assert q.question_type.answer_text(
        q, q.validate([["answer_3", "answer_1"], "answer_2"]), {}
    ) == ("answer_1 = answer_3 > answer_2")


def test_a_condition_cannot_name_a_ranking_answer() -> None:
    text = (ROOT / "examples" / "kinds" / "ranked_answers.toml").read_text()
    text += '\n[[questions]]\nname = "why"\ntype = "text"\n'
    text += '[questions.show_if]\nquestion = "order"\nanswer = "answer_1"\n'
    with pytest.raises(DeclarationError, match="cannot name a ranking answer"):
        parse_toml(text)


def _mid_ranks(ranking: list) -> list[float]:
    groups = [g if isinstance(g, list) else [g] for g in ranking]
    rank, taken = {}, 0
    for g in groups:
        rank.update({o: taken + (len(g) + 1) / 2 for o in g})
        taken += len(g)
    return [rank[o] for o in OUTPUTS]


@pytest.fixture
def doc(sqlite_url: str) -> dict:
    store = Store(sqlite_url)
    example_project(store, "ranked_answers", "rk")
    for item, answers in RANKINGS.items():
        for who, value in zip(PEOPLE, answers, strict=True):
            if value is not None:
                store.save_label("rk", item, who, "order", value, status="submitted")
    return agreement_document(store, "rk", n_resamples=200).to_dict()["fields"]["order"]


def test_kendall_w_alpha_and_bradley_terry_equal_independent_references(doc: dict) -> None:
    ws = []
    for answers in RANKINGS.values():
        given = [_mid_ranks(a) for a in answers if a is not None]
        chi2 = friedmanchisquare(*np.array(given).T).statistic  # tie-corrected
        ws.append(chi2 / (len(given) * (len(OUTPUTS) - 1)))
    assert doc["ranking_kendall_w"] == pytest.approx(float(np.mean(ws)), abs=1e-9)
    assert doc["ranking_kendall_w_n_items"] == 4
    assert (
        doc["ranking_kendall_w_ci"][0] <= doc["ranking_kendall_w"] <= doc["ranking_kendall_w_ci"][1]
    )

    matrix = np.full((len(PEOPLE), len(RANKINGS) * len(OUTPUTS)), np.nan)
    for u, answers in enumerate(RANKINGS.values()):
        for a, ranking in enumerate(answers):
            if ranking is not None:
                matrix[a, u * 3 : u * 3 + 3] = _mid_ranks(ranking)
    for level in ("ordinal", "interval"):
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert doc["krippendorff_alpha"][level] == pytest.approx(want, abs=1e-9)

    names = ["model-x", "model-y", "model-z"]
    games = []
    for item, answers in RANKINGS.items():
        for ranking in (a for a in answers if a is not None):
            r = _mid_ranks(ranking)
            for i in range(3):
                for j in range(i + 1, 3):
                    s = 0.5 if r[i] == r[j] else float(r[i] < r[j])
                    games.append((names.index(SYSTEMS[item][i]), names.index(SYSTEMS[item][j]), s))

    want_bt = bt_by_scipy(names, games)
    got = {row["system"]: row["theta"] for row in doc["ranking_bradley_terry"]}
    assert got == pytest.approx(want_bt, abs=1e-5)
    assert doc["ranking_bradley_terry_n_comparisons"] == len(games) == 27
    # no statistic for one-number answers or categories is computed or noted
    assert not [k for k in doc if k.startswith(("fleiss", "cohen", "gwet", "icc", "pearson"))]
    assert doc["reasons"] == {} and doc["unit"] == "output"


def test_the_ranking_control_saves_a_complete_ranking_with_ties(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.annotate_apptest import click, open_annotate
    from tests.support.apptest import assert_ok
    from ui.annotation.context import widget_token as tok

    store = Store(sqlite_url)
    project = example_project(store, "ranked_answers", settings={"k": 3})
    at = open_annotate(monkeypatch, store.url, project, user=store.ensure_annotator("ann1"))
    base = f"rank::{tok(project, 'r1')}::order::"
    assert sorted(s.key for s in at.selectbox if (s.key or "").startswith(base)) == [
        base + o for o in OUTPUTS
    ]
    for output, place in (("answer_3", 1), ("answer_1", 1)):
        at.selectbox(key=base + output).set_value(place)
        assert_ok(at.run())
    assert "order" not in store.item_state(project, "r1", "ann1")["labels"]  # not complete
    at.selectbox(key=base + "answer_2").set_value(3)
    assert_ok(at.run())
    saved = store.item_state(project, "r1", "ann1")["labels"]["order"]
    assert saved == [["answer_1", "answer_3"], ["answer_2"]]
    click(at, "submit")
    assert store.item_state(project, "r1", "ann1")["status"] == "submitted"
