"""Crowd-study security (issue 24 point 1): codes are earned, not computed; skipping,
arriving late, taking over accounts and look-alike ids get nobody paid or in."""

from __future__ import annotations

import hashlib

import pytest

from annotation_store import Store, StoreError
from crowd import codes as crowd_codes
from crowd import ending as crowd_end
from crowd import study_quality as cq
from crowd import workers as crowd
from interop.importing import import_annotations
from studies import assignments as asg
from studies import gold
from studies.flow_settings import StudyError, parse_study, set_study

TOKEN = "s3cret"
STUDY = {
    "crowd": True,
    "token": TOKEN,
    "gold_rate": 0.25,
    "gold_threshold": 0.5,
    "survey": [],
    "completion_url": "https://app.prolific.com/submissions/complete",
}


def _project(store: Store, n: int = 6, k: int = 2, quota: int | None = 3, **study) -> None:
    store.create_project("p", "binary", {"k": k, "quota": quota})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(n)])
    set_study(store, "p", {**STUDY, **study})


def _enter(store: Store, worker: str, **ids: str) -> str:
    link = crowd.parse_link({"study": "p", "token": TOKEN, "PROLIFIC_PID": worker, **ids})
    assert link is not None
    name = crowd.enter(store, link).name
    crowd.record_guideline_opened(store, "p", name)  # no consent, no training: annotate
    return name


def _work(store: Store, who: str, action: str, value: int = 1) -> list[str]:
    """Take items until the queue is empty, submitting or skipping each one."""
    seen = []
    while (item := asg.claim_next(store, "p", who)) is not None:
        seen.append(item)
        if action == "submit":
            store.save_label("p", item, who, "label", value)
            asg.submit(store, "p", item, who, seconds=5.0)
        else:
            asg.skip(store, "p", item, who)
    return seen


# -- forged codes ---------------------------------------------------------------------------
def test_the_completion_code_cannot_be_computed_from_the_link(store, tmp_path) -> None:
    _project(store)
    who = _enter(store, "W1")
    _work(store, who, "submit")
    done = crowd_end.finish_annotation(store, "p", who)
    assert done.stage == "done" and done.completion_code is not None
    forged = {
        hashlib.sha256(f"{TOKEN}:{who}".encode()).hexdigest()[:10].upper(),
        hashlib.sha256(f"{TOKEN}:prolific:W1".encode()).hexdigest()[:10].upper(),
    }
    assert done.completion_code not in forged
    # the key is this deployment's: the same study, worker and work elsewhere give another code
    other = Store(f"sqlite:///{tmp_path / 'other.db'}")
    assert crowd_codes.worker_code(other, "p", who, "completion") != done.completion_code
    assert crowd_codes.worker_code(store, "p", who, "completion") == done.completion_code
    assert crowd_codes.deployment_secret(store) == crowd_codes.deployment_secret(store)


def test_a_code_is_only_written_for_work_done(store) -> None:
    _project(store)
    who = _enter(store, "EARLY")
    with pytest.raises(StoreError, match="not at the survey stage"):
        crowd_end.record_survey(store, "p", who, {})  # straight to the end: refused
    crowd.record_consent(store, "p", who, True)  # back to the guideline stage
    with pytest.raises(StoreError, match="not at the annotate stage"):
        crowd_end.finish_annotation(store, "p", who)
    assert crowd.participant(store, "p", who).completion_code is None
    crowd.record_guideline_opened(store, "p", who)
    _work(store, who, "submit")
    done = crowd_end.finish_annotation(store, "p", who)
    again = crowd_end.finish_annotation(store, "p", who)  # a second browser: no change
    assert (again.stage, again.completion_code) == ("done", done.completion_code)


# -- skipping through -----------------------------------------------------------------------
@pytest.mark.parametrize(("threshold", "ending"), [(0.5, "stopped"), (0.0, "incomplete")])
def test_skipping_every_item_gold_included_earns_nothing(store, threshold, ending) -> None:
    _project(store, n=4, k=5, gold_threshold=threshold)
    gold.set_gold(store, "p", "i3", 1)
    who = _enter(store, "SKIPPER")
    seen = _work(store, who, "skip")
    assert "i3" in seen  # the gold item came and was skipped too
    end = crowd_end.finish_annotation(store, "p", who)
    assert (end.stage, end.completion_code) == (ending, None)
    assert cq.completion_table(store, "p").empty


def test_skipped_gold_counts_as_missed_and_screens_out(store) -> None:
    _project(store, n=6, k=5, quota=2, gold_min=1, gold_rate=0.5)
    gold.set_gold(store, "p", "i5", 1)
    who = _enter(store, "DODGER")
    for _ in range(3):  # two ordinary items submitted, the gold one skipped
        item = asg.claim_next(store, "p", who)
        assert item is not None
        if item == "i5":
            asg.skip(store, "p", item, who)
        else:
            store.save_label("p", item, who, "label", 1)
            asg.submit(store, "p", item, who, seconds=5.0)
    assert crowd_end.failed_check(store, "p", who) == "gold accuracy 0/1 below 50%"
    assert crowd_end.finish_annotation(store, "p", who).stage == "stopped"


@pytest.mark.parametrize(("cap", "message"), [(0, "does not allow skipping"), (1, "at most 1")])
def test_a_study_can_forbid_or_cap_skips(store, cap: int, message: str) -> None:
    _project(store, max_skips=cap)
    who = _enter(store, "W1")
    assert asg.skips_left(store, "p", who) == cap
    for _ in range(cap):
        asg.skip(store, "p", asg.claim_next(store, "p", who), who)
    item = asg.claim_next(store, "p", who)
    with pytest.raises(asg.AssignmentError, match=message):
        asg.skip(store, "p", item, who)
    assert asg.own_counts(store, "p", who) == ({"skipped": cap} if cap else {})
    assert asg.skips_left(store, "p", who) == 0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_the_skip_cap_is_a_whole_number(bad: object) -> None:
    with pytest.raises(StudyError, match="'max_skips' must be a whole number >= 0"):
        parse_study({"max_skips": bad})
    assert parse_study({}).max_skips is None


# -- arriving late --------------------------------------------------------------------------
def test_a_worker_who_arrives_when_the_pool_is_full_gets_the_full_ending(store) -> None:
    _project(store, n=2, k=1, quota=2, completion_code="PAID-1", gold_rate=0.0)
    first = _enter(store, "FIRST")
    assert _work(store, first, "submit") == ["i0", "i1"]
    assert crowd_end.finish_annotation(store, "p", first).completion_code == "PAID-1"
    late = _enter(store, "LATE")
    end = crowd_end.finish_annotation(store, "p", late)
    assert end.stage == "full"
    assert end.completion_code == crowd_codes.worker_code(store, "p", late, "full")
    assert end.completion_code != "PAID-1"
    set_study(store, "p", {**STUDY, "completion_code": "PAID-1", "full_code": "FULL-2"})
    later = _enter(store, "LATER")
    assert crowd_end.finish_annotation(store, "p", later).completion_code == "FULL-2"
    assert cq.completion_table(store, "p")["annotator"].tolist() == [first]


def test_the_full_code_differs_from_the_other_codes() -> None:
    with pytest.raises(StudyError, match="'full_code' must differ"):
        parse_study({"completion_code": "C1", "full_code": "C1"})


# -- accounts a link may enter --------------------------------------------------------------
def test_a_link_cannot_take_over_an_imported_rater(store, tmp_path) -> None:
    _project(store)
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,annotator,field,value\ni0,prolific:VICTIM1,label,1\n")
    import_annotations(store, "p", labels)
    assert store.annotator("prolific:VICTIM1").external
    with pytest.raises(crowd.CrowdRefused, match="cannot be used"):
        _enter(store, "VICTIM1")
    assert crowd.participants(store, "p") == []
    assert store.annotations_frame("p")["value"].tolist() == [1]


def test_a_link_enters_only_accounts_made_by_the_same_studys_links(store) -> None:
    _project(store)
    store.create_project("q", "binary", {"k": 2})
    set_study(store, "q", {"crowd": True, "token": "tok-q"})
    store.ensure_annotator("prolific:OLD", role="annotator")  # made by an admin
    with pytest.raises(crowd.CrowdRefused, match="cannot be used"):
        _enter(store, "OLD")
    other = crowd.parse_link({"study": "q", "token": "tok-q", "PROLIFIC_PID": "W2"})
    crowd.enter(store, other)  # a worker of study q ...
    with pytest.raises(crowd.CrowdRefused, match="cannot be used"):
        _enter(store, "W2")  # ... does not enter study p's account
    assert _enter(store, "W3") == _enter(store, "W3")  # p's own worker comes back


# -- ids ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["ＡＤＭＩＮ", "ädmin", "a b", "x/y", "١٢٣"])
def test_worker_ids_are_ascii_letters_digits_and_dash_underscore_dot(bad: str) -> None:
    with pytest.raises(crowd.CrowdRefused, match="malformed worker id"):
        crowd.parse_link({"study": "p", "token": "t", "PROLIFIC_PID": bad})
    ok = crowd.parse_link({"study": "p", "token": "t", "workerId": "A1.b-c_2"})
    assert ok is not None and ok.annotator == "mturk:A1.b-c_2"


def test_ids_are_case_exact(store) -> None:
    _project(store)
    lower, upper = _enter(store, "abc123"), _enter(store, "ABC123")
    assert (lower, upper) == ("prolific:abc123", "prolific:ABC123")
    assert store.annotator(lower).id != store.annotator(upper).id


def test_every_assignment_is_recorded_and_the_latest_is_posted(store) -> None:
    _project(store)
    link = {"study": "p", "token": TOKEN, "workerId": "M1", "hitId": "H"}
    for assignment in ("A1", "A2", "A1"):
        params = {**link, "assignmentId": assignment, "turkSubmitTo": "https://www.mturk.com"}
        crowd.enter(store, crowd.parse_link(params))
    (p,) = crowd.participants(store, "p")
    assert p.platform_ids["assignmentId"] == "A1"  # the one the worker came with last
    assert [s["assignmentId"] for s in p.platform_sessions] == ["A1", "A2"]


# -- evaluator outputs ----------------------------------------------------------------------
def test_a_study_forces_evaluator_outputs_off(store) -> None:
    store.create_project("p", "binary", {"k": 2, "show_evaluators": "always"})
    assert asg.annotation_settings(store.project("p").settings).show_evaluators == "always"
    set_study(store, "p", {"crowd": True})
    assert asg.annotation_settings(store.project("p").settings).show_evaluators == "never"
