"""The Annotate page on declared kinds: three annotators label each example kind with
the buttons (the keyboard's targets), answers are saved as given, conditions hide
questions, the pairwise order shown is stored, and the agreement figures of what they
entered equal an independent computation."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from annotation_store import Store
from reports.data import agreement_document
from tests.annotate_apptest import chosen, click, open_annotate
from tests.support.apptest import assert_ok, open_app
from tests.support.kind_examples import example_project
from ui.annotation.context import widget_token as tok

PEOPLE = ("ann1", "ann2", "ann3")


@pytest.fixture
def store(sqlite_url: str) -> Store:
    return Store(sqlite_url)


def test_three_annotators_rate_the_rubric_and_alpha_matches(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = example_project(store, "summary_rubric", settings={"k": 3})
    given = {"ann1": {"s1": 5, "s2": 4}, "ann2": {"s1": 4, "s2": 2}, "ann3": {"s1": 5, "s2": 3}}
    for who in PEOPLE:
        user = store.ensure_annotator(who)
        at = open_annotate(monkeypatch, store.url, project, user=user)
        for number, item in enumerate(("s1", "s2"), 1):
            assert at.query_params["item"] == str(number)  # the annotator's own numbers
            texts = " ".join(m.value for m in at.markdown)
            assert "sys-a" not in texts and "sys-b" not in texts  # hidden field
            for q in ("coherence", "consistency", "fluency", "relevance"):
                click(at, f"opt::{tok(project, item)}::{q}::{given[who][item]}")
            assert chosen(at, project, item, "coherence") == [str(given[who][item])]
            click(at, "submit")
    doc = agreement_document(store, project, n_resamples=0).to_dict()["fields"]
    matrix = np.array([[given[w][i] for i in ("s1", "s2")] for w in PEOPLE], dtype=float)
    want = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert doc["fluency"]["krippendorff_alpha"]["ordinal"] == pytest.approx(want, abs=1e-12)


def test_pairwise_order_is_stored_and_the_condition_shows_the_follow_up(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui.annotation.options import shown_order

    project = example_project(store, "pairwise_preference", settings={"k": 3})
    user = store.ensure_annotator("ann1")
    at = open_annotate(monkeypatch, store.url, project, user=user)
    keys = {b.key for b in at.button}
    assert (
        f"opt::{tok(project, 'p1')}::preference::answer_a" in keys
        and f"opt::{tok(project, 'p1')}::preference::tie" in keys
    )
    assert not any(
        k.startswith(f"opt::{tok(project, 'p1')}::reasons::") for k in keys
    )  # asked after a choice
    click(at, "submit")  # refused: the preference is missing
    assert store.item_state(project, "p1", "ann1")["status"] != "submitted"
    click(at, f"opt::{tok(project, 'p1')}::preference::answer_b")
    saved = store.item_state(project, "p1", "ann1")["labels"]["preference"]

    class Ctx:  # the order depends on project, item and annotator only
        project = store.project("pairwise_preference")
        item = store.item("pairwise_preference", "p1")
        user = store.ensure_annotator("ann1")

    assert saved == {
        "choice": "answer_b",
        "shown": shown_order(Ctx, ("answer_a", "answer_b")),
        "strength": None,
    }
    click(at, f"strength::{tok(project, 'p1')}::preference::clearly")
    click(at, f"opt::{tok(project, 'p1')}::reasons::clarity")
    click(at, f"opt::{tok(project, 'p1')}::reasons::safety")
    labels = store.item_state(project, "p1", "ann1")["labels"]
    assert labels["preference"]["strength"] == "clearly"
    assert labels["reasons"] == ["clarity", "safety"]
    click(at, "submit")  # the optional note may stay empty
    assert store.item_state(project, "p1", "ann1")["status"] == "submitted"


def test_spans_are_marked_by_word_range_and_saved(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = example_project(store, "error_spans", settings={"k": 3})
    user = store.ensure_annotator("ann1")
    at = open_annotate(monkeypatch, store.url, project, user=user)
    assert not any(
        (b.key or "").startswith(f"span::{tok(project, 'e1')}::errors") for b in at.button
    )
    click(at, f"opt::{tok(project, 'e1')}::has_errors::1")
    base = f"span::{tok(project, 'e1')}::errors"
    at.selectbox(key=f"{base}::from").set_value(2)  # "sleep" (3rd word)
    at.selectbox(key=f"{base}::to").set_value(2)
    at.selectbox(key=f"{base}::label").set_value("fluency")
    assert_ok(at.run())
    click(at, f"{base}::add")
    click(at, f"opt::{tok(project, 'e1')}::severity::minor")
    labels = store.item_state(project, "e1", "ann1")["labels"]
    assert labels["errors"] == [{"start": 8, "end": 13, "label": "fluency"}]
    assert labels["severity"] == "minor"
    click(at, "submit")
    assert store.item_state(project, "e1", "ann1")["status"] == "submitted"


def test_agreement_and_audit_pages_draw_a_declared_kind(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = example_project(store, "pairwise_preference", settings={"k": 3})
    for who, choice in zip(PEOPLE, ("answer_a", "answer_a", "tie"), strict=True):
        for item in ("p1", "p2"):
            store.save_label(
                project, item, who, "preference", {"choice": choice}, status="submitted"
            )
    at = open_app(monkeypatch, store.url, page="pages/agreement.py", project=project)
    page = " ".join(str(e.value) for e in at.markdown) + " ".join(
        str(d.value) for d in at.dataframe
    )
    assert "preference" in page
    open_app(monkeypatch, store.url, page="pages/audit.py", project=project)


def test_the_data_page_offers_declared_kinds_and_the_report_has_their_figures(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reports.render import build_report, render_markdown

    project = example_project(store, "pairwise_preference", settings={"k": 3})
    at = open_app(monkeypatch, store.url, page="pages/data.py")
    box = at.selectbox[0]
    assert "Pairwise preference" in box.options  # the declared kind, by its title
    for who, choice in zip(PEOPLE, ("answer_a", "answer_b", "answer_a"), strict=True):
        store.save_label(project, "p1", who, "preference", {"choice": choice}, status="submitted")
    text = render_markdown(build_report(store, project))
    assert "agree w/ tie" in text and "BT P(top > 2nd)" in text
