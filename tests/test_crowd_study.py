"""Crowd studies in the store: settings, link entry, the flow, gold, time, flags, dashboard."""

from __future__ import annotations

import io
from datetime import timedelta

import pandas as pd
import pytest

from annotation_store import Store, StoreError
from annotation_store.models import utcnow
from crowd import ending as crowd_end
from crowd import study_quality as cq
from crowd import workers as crowd
from interop.importing import ImportFailure, import_items
from studies import assignments as asg
from studies import gold
from studies.flow_settings import StudyError, parse_study, set_study, study_of
from study_inputs.load import load_inputs

TRAINING = [
    {"id": "t1", "fields": {"text": "sky is blue"}, "answers": {"label": 1}, "explanation": "Yes."},
    {"id": "t2", "fields": {"text": "fire is cold"}, "answers": {"label": 0}, "explanation": "No."},
]
STUDY = {
    "crowd": True,
    "token": "s3cret",
    "consent": "You agree to take part.",
    "training": TRAINING,
    "qualification": 1.0,
    "gold_rate": 0.25,
    "gold_threshold": 0.5,
    "survey": [{"id": "q1", "text": "How clear?", "type": "likert"}],
    "completion_code": "C0DE42",
    "completion_url": "https://app.prolific.com/submissions/complete",
    "hourly_rate": 12.0,
}


def _project(store: Store, name: str = "p", n: int = 8, k: int = 2, **study) -> str:
    store.create_project(name, "binary", {"k": k})
    store.upsert_items(name, [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(n)])
    set_study(store, name, {**STUDY, **study})
    return name


def _link(worker: str, project: str = "p", token: str = "s3cret") -> crowd.CrowdLink:
    params = {"study": project, "token": token, "PROLIFIC_PID": worker, "STUDY_ID": "S1"}
    link = crowd.parse_link(params)
    assert link is not None
    return link


def _do(store: Store, item: str, who: str, value: int) -> None:
    store.save_label("p", item, who, "label", value)
    asg.submit(store, "p", item, who, seconds=5.0)


def _through(store: Store, who: str, items: tuple[str, ...] = ("i0",)) -> None:
    """Consent, guideline, both training items right, then submit ``items``."""
    crowd.record_consent(store, "p", who, True)
    crowd.record_guideline_opened(store, "p", who)
    for t in TRAINING:
        crowd.record_training_answer(store, "p", who, t["id"], t["answers"])
    crowd.finish_training(store, "p", who)
    for item in items:
        _do(store, item, who, 1)


# -- settings ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"qualification": 1.5}, "'qualification' must be a number from 0 to 1"),
        ({"crowd": "yes"}, "'crowd' must be true or false"),
        ({"training": [{"id": "x"}]}, "training item 1 needs 'answers'"),
        ({"survey": [{"text": "Q", "type": "stars"}]}, "type must be one of"),
        ({"completion_url": "javascript:alert(1)"}, "must start with https://"),
        ({"colour": "red"}, "unknown study setting 'colour'"),
    ],
)
def test_bad_study_settings_are_refused_with_the_key(raw: dict, message: str) -> None:
    with pytest.raises(StudyError, match=message):
        parse_study(raw)


def test_training_answers_are_checked_against_the_kind_and_nothing_is_written(store) -> None:
    store.create_project("p", "binary", {"k": 2})
    bad = {"training": [{"id": "t", "answers": {"label": 7}}]}
    with pytest.raises(StudyError, match="training item 't', field 'label'"):
        set_study(store, "p", bad)
    assert "study" not in store.project("p").settings


def test_a_crowd_study_without_token_gets_a_random_one(store) -> None:
    store.create_project("p", "binary", {"k": 2})
    stored = set_study(store, "p", {"crowd": True})
    assert len(stored["token"]) >= 20
    assert study_of(store.project("p").settings).token == stored["token"]


# -- entry by link ----------------------------------------------------------------------
def test_links_without_token_or_with_another_projects_token_are_refused(store) -> None:
    _project(store, "p")
    _project(store, "q", token="other-token")
    with pytest.raises(crowd.CrowdRefused, match="token does not match"):
        crowd.enter(store, _link("W1", token=""))
    with pytest.raises(crowd.CrowdRefused, match="token does not match"):
        crowd.enter(store, _link("W1", token="other-token"))
    assert store.annotator("prolific:W1") is None
    assert crowd.participants(store, "p") == []


def test_link_entry_is_refused_when_the_project_is_not_a_crowd_study(store) -> None:
    _project(store, crowd=False)
    with pytest.raises(crowd.CrowdRefused, match="not open to study links"):
        crowd.enter(store, _link("W1"))
    assert crowd.enter(store, _link("W1"), crowd_mode=True).name == "prolific:W1"


def test_link_without_worker_id_or_with_a_malformed_one_is_refused() -> None:
    assert crowd.parse_link({"PROLIFIC_PID": "x"}) is None  # no study: not a link
    with pytest.raises(crowd.CrowdRefused, match="no worker id"):
        crowd.parse_link({"study": "p", "token": "t"})
    with pytest.raises(crowd.CrowdRefused, match="malformed"):
        crowd.parse_link({"study": "p", "token": "t", "workerId": "a b<script>"})


def test_first_visit_creates_an_annotator_and_the_same_id_resumes(store) -> None:
    _project(store)
    user = crowd.enter(store, _link("W1"))
    assert (user.name, user.role, user.has_password) == ("prolific:W1", "annotator", False)
    crowd.record_consent(store, "p", user.name, True)
    again = crowd.enter(store, _link("W1"))
    assert again.id == user.id
    (p,) = crowd.participants(store, "p")
    assert (p.stage, p.consent, p.platform) == ("guideline", True, "prolific")
    assert p.platform_ids == {"PROLIFIC_PID": "W1", "STUDY_ID": "S1", "SESSION_ID": ""}


def test_mturk_link_names_the_worker_by_platform(store) -> None:
    _project(store)
    link = crowd.parse_link(
        {"study": "p", "token": "s3cret", "workerId": "A1B2", "assignmentId": "X", "hitId": "H"}
    )
    assert crowd.enter(store, link).name == "mturk:A1B2"


def test_a_signed_in_users_name_cannot_be_taken_by_a_link(store) -> None:
    _project(store)
    store.ensure_annotator("prolific:ADMIN", role="admin")
    with pytest.raises(crowd.CrowdRefused, match="cannot be used"):
        crowd.enter(store, _link("ADMIN"))


# -- the flow ---------------------------------------------------------------------------
def test_declining_consent_ends_the_study_and_is_stored(store) -> None:
    _project(store)
    name = crowd.enter(store, _link("W1")).name
    p = crowd.record_consent(store, "p", name, False)
    assert (p.stage, p.consent, p.finished_at is not None) == ("declined", False, True)


def test_training_feedback_and_qualification(store) -> None:
    _project(store)
    good, bad = (crowd.enter(store, _link(w)).name for w in ("GOOD", "BAD"))
    for who in (good, bad):
        crowd.record_consent(store, "p", who, True)
        assert crowd.record_guideline_opened(store, "p", who).stage == "training"
    assert crowd.record_training_answer(store, "p", good, "t1", {"label": 1}) is True
    assert crowd.record_training_answer(store, "p", good, "t2", {"label": 0}) is True
    assert crowd.record_training_answer(store, "p", bad, "t1", {"label": 1}) is True
    assert crowd.record_training_answer(store, "p", bad, "t2", {"label": 1}) is False
    # a second answer to the same item does not replace the first
    assert crowd.record_training_answer(store, "p", bad, "t2", {"label": 0}) is True
    assert crowd.finish_training(store, "p", good).stage == "annotate"
    p = crowd.finish_training(store, "p", bad)
    assert (p.stage, p.qualified) == ("not_qualified", False)
    assert [a["correct"] for a in p.training] == [True, False]


def test_survey_then_completion_code_and_prolific_url(store) -> None:
    _project(store)
    who = crowd.enter(store, _link("W1")).name
    _through(store, who)
    assert crowd_end.finish_annotation(store, "p", who).stage == "survey"
    p = crowd_end.record_survey(store, "p", who, {"q1": 4})
    assert (p.stage, p.survey, p.completion_code) == ("done", {"q1": 4}, "C0DE42")
    study = study_of(store.project("p").settings)
    assert crowd.completion_url(study, "C0DE42") == (
        "https://app.prolific.com/submissions/complete?cc=C0DE42"
    )


def test_without_a_fixed_code_each_worker_gets_their_own(store) -> None:
    _project(store, completion_code="", survey=[])
    a, b = (crowd.enter(store, _link(w)).name for w in ("W1", "W2"))
    _through(store, a, ("i0",))
    _through(store, b, ("i1",))
    ca = crowd_end.finish_annotation(store, "p", a).completion_code
    cb = crowd_end.finish_annotation(store, "p", b).completion_code
    assert ca and cb and ca != cb and len(ca) == 10


# -- assignment -------------------------------------------------------------------------
def test_a_second_browser_with_the_same_id_gets_the_same_item(store) -> None:
    _project(store)
    who = crowd.enter(store, _link("W1")).name
    first = asg.claim_next(store, "p", who)
    crowd.enter(store, _link("W1"))  # the second browser
    assert asg.claim_next(store, "p", who) == first
    assert len(asg.assignments_frame(store, "p")) == 1


def test_abandoned_claims_go_back_to_the_pool_and_k_still_holds(store) -> None:
    _project(store, n=1, k=1, gold_rate=0.0)
    a, b = (crowd.enter(store, _link(w)).name for w in ("A", "B"))
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.claim_next(store, "p", b) is None  # k = 1 is taken
    later = utcnow() + timedelta(minutes=61)
    assert asg.claim_next(store, "p", b, now=later) == "i0"
    _do(store, "i0", b, 1)
    with pytest.raises(asg.AssignmentError, match="already has its 1 annotators"):
        _do(store, "i0", a, 1)
    assert store.annotations_frame("p")["annotator"].tolist() == [b]


def test_gold_items_are_mixed_in_at_the_rate_and_scored(store) -> None:
    _project(store, n=8, k=5)
    gold.set_gold(store, "p", "i7", {"label": 1}, "It is true.")
    gold.set_gold(store, "p", "i6", 0)  # one-field kind: a bare value
    who = crowd.enter(store, _link("W1")).name
    seen = []
    for _ in range(8):
        item = asg.claim_next(store, "p", who)
        if item is None:
            break
        seen.append(item)
        _do(store, item, who, 1)
    # every 4th item is gold while gold remains; ordinary items in order
    assert seen == ["i0", "i1", "i2", gold_first(who), "i3", "i4", "i5", gold_second(who)]
    assert gold.gold_accuracy(store, "p") == {who: (1, 2)}


def gold_first(who: str) -> str:
    import hashlib

    pks = {"i6": 7, "i7": 8}  # primary keys in a fresh database
    return min(pks, key=lambda i: hashlib.sha256(f"{who}:{pks[i]}".encode()).hexdigest())


def gold_second(who: str) -> str:
    return ({"i6", "i7"} - {gold_first(who)}).pop()


def test_gold_items_are_never_handed_out_without_a_rate(store) -> None:
    _project(store, n=2, k=5, gold_rate=0.0)
    gold.set_gold(store, "p", "i1", 1)
    who = crowd.enter(store, _link("W1")).name
    assert asg.claim_next(store, "p", who) == "i0"
    _do(store, "i0", who, 1)
    assert asg.claim_next(store, "p", who) is None


def test_gold_column_on_import_marks_items_and_bad_gold_writes_nothing(store) -> None:
    store.create_project("p", "binary", {"k": 2})
    good = b'{"item_id": "a", "text": "x", "gold": 1}\n{"item_id": "b", "text": "y"}\n'
    import_items(store, "p", good, "items.jsonl")
    assert gold.gold_items(store, "p") == {"a": {"answers": {"label": 1}, "explanation": ""}}
    assert "gold" not in store.item("p", "a").fields  # invisible in the view
    bad = b'{"item_id": "c", "text": "x", "gold": {"colour": 1}}\n'
    with pytest.raises(ImportFailure, match="gold names no field"):
        import_items(store, "p", bad, "more.jsonl")
    assert store.item_count("p") == 2


def test_gold_and_not_qualified_labels_never_reach_agreement(store) -> None:
    _project(store, n=4, k=5, gold_rate=0.0)
    gold.set_gold(store, "p", "i3", 1)
    names = [crowd.enter(store, _link(w)).name for w in ("A", "B", "FAIL")]
    for who in names:
        for item in ("i0", "i1", "i2", "i3"):
            store.save_label("p", item, who, "label", 1)
            asg.submit(store, "p", item, who, seconds=3.0, bypass=True)
    crowd.record_training_answer(store, "p", "prolific:FAIL", "t1", {"label": 0})
    crowd.finish_training(store, "p", "prolific:FAIL")
    frame = load_inputs(store, "p").annotations
    assert sorted(frame["annotator"].unique()) == ["prolific:A", "prolific:B"]
    assert sorted(frame["item_id"].unique()) == ["i0", "i1", "i2"]
    assert len(store.annotations_frame("p")) == 12  # the store keeps everything
    # the audit compares evaluators with the same people
    from workbench_api.audit import audit_labels

    audited = audit_labels(store, "p")
    assert sorted(audited["annotator"].unique()) == ["prolific:A", "prolific:B"]
    assert sorted(audited["item_id"].unique()) == ["i0", "i1", "i2"]


# -- time, flags, dashboard -------------------------------------------------------------
def _timed(store: Store, who: str, seconds: list[float]) -> None:
    for n, sec in enumerate(seconds):
        _do(store, f"i{n}", who, 1)
        cq.record_active_seconds(store, "p", f"i{n}", who, sec)


def test_active_time_medians_speeders_and_flags(store) -> None:
    _project(store, n=4, k=5, gold_rate=0.0, speeder_share=0.5)
    names = [crowd.enter(store, _link(w)).name for w in ("A", "B", "C", "FAST")]
    for who, secs in zip(names, ([20, 30, 40], [25, 35, 30], [28, 32, 30], [3, 5, 4]), strict=True):
        _timed(store, who, secs)
    cq.record_active_seconds(store, "p", "i0", "prolific:A", 0.5)  # adds up
    assert cq.median_active(store, "p") == {
        "prolific:A": 30.0,
        "prolific:B": 30.0,
        "prolific:C": 30.0,
        "prolific:FAST": 4.0,
    }
    assert cq.speeders(store, "p") == {"prolific:FAST": pytest.approx(4 / 30)}
    assert cq.crowd_flags(store, "p") == [
        cq.Flag("prolific:FAST", "median active time 13% of the workers' median", "speed")
    ]
    with pytest.raises(StoreError, match="negative"):
        cq.record_active_seconds(store, "p", "i0", "prolific:A", -1)


def test_low_gold_accuracy_flags_and_stops_when_asked(store) -> None:
    _project(store, n=3, k=5, gold_rate=0.0, gold_threshold=0.6, gold_stop=True)
    gold.set_gold(store, "p", "i1", 1)
    gold.set_gold(store, "p", "i2", 1)
    bad, good = (crowd.enter(store, _link(w)).name for w in ("BAD", "GOOD"))
    for item in ("i1", "i2"):
        for who, value in ((bad, 0 if item == "i1" else 1), (good, 1)):
            store.save_label("p", item, who, "label", value)
            asg.submit(store, "p", item, who, bypass=True)
    assert gold.gold_accuracy(store, "p") == {bad: (1, 2), good: (2, 2)}
    assert cq.crowd_flags(store, "p") == [cq.Flag(bad, "gold accuracy 1/2 below 60%", "gold")]
    assert cq.should_stop(store, "p", bad) and not cq.should_stop(store, "p", good)


def test_dashboard_and_completion_csv(store) -> None:
    _project(store, n=2, k=1, gold_rate=0.0, speeder_share=0.0, survey=[])
    a, b, c = (crowd.enter(store, _link(w)).name for w in ("A", "B", "C"))
    crowd.record_consent(store, "p", c, False)
    for who in (a, b):
        crowd.record_consent(store, "p", who, True)
        crowd.record_guideline_opened(store, "p", who)
    crowd.record_training_answer(store, "p", a, "t1", {"label": 1})
    crowd.record_training_answer(store, "p", a, "t2", {"label": 0})
    crowd.finish_training(store, "p", a)
    crowd.finish_training(store, "p", b)  # answered nothing: not qualified
    _do(store, "i0", a, 1)
    cq.record_active_seconds(store, "p", "i0", a, 1800)
    crowd_end.finish_annotation(store, "p", a)
    figures = cq.dashboard(store, "p")
    assert {k: figures[k] for k in figures if k != "project"} == {
        "workers_started": 2,
        "declined": 1,
        "qualified": 1,
        "not_qualified": 1,
        "completed": 1,
        "flagged": 1,
        "items": 2,
        "items_complete": 1,
        "median_active_seconds": 1800.0,
        "active_hours": 0.5,
        "estimated_cost": 6.0,
        "hourly_rate": 12.0,
    }
    table = pd.read_csv(io.BytesIO(cq.completion_csv(store, "p")), keep_default_na=False)
    assert table.to_dict("records") == [
        {
            "annotator": "prolific:A",
            "platform": "prolific",
            "worker_id": "A",
            "completion_code": "C0DE42",
            "flags": "",
            "bonus_eligible": True,
        }
    ]


def test_the_per_worker_quota_ends_annotation(store) -> None:
    store.create_project("p", "binary", {"k": 3, "quota": 2})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "x"}} for i in range(5)])
    set_study(store, "p", {**STUDY, "gold_rate": 0.0})
    who = crowd.enter(store, _link("W1")).name
    for item in ("i0", "i1"):
        assert asg.claim_next(store, "p", who) == item
        _do(store, item, who, 1)
    assert asg.claim_next(store, "p", who) is None


# -- screen-out ---------------------------------------------------------------------------
def test_screenout_code_must_differ_from_the_completion_code() -> None:
    with pytest.raises(StudyError, match="'screenout_code' must differ"):
        parse_study({"completion_code": "C1", "screenout_code": "C1"})
    assert parse_study({"screenout_code": " OUT-7 "}).screenout_code == "OUT-7"


def test_workers_failing_training_or_gold_get_the_screenout_code_on_prolific(store) -> None:
    _project(store, screenout_code="OUT-7", completion_url="https://x.test/done?cc=OLD&a=1")
    mturk = crowd.parse_link({"study": "p", "token": "s3cret", "workerId": "M1"})
    assert mturk is not None
    names = [crowd.enter(store, link).name for link in (_link("BAD"), _link("GOLD"), mturk)]
    for who in names:
        crowd.record_consent(store, "p", who, True)
        crowd.record_guideline_opened(store, "p", who)
        crowd.record_training_answer(store, "p", who, "t1", {"label": 0})  # wrong
    bad, stopped, turker = names
    failed = crowd.finish_training(store, "p", bad)
    assert (failed.stage, failed.completion_code) == ("not_qualified", "OUT-7")
    assert crowd.finish_training(store, "p", turker).completion_code is None  # MTurk: return
    assert crowd.stop(store, "p", stopped).completion_code == "OUT-7"
    study = study_of(store.project("p").settings)
    assert crowd.screenout_url(study) == "https://x.test/done?a=1&cc=OUT-7"
    assert crowd.screenout_url(parse_study({"completion_url": "https://x.test/d"})) == ""
    assert cq.completion_table(store, "p").empty  # screened-out workers are not completions


# -- MTurk hand-back ----------------------------------------------------------------------
def test_an_mturk_preview_lets_nobody_in_and_the_submit_host_is_checked(store) -> None:
    _project(store)
    with pytest.raises(crowd.CrowdPreview, match="accept the HIT"):
        crowd.parse_link({"study": "p", "token": "s3cret", "assignmentId": crowd.MTURK_PREVIEW})
    assert crowd.participants(store, "p") == []
    base = {"study": "p", "token": "s3cret", "workerId": "W9", "assignmentId": "A9", "hitId": "H"}
    link = crowd.parse_link({**base, "turkSubmitTo": "https://workersandbox.mturk.com/"})
    assert link is not None and link.ids["turkSubmitTo"] == ("https://workersandbox.mturk.com/")
    # the study's settings choose sandbox or production, whatever the link says
    assert crowd.mturk_submit_url(parse_study({})) == "https://www.mturk.com/mturk/externalSubmit"
    assert crowd.mturk_submit_url(parse_study({"mturk_sandbox": True})) == (
        "https://workersandbox.mturk.com/mturk/externalSubmit"
    )
    with pytest.raises(StudyError, match="'mturk_sandbox' must be true or false"):
        parse_study({"mturk_sandbox": "yes"})


@pytest.mark.parametrize("bad", [4, 3601, 30.5, True, "60"])
def test_the_idle_threshold_is_a_whole_number_of_seconds_in_range(bad: object) -> None:
    with pytest.raises(StudyError, match="'idle_seconds' must be a whole number from 5 to 3600"):
        parse_study({"idle_seconds": bad})
    assert parse_study({}).idle_seconds == 60 and parse_study({"idle_seconds": 5}).idle_seconds == 5
