"""Crowd payment (issue 37 point 7): a worker who completed a study gets no completion
form again on another MTurk assignment; the "study full" ending tells MTurk workers to
return the HIT; sandbox or production comes from the study's settings only."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from crowd import workers as crowd
from studies.flow_settings import set_study
from tests.support.apptest import app_session, assert_ok

TOKEN = "mturk-token"
PRODUCTION = "https://www.mturk.com/mturk/externalSubmit"
SANDBOX = "https://workersandbox.mturk.com/mturk/externalSubmit"


@pytest.fixture
def mturk_db(sqlite_url: str) -> str:
    store = Store(sqlite_url)
    store.create_project("m", "binary", {"k": 1})
    store.upsert_items("m", [{"item_id": "i0", "fields": {"text": "t0"}}])
    set_study(store, "m", {"crowd": True, "token": TOKEN, "completion_code": "MT-5"})
    store.close()
    return sqlite_url


def _link(assignment: str) -> dict[str, str]:
    # the link names the sandbox; the study (production) decides
    return {
        "study": "m",
        "token": TOKEN,
        "workerId": "W1",
        "assignmentId": assignment,
        "hitId": "H",
        "turkSubmitTo": "https://workersandbox.mturk.com",
    }


def _enter(url: str, assignment: str, stage: str, code: str = "MT-5") -> None:
    store = Store(url)
    crowd.enter(store, crowd.parse_link(_link(assignment)))
    crowd.set_stage(store, "m", "mturk:W1", stage, completion_code=code)
    store.close()


def _visit(monkeypatch: pytest.MonkeyPatch, url: str, assignment: str) -> AppTest:
    at = app_session(monkeypatch, url, env={"WORKBENCH_AUTH_MODE": "crowd"})
    for key, value in _link(assignment).items():
        at.query_params[key] = value
    return assert_ok(at.run())


def _forms(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html") if "externalSubmit" in h.proto.body]


def _said(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in [*at.info, *at.markdown, *at.caption])


def test_the_completing_assignment_gets_the_form_to_production(
    monkeypatch: pytest.MonkeyPatch, mturk_db: str
) -> None:
    _enter(mturk_db, "A1", "done")
    at = _visit(monkeypatch, mturk_db, "A1")
    [form] = _forms(at)
    assert f'action="{PRODUCTION}"' in form and 'value="A1"' in form and 'value="MT-5"' in form


def test_a_study_set_to_the_sandbox_posts_there(
    monkeypatch: pytest.MonkeyPatch, mturk_db: str
) -> None:
    store = Store(mturk_db)
    set_study(store, "m", {"crowd": True, "token": TOKEN, "mturk_sandbox": True})
    store.close()
    _enter(mturk_db, "A1", "done")
    [form] = _forms(_visit(monkeypatch, mturk_db, "A1"))
    assert f'action="{SANDBOX}"' in form


def test_a_completed_worker_on_a_new_assignment_is_told_to_return_it(
    monkeypatch: pytest.MonkeyPatch, mturk_db: str
) -> None:
    _enter(mturk_db, "A1", "done")
    at = _visit(monkeypatch, mturk_db, "A2")  # another HIT's assignment, same worker
    assert _forms(at) == [] and not at.code  # no form, no code: nothing to be paid twice
    said = _said(at)
    assert "already completed this study" in said and "return the HIT" in said
    part = crowd.participant(Store(mturk_db), "m", "mturk:W1")
    assert part is not None and crowd.paid_elsewhere(part)
    assert [s.get("paid", False) for s in part.platform_sessions] == [True, False]


def test_the_study_full_ending_tells_mturk_workers_to_return_the_hit(
    monkeypatch: pytest.MonkeyPatch, mturk_db: str
) -> None:
    _enter(mturk_db, "A1", "full", code="FULL-1")
    at = _visit(monkeypatch, mturk_db, "A1")
    assert "This study is full" in _said(at) and "return the HIT" in _said(at)
    assert _forms(at) == [] and not at.code
