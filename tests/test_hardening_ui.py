"""Issue #14's interface points: the evaluator "unavailable" text said once, the batch
run's subset inputs, environment variable names that wrap only at underscores, the
Go to item box, the demo's k and the README, and Home's counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotation_store import Store
from demo.loading import load_demo
from tests.annotate_apptest import click, open_annotate, open_side_expander
from tests.annotate_fixtures import make_project
from tests.support.apptest import open_app, open_evaluator_panel
from ui.annotation.context import widget_token as tok
from ui.annotation.page import OTHERS_OPEN_KEY
from ui.evaluator_panel import breakable, grouped_reasons

README = Path(__file__).resolve().parents[1] / "README.md"
LLM_JUDGES = ["fingract", "fingract_ucr", "geval", "geval_ucr", "prometheus", "prometheus_ucr"]


@pytest.fixture
def actionability(store: Store) -> Store:
    make_project(store, "actionability")
    return store


def test_panel_says_unavailable_once_with_the_list(actionability: Store, monkeypatch) -> None:
    at = open_evaluator_panel(monkeypatch, actionability.url, "actionability", "ac1")
    said = [c.value for c in at.caption if "LLM endpoint not configured" in c.value]
    assert len(said) == 1, said
    assert said[0].startswith(
        ":material/block: Unavailable here: " + ", ".join(f"**{n}**" for n in LLM_JUDGES) + ": "
    )
    assert [c.value for c in at.caption].count(":material/block: unavailable (see above)") == len(
        LLM_JUDGES
    )


def test_evaluate_page_lists_unavailable_once_and_hides_subset_inputs(
    actionability: Store, monkeypatch
) -> None:
    at = open_app(
        monkeypatch,
        actionability.url,
        page="pages/evaluate.py",
        project="actionability",
        env={"WORKBENCH_JOBS_IN_APP": "0"},
    )
    # one table: each evaluator with its status and how to enable it, no paragraph
    assert not [c.value for c in at.caption if "LLM endpoint not configured" in c.value]
    table = next(d.value for d in at.dataframe if "how to enable" in d.value.columns)
    missing = table[table["status"] == "not available"]
    assert sorted(missing["evaluator"]) == sorted(LLM_JUDGES)
    assert all(h.startswith("LLM endpoint not configured") for h in missing["how to enable"])
    assert set(table[table["status"] == "ready"]["how to enable"]) <= {""}
    assert f"{len(LLM_JUDGES)} of {len(table)} evaluator(s) not available here: see below." in [
        c.value for c in at.caption
    ]
    labels = {w.label for w in (*at.number_input, *at.selectbox, *at.text_input)}
    assert not labels & {"N (first N)", "Split", "Item ids (comma-separated)"}
    at.segmented_control(key="ev_mode").set_value("first").run()
    assert "N (first N)" in [w.label for w in at.number_input]
    at.segmented_control(key="ev_mode").set_value("ids").run()
    assert "Item ids (comma-separated)" in [w.label for w in at.text_input]
    assert "N (first N)" not in [w.label for w in at.number_input]
    # defaults are blank with a word, not a 0 that means "default"
    boxes = {w.label: w for w in at.number_input}
    assert boxes["Runs per item"].value is None and boxes["Batch size"].value is None
    assert boxes["Runs per item"].proto.placeholder == "each evaluator's default"


def test_env_names_wrap_only_at_underscores() -> None:
    text = "set WORKBENCH_LLM_MODEL and WORKBENCH_LLM_BASE_URL <now>"
    assert breakable(text) == (
        "set <code>WORKBENCH_<wbr>LLM_<wbr>MODEL</code> and "
        "<code>WORKBENCH_<wbr>LLM_<wbr>BASE_<wbr>URL</code> &lt;now&gt;"
    )
    assert grouped_reasons({"a": "x", "b": None, "c": "x", "d": "y"}) == [
        (["a", "c"], "x"),
        (["d"], "y"),
    ]


def test_other_annotators_table_wraps_in_the_side_column(store: Store, monkeypatch) -> None:
    make_project(store, "likert")
    store.save_label("likert", "lk1", "someone", "label", 4)
    at = open_annotate(monkeypatch, store.url, "likert", item="lk1")
    open_side_expander(at, OTHERS_OPEN_KEY)
    assert not at.dataframe  # a dataframe truncates its cells in the narrow column
    (table,) = at.table
    assert table.value.to_dict("records") == [
        {"annotator": "someone", "field": "label", "value": "4", "status": "draft"}
    ]


def test_go_to_item_follows_the_item_in_view(store: Store, monkeypatch) -> None:
    make_project(store, "likert")
    store.upsert_items("likert", [{"item_id": "lk2", "fields": {"text": "two"}}])
    at = open_annotate(monkeypatch, store.url, "likert")
    assert at.selectbox(key="jump_item").value == "lk1"
    click(at, f"opt::{tok('likert', 'lk1')}::label::3")
    click(at, "submit")
    assert at.query_params["item"] == "lk2"
    assert at.selectbox(key="jump_item").value == "lk2"
    at.selectbox(key="jump_item").set_value("lk1").run()
    assert at.query_params["item"] == "lk1"
    click(at, "nav_next")
    assert at.selectbox(key="jump_item").value == "lk2"


def test_refused_submit_marks_the_unanswered_questions_in_place(store: Store, monkeypatch):
    make_project(store, "actionability")
    at = open_annotate(monkeypatch, store.url, "actionability")
    click(at, f"opt::{tok('actionability', 'ac1')}::errors_detected::1")
    click(at, "submit")
    marked = [m.value for m in at.markdown if "answer this" in m.value]
    assert len(marked) == 2  # errors corrected, sources; not the answered one
    assert not any("errors" in m and "detected" in m.lower() for m in marked)
    click(at, f"opt::{tok('actionability', 'ac1')}::errors_corrected::0")
    click(at, f"opt::{tok('actionability', 'ac1')}::sources::0")
    assert not [m.value for m in at.markdown if "answer this" in m.value]


def test_demo_k_is_what_the_readme_says(store: Store) -> None:
    load_demo(store)
    ks = {store.project(p.name).settings.get("k") for p in store.projects()}
    said = re.search(r"demo projects set `k` = (\d)", README.read_text(encoding="utf-8"))
    assert said is not None and ks == {int(said.group(1))}


def test_home_and_progress_count_the_same_submitted_items(store: Store, monkeypatch) -> None:
    load_demo(store)
    from studies import assignments as asg

    at = open_app(monkeypatch, store.url, page="pages/home.py")
    table = at.table[0].value.set_index("project")
    for name in table.index:
        row = asg.project_progress(store, name)
        assert table.loc[name, "submissions"] == row["submitted"]
        gold = table.loc[name, "items"] - row["items"]  # a study's gold items, counted apart
        assert table.loc[name, "complete items"] == f"{row['complete']} / {row['items']}" + (
            f" (+{gold} gold)" if gold else ""
        )
    im = table.loc["demo-intent-match"]
    assert im["submissions"] == 18 and im["answers"] == 54
    # k = 4 and three demo annotators: no item is complete until you label it too
    assert im["complete items"] == "0 / 6"
    progress = open_app(monkeypatch, store.url, page="pages/progress.py")
    assert '"label": "submissions"' in progress.dataframe[0].proto.columns


def test_status_rows_cut_server_paths() -> None:
    from ui.evaluator_panel import status_rows, without_paths

    assert without_paths("WordNet not found in /srv/app/data/nltk_data; run make wordnet") == (
        "WordNet not found in …/nltk_data; run make wordnet"
    )
    assert without_paths("set WORKBENCH_NLI_MODEL to a directory (e.g. ./models/x)") == (
        "set WORKBENCH_NLI_MODEL to a directory (e.g. ./models/x)"
    )
    assert status_rows({"bleu": None, "meteor": "no /opt/w/wn here"}) == [
        {"evaluator": "bleu", "status": "ready", "how to enable": ""},
        {"evaluator": "meteor", "status": "not available", "how to enable": "no …/wn here"},
    ]


def test_item_panel_note_cuts_server_paths() -> None:
    from ui.evaluator_panel import unavailable_note

    note = unavailable_note(
        {"meteor": "WordNet not found in /srv/app/data/nltk_data", "bleu": None}
    )
    assert note == "Unavailable here: **meteor**: WordNet not found in …/nltk_data"
