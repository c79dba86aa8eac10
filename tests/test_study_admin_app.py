"""Admins in the app: study settings as JSON, study links, gold items, the Progress
dashboard with time on task and flags."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from annotation_store import Store
from crowd import ending as crowd_end
from crowd import study_quality as cq
from crowd import workers as crowd
from studies import assignments as asg
from studies import gold
from studies.flow_settings import example_study, get_study, set_study
from tests.support.apptest import assert_ok, open_app


@pytest.fixture
def project(store: Store) -> Store:
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": f"i{n}", "fields": {"text": "x"}} for n in range(4)])
    return store


def _admin_study_tab(monkeypatch, store: Store):
    return open_app(monkeypatch, store.url, page="pages/admin.py", project="p")


def test_admin_saves_the_study_as_json_and_sees_the_links(monkeypatch, project) -> None:
    at = _admin_study_tab(monkeypatch, project)
    at.text_area(key="study_json").input(json.dumps({"crowd": True, "gold_rate": 0.2}))
    at = assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    token = get_study(project, "p")["token"]
    assert len(token) >= 20
    links = [c.value for c in at.code]
    assert any(f"?study=p&token={token}&PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" in v for v in links)
    assert any("workerId=&assignmentId=&hitId=" in v for v in links)


def test_the_study_tab_warns_of_single_mode_and_a_missing_quota(monkeypatch, project) -> None:
    set_study(project, "p", {"crowd": True})
    at = _admin_study_tab(monkeypatch, project)  # the tests' default: single sign-in mode
    assert "do not work while the workbench runs in single sign-in mode" in at.warning[0].value
    assert any("No quota is set" in i.value for i in at.info)
    project.update_settings("p", {**project.project("p").settings, "quota": 5})
    at = open_app(
        monkeypatch,
        project.url,
        page="pages/admin.py",
        project="p",
        env={"WORKBENCH_AUTH_MODE": "local"},
        user=project.ensure_annotator("boss", role="admin"),
    )
    assert not [w for w in at.warning if "single sign-in" in w.value]
    assert not [i for i in at.info if "No quota" in i.value]


def test_saving_again_keeps_the_token_the_links_carry(monkeypatch, project) -> None:
    at = _admin_study_tab(monkeypatch, project)
    at.text_area(key="study_json").input(json.dumps({"crowd": True}))
    at = assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    token = get_study(project, "p")["token"]
    assert json.loads(at.text_area(key="study_json").value)["token"] == token  # shown as stored
    # an admin who pastes settings without the token does not break the shared links
    at.text_area(key="study_json").input(json.dumps({"crowd": True, "gold_rate": 0.2}))
    assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    assert get_study(project, "p") == {"crowd": True, "gold_rate": 0.2, "token": token}


def test_the_example_study_fits_each_demo_kind_and_saves_as_is(demo: str) -> None:
    store = Store(demo)
    answered = {}
    for name in (p.name for p in store.projects()):
        example = example_study(store, name)
        [training] = example["training"]
        kind = store.project(name).task_kind
        assert set(training["fields"]) == {f.name for f in kind.item_fields if f.required}
        answered[name] = training["answers"]
        set_study(store, name, example)  # accepted: the answer is valid for the kind
    assert answered == {
        "demo-actionability": {"errors_detected": 2},
        "demo-dialogue": {"faithful": 1},
        "demo-intent-match": {"match": 1},
        "demo-intent-resolution": {"resolution": 1.0},
        "demo-judge-study": {"resolution": 1.0},
    }
    store.close()


def test_bad_study_json_is_refused_and_nothing_changes(monkeypatch, project) -> None:
    at = _admin_study_tab(monkeypatch, project)
    at.text_area(key="study_json").input('{"gold_rate": "lots"}')
    at = assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    assert "study 'gold_rate' must be a number from 0 to 1" in at.error[0].value
    at.text_area(key="study_json").input("{oops")
    at = assert_ok(at.button(key="FormSubmitter:study_settings-Save study").click().run())
    assert at.error[0].value.startswith("Not JSON")
    assert get_study(project, "p") == {}


def test_admin_marks_an_item_gold_in_the_app(monkeypatch, project) -> None:
    at = _admin_study_tab(monkeypatch, project)
    at.selectbox(key="gold_item_id").select("i2")
    at.text_input(key="gold_answers").input("1")
    at.text_input(key="gold_explanation").input("plainly true")
    assert_ok(at.button(key="FormSubmitter:gold_item-Mark gold").click().run())
    assert gold.gold_items(project, "p") == {
        "i2": {"answers": {"label": 1}, "explanation": "plainly true"}
    }


def test_progress_shows_the_study_dashboard_time_on_task_and_flags(monkeypatch, project) -> None:
    set_study(project, "p", {"crowd": True, "token": "t", "hourly_rate": 10.0,
                             "speeder_share": 0.5, "completion_code": "OK1"})  # fmt: skip
    names = []
    for worker, seconds in (("A", 600.0), ("B", 500.0), ("FAST", 30.0)):
        link = crowd.parse_link({"study": "p", "token": "t", "PROLIFIC_PID": worker})
        who = crowd.enter(project, link).name
        crowd.record_guideline_opened(project, "p", who)  # no consent: on to annotate
        names.append(who)
        item = asg.claim_next(project, "p", who)
        project.save_label("p", item, who, "label", 1)
        asg.submit(project, "p", item, who)
        cq.record_active_seconds(project, "p", item, who, seconds)
    crowd_end.finish_annotation(project, "p", names[0])
    at = open_app(monkeypatch, project.url, page="pages/progress.py", project="p")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Workers started"] == "3"
    assert metrics["Completed"] == "1"
    assert metrics["Flagged"] == "1"
    assert metrics["Items complete (k reached)"] == "3 / 4"
    assert metrics["Median active s / item"] == "500"
    assert metrics["Estimated cost"] == "3.14"  # 1130 s at 10 per hour
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert table.to_dict("records") == [
        {"annotator": "prolific:A", "median active s / item": "600.0", "flags": "—"},
        {"annotator": "prolific:B", "median active s / item": "500.0", "flags": "—"},
        {
            "annotator": "prolific:FAST",
            "median active s / item": "30.0",
            "flags": "median active time 6% of the workers' median",
        },
    ]
    # without an hourly rate the cost is unknown, not 0.00
    set_study(project, "p", {"crowd": True, "token": "t", "speeder_share": 0.5})
    at = open_app(monkeypatch, project.url, page="pages/progress.py", project="p")
    cost = next(m for m in at.metric if m.label == "Estimated cost")
    assert cost.value == "—" and cost.help.startswith("No hourly rate set")
    csv = pd.read_csv(io.BytesIO(cq.completion_csv(project, "p")), keep_default_na=False)
    assert csv[["annotator", "completion_code", "bonus_eligible"]].values.tolist() == [
        ["prolific:A", "OK1", True]
    ]
