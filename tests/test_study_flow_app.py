"""The study flow in the app (AppTest): link entry, consent, guideline, training with
feedback, qualification, annotation with a gold item, survey, completion."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from crowd import study_quality as cq
from crowd import workers as crowd
from studies import gold
from studies.flow_settings import set_study
from tests.support.apptest import app_session, assert_ok
from tests.support.crowd import DONE_URL, STUDY, TOKEN
from ui.annotation.context import widget_token


@pytest.fixture
def study_db(sqlite_url: str) -> str:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 2}, guideline="Say yes when the text is true.")
    store.upsert_items("p", [{"item_id": f"i{n}", "fields": {"text": f"t{n}"}} for n in range(3)])
    set_study(store, "p", STUDY)
    gold.set_gold(store, "p", "i2", 1)
    store.create_project("q", "binary", {"k": 2})
    set_study(store, "q", {"crowd": True, "token": "tok-q"})
    store.close()
    return sqlite_url


def visit(
    monkeypatch, url: str, worker: str, token: str = TOKEN, project: str = "p", mode: str = "crowd"
) -> AppTest:
    at = app_session(monkeypatch, url, env={"WORKBENCH_AUTH_MODE": mode})
    for key, value in {
        "study": project,
        "token": token,
        "PROLIFIC_PID": worker,
        "STUDY_ID": "S",
        "SESSION_ID": "X",
    }.items():
        at.query_params[key] = value
    return assert_ok(at.run())


def click(at: AppTest, key: str) -> AppTest:
    return assert_ok(at.button(key=key).click().run())


def text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error]
    parts += [s.value for s in at.success] + [i.value for i in at.info]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize(
    ("token", "project", "message"),
    [("", "p", "token does not match"), ("tok-q", "p", "token does not match")],
)
def test_links_without_the_token_or_with_another_projects_are_refused(
    monkeypatch, study_db, token, project, message
) -> None:
    at = visit(monkeypatch, study_db, "W1", token=token, project=project)
    assert message in at.error[0].value
    assert not at.button  # no way in
    assert Store(study_db).annotator("prolific:W1") is None


def test_declining_consent_ends_the_session_and_is_stored(monkeypatch, study_db) -> None:
    at = visit(monkeypatch, study_db, "NO")
    assert "Do you take part?" in text(at)
    at = click(at, "consent_no")
    assert "You chose not to take part" in text(at)
    (p,) = crowd.participants(Store(study_db), "p")
    assert (p.annotator, p.stage, p.consent) == ("prolific:NO", "declined", False)


def test_training_feedback_and_a_failed_qualification(monkeypatch, study_db) -> None:
    at = visit(monkeypatch, study_db, "FAIL")
    at = click(at, "consent_yes")
    assert "Say yes when the text is true." in text(at)
    at = click(at, "guideline_read")
    assert "Snow is white." in text(at)
    at.radio(key="training::t1::label").set_value(0)
    at = assert_ok(at.button(key="FormSubmitter:training_t1-Check my answer").click().run())
    # the sentence the annotation client shows: the question's title, the option's label
    assert "Not quite. The expected answer is Yes (1) or no (0): yes." in text(at)
    assert "Fresh snow reflects all colours." in text(at)
    at = click(at, "training_continue")
    at.radio(key="training::t2::label").set_value(0)
    at = assert_ok(at.button(key="FormSubmitter:training_t2-Check my answer").click().run())
    assert "Right." in text(at)
    at = click(at, "training_continue")
    assert "did not reach the level" in text(at)
    assert "On Prolific, please return your submission" in text(at)  # no code for them
    assert "so it ends here for you. You can close this page." in text(at)
    (p,) = crowd.participants(Store(study_db), "p")
    assert (p.stage, p.qualified) == ("not_qualified", False)
    assert [(a["id"], a["answers"], a["correct"]) for a in p.training] == [
        ("t1", {"label": 0}, False),
        ("t2", {"label": 0}, True),
    ]


def _label_current(at: AppTest, value: int, url: str) -> tuple[AppTest, str]:
    """Label the item in view; its id is read back from the opaque widget key."""
    (key,) = [b.key for b in at.button if re.fullmatch(rf"opt::\w+::label::{value}", b.key or "")]
    by_token = {widget_token("p", i): i for i in Store(url).item_ids("p")}
    item = by_token[key.split("::")[1]]
    at = assert_ok(at.button(key=key).click().run())
    return assert_ok(at.button(key="submit").click().run()), item


def test_a_qualified_worker_annotates_meets_gold_answers_survey_and_completes(
    monkeypatch, study_db
) -> None:
    at = visit(monkeypatch, study_db, "PASS")
    at = click(at, "consent_yes")
    at = click(at, "guideline_read")
    for tid, value in (("t1", 1), ("t2", 0)):
        at.radio(key=f"training::{tid}::label").set_value(value)
        at = assert_ok(at.button(key=f"FormSubmitter:training_{tid}-Check my answer").click().run())
        assert "Right." in text(at)
        at = click(at, "training_continue")
    seen = []
    for _ in range(3):
        at, item = _label_current(at, 1, study_db)
        seen.append(item)
    assert seen == ["i0", "i2", "i1"]  # the gold item among the others, at the rate 1/2
    assert "How clear was the task?" in str([r.label for r in at.radio])
    at.radio(key="survey::clear").set_value(4)
    at.text_area(key="survey::comments").input("fine")
    at = assert_ok(at.button(key="FormSubmitter:survey-Finish").click().run())
    assert at.code[0].value == "CRWD-9"
    (link,) = [e for e in at.get("link_button")]
    assert link.proto.url == f"{DONE_URL}?cc=CRWD-9"
    store = Store(study_db)
    (p,) = crowd.participants(store, "p")
    assert (p.stage, p.qualified, p.survey, p.completion_code) == (
        "done",
        True,
        {"clear": 4, "comments": "fine"},
        "CRWD-9",
    )
    labels = store.annotations_frame("p")
    assert sorted(labels["item_id"]) == ["i0", "i1", "i2"]
    assert gold.gold_accuracy(store, "p") == {"prolific:PASS": (1, 1)}
    times = cq.active_times(store, "p")
    assert sorted(times["item_id"]) == ["i0", "i1", "i2"]
    assert (times["active_seconds"] >= 0).all()


def test_the_same_worker_in_a_second_browser_resumes(monkeypatch, study_db) -> None:
    first = visit(monkeypatch, study_db, "TWICE")
    click(first, "consent_yes")
    second = visit(monkeypatch, study_db, "TWICE")
    assert "Say yes when the text is true." in text(second)  # the guideline, not consent
    assert len(crowd.participants(Store(study_db), "p")) == 1


def test_a_worker_below_the_gold_threshold_is_stopped(monkeypatch, study_db) -> None:
    store = Store(study_db)
    settings = store.project("p").settings
    store.update_settings(
        "p", {**settings, "study": {**settings["study"], "gold_threshold": 0.5, "gold_stop": True}}
    )
    who = crowd.enter(store, crowd.parse_link({"study": "p", "token": TOKEN, "PROLIFIC_PID": "G"}))
    crowd.record_consent(store, "p", who.name, True)
    crowd.record_guideline_opened(store, "p", who.name)
    for tid, value in (("t1", 1), ("t2", 0)):
        crowd.record_training_answer(store, "p", who.name, tid, {"label": value})
    crowd.finish_training(store, "p", who.name)
    store.save_label("p", "i2", who.name, "label", 0)  # the gold item, answered wrongly
    store.submit_item("p", "i2", who.name)
    at = visit(monkeypatch, study_db, "G")
    assert "did not match" in text(at)
    assert crowd.participant(store, "p", who.name).stage == "stopped"


def test_a_signed_in_annotator_goes_through_the_flow_on_the_annotate_page(
    monkeypatch, study_db
) -> None:
    store = Store(study_db)
    ana = store.ensure_annotator("ana")
    at = app_session(monkeypatch, study_db)
    at.query_params["project"] = "p"
    at.session_state["user"] = ana
    at = assert_ok(at.run())
    at = assert_ok(at.switch_page("pages/annotate.py").run())
    assert "Do you take part?" in text(at)
    click(at, "consent_yes")
    p = crowd.participant(store, "p", "ana")
    assert (p.platform, p.stage, p.consent) == ("account", "guideline", True)


def test_training_on_fact_labels_asks_one_choice_per_fact(monkeypatch, sqlite_url) -> None:
    store = Store(sqlite_url)
    store.create_project("im", "intent_match", {"k": 2})
    store.upsert_items(
        "im", [{"item_id": "a", "fields": {"gold": "Book a table", "predicted": "Book"}}]
    )
    practice = {
        "gold": "Book a table for two",
        "predicted": "Book a table",
        "gold_facts": ["wants a table booked", "for two people"],
        "predicted_facts": ["wants a table booked"],
    }
    answers = {"gold_fact_labels": ["C", "M"]}
    set_study(
        store,
        "im",
        {
            "crowd": True,
            "token": TOKEN,
            "training": [{"id": "f1", "fields": practice, "answers": answers}],
            "qualification": 1.0,
        },
    )
    store.close()
    at = visit(monkeypatch, sqlite_url, "FACTS", project="im")
    at = click(at, "guideline_read")
    assert [r.label for r in at.radio] == ["wants a table booked", "for two people"]
    at.radio(key="training::f1::gold_fact_labels::0").set_value("C")
    at.radio(key="training::f1::gold_fact_labels::1").set_value("C")
    at = assert_ok(at.button(key="FormSubmitter:training_f1-Check my answer").click().run())
    assert "The expected answer is 1. wants a table booked: C; 2. for two people: M." in text(at)
    (p,) = crowd.participants(Store(sqlite_url), "im")
    assert p.training == [
        {"id": "f1", "answers": {"gold_fact_labels": ["C", "C"]}, "correct": False}
    ]


def test_training_shows_object_and_list_fields_readably() -> None:
    from ui.study.training import field_markdown

    act = {"act": "INFORM", "slot": "price", "values": ["$120"]}
    assert field_markdown(act) == "- act: `INFORM`\n- slot: `price`\n- values: `$120`"
    assert field_markdown(["Create an alarm", "Time is 7 AM"]) == (
        "- Create an alarm\n- Time is 7 AM"
    )
    # two dollar signs in a sentence stay text, not a formula
    assert field_markdown("From $90 to $120.") == "From \\$90 to \\$120."
    assert field_markdown([]) == "—"
    # a chat transcript: speaker and words, never a Python repr
    chat = [{"role": "user", "content": "Wake me at 7"}, {"role": "assistant", "content": "Done."}]
    assert field_markdown(chat) == "- **user**: Wake me at 7\n- **assistant**: Done."


def test_a_failed_qualification_gets_the_screenout_code_and_the_way_back(
    monkeypatch, study_db
) -> None:
    store = Store(study_db)
    settings = store.project("p").settings
    store.update_settings(
        "p", {**settings, "study": {**settings["study"], "screenout_code": "SO-1"}}
    )
    at = visit(monkeypatch, study_db, "OUT")
    at = click(at, "consent_yes")
    at = click(at, "guideline_read")
    for tid in ("t1", "t2"):
        at.radio(key=f"training::{tid}::label").set_value(1)  # t2 is wrong
        at = assert_ok(at.button(key=f"FormSubmitter:training_{tid}-Check my answer").click().run())
        at = click(at, "training_continue")
    assert "did not reach the level" in text(at)
    assert "return your submission" not in text(at)
    assert "close this page" not in text(at)  # the code and its button are the way out
    assert [c.value for c in at.code] == ["SO-1"]
    [button] = at.get("link_button")
    assert button.proto.url == f"{DONE_URL}?cc=SO-1"


# -- security (issue 24 point 1) ------------------------------------------------------------
def test_a_link_in_single_sign_in_mode_is_refused_and_makes_nobody(monkeypatch, study_db) -> None:
    at = visit(monkeypatch, study_db, "W1", mode="single")
    assert "do not work while the workbench runs in single sign-in mode" in at.error[0].value
    assert not at.button  # no consent, no way in
    assert Store(study_db).annotator("prolific:W1") is None
    assert crowd.participants(Store(study_db), "p") == []


def _qualified(monkeypatch, url: str, worker: str) -> AppTest:
    at = click(click(visit(monkeypatch, url, worker), "consent_yes"), "guideline_read")
    for tid, value in (("t1", 1), ("t2", 0)):
        at.radio(key=f"training::{tid}::label").set_value(value)
        at = assert_ok(at.button(key=f"FormSubmitter:training_{tid}-Check my answer").click().run())
        at = click(at, "training_continue")
    return at


def test_after_submit_a_worker_sees_no_evaluators_and_no_resubmit(monkeypatch, study_db) -> None:
    store = Store(study_db)
    store.update_settings("p", {**store.project("p").settings, "show_evaluators": "always"})
    at = _qualified(monkeypatch, study_db, "BLIND")
    at, first = _label_current(at, 1, study_db)
    at = click(at, "nav_prev")
    assert at.query_params["item"] == "1"  # the worker's first item, by its number
    assert "submit" not in _keys(at) and "skip" not in _keys(at)
    assert "Submitted (final)" in str([c.value for c in at.caption])
    assert "Evaluators" not in [e.label for e in at.expander]
    late = f"opt::{widget_token('p', first)}::label::0"
    at = assert_ok(at.button(key=late).click().run())  # a late change
    assert "submitted; in this study that is final" in text(at)
    assert store.annotations_frame("p")["value"].tolist() == [1]


def _keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button if b.key}


def test_a_worker_who_arrives_when_the_pool_is_full_gets_a_full_code(monkeypatch, study_db) -> None:
    at = visit(monkeypatch, study_db, "LATE", token="tok-q", project="q")  # q has no items
    at = click(at, "guideline_read")
    assert "This study is full" in text(at)
    p = crowd.participant(Store(study_db), "q", "prolific:LATE")
    assert p.stage == "full" and at.code[0].value == p.completion_code
    assert cq.completion_table(Store(study_db), "q").empty
