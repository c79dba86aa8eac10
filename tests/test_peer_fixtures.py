"""Files written by the peer tools' own code (tests/data/peers, made by
scripts/make_peer_fixtures.sh in a separate venv) import with nothing silently lost, and
the workbench's exports of them passed the tools' own models (validation.json).

The study in every file: four texts i1..i4, a 1-5 rating the tools call ``quality``
(the project's field is ``label``: ``--map quality=label``), two people, one model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from workbench_api import add_items, import_file

PEERS = Path(__file__).resolve().parent / "data" / "peers"
TEXTS = {"i1": "The refund was sent.", "i2": "No idea.", "i3": "See the manual.", "i4": "Done."}
PEOPLE = {"alice": {"i1": 5, "i2": 1, "i3": 3, "i4": 4}, "bob": {"i1": 4, "i2": 2, "i3": 3}}
MODEL = {"i1": 5, "i2": 2, "i3": 4, "i4": 4}
RENAME = {"quality": "label"}


def submitted(people: dict[str, dict[str, int]], names: dict[str, str] | None = None) -> list:
    names = names or {}
    return sorted(
        (item, names.get(user, user), "label", value, "submitted")
        for user, ratings in people.items()
        for item, value in ratings.items()
    )


def labels(store: Store, project: str, statuses=("submitted",)) -> list:
    df = store.annotations_frame(project, statuses)
    return sorted((r.item_id, r.annotator, r.field, r.value, r.status) for r in df.itertuples())


def model_scores(store: Store, project: str) -> dict[str, float]:
    return {r.item_id: r.score for r in store.scores_frame(project).itertuples()}


@pytest.fixture
def study(store: Store) -> Store:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    add_items(store, "p", pd.DataFrame({"item_id": list(TEXTS), "text": list(TEXTS.values())}))
    return store


@pytest.mark.parametrize(
    "path", ["potato/annotation_output", "potato/export/annotations.jsonl", "potato/export"]
)
def test_potato_output_and_export_import(study: Store, path: str) -> None:
    with pytest.raises(Exception, match="unknown field 'comment'"):
        import_file(study, "p", "annotations", PEERS / path, "potato", mapping=RENAME)
    reports = import_file(
        study, "p", "annotations", PEERS / path, "potato", mapping={**RENAME, "comment": ""}
    )
    assert labels(study, "p") == submitted(PEOPLE)
    assert reports["annotations"].notes == ["2 values of 'comment' left out (mapped to nothing)"]


def test_langfuse_scores_route_people_to_labels_and_evals_to_scores(study: Store) -> None:
    reports = import_file(
        study, "p", "annotations", PEERS / "langfuse" / "scores.json", "langfuse", mapping=RENAME
    )
    assert labels(study, "p") == submitted(PEOPLE)
    assert model_scores(study, "p") == MODEL
    assert reports["annotations"].created == 7 and reports["scores"].created == 4
    runs = study.scores_frame("p")
    assert set(runs["evaluator"]) == {"judge"} and set(runs["model"]) == {"judge-v2"}


def test_langsmith_feedback_keyed_by_run_uuids(store: Store) -> None:
    runs = json.loads((PEERS / "langsmith" / "runs.json").read_text())
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    add_items(store, "p", pd.DataFrame({"item_id": [runs[i] for i in TEXTS], "text": "t"}))
    import_file(
        store,
        "p",
        "annotations",
        PEERS / "langsmith" / "feedback.jsonl",
        "langsmith",
        mapping=RENAME,
    )
    by_run = {user: {runs[i]: v for i, v in r.items()} for user, r in PEOPLE.items()}
    assert labels(store, "p") == submitted(by_run)
    assert model_scores(store, "p") == {runs[i]: v for i, v in MODEL.items()}


def test_the_workbench_exports_passed_the_tools_models() -> None:
    """Written by the tools' code in .venv-peers from tests/data/peers/ours."""
    results = json.loads((PEERS / "validation.json").read_text())
    assert {r["file"] for r in results} >= {
        "langfuse-annotations.json",
        "langfuse-scores.json",
        "langsmith-annotations.jsonl",
        "langsmith-scores.jsonl",
        "potato/",
    }
    for result in results:
        if result["file"].startswith("label-studio"):
            continue  # checked by test_label_studio_export_passed_the_sdk below
        assert result["errors"] == [] and result["valid"] == result["checked"] > 0, result


def final_labels(store: Store, project: str) -> list:
    from adjudication.final_labels import adjudications

    df = adjudications(store, project)
    return sorted((r.item_id, r.field, r.value, r.source, r.reviewer) for r in df.itertuples())


GROUND_TRUTH = "ground truth in Label Studio"


def marks(store: Store, project: str) -> list:
    frame = store.progress_frame(project)
    return sorted((r.item_id, r.annotator, r.note) for r in frame.itertuples() if r.note)


def test_label_studio_export_with_drafts_predictions_and_lead_times(store: Store) -> None:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    path = PEERS / "label-studio" / "export.json"
    reports = import_file(store, "p", "annotations", path, "label-studio", mapping=RENAME)
    ids = {f"i{n}": str(n) for n in range(1, 5)}  # task ids: the data has no item_id
    users = {"alice": "ls-user-11", "bob": "ls-user-12"}
    # alice's annotation of i3 is the task's ground truth: her label, marked beside it
    people = {users[u]: {ids[i]: v for i, v in r.items()} for u, r in PEOPLE.items()}
    assert labels(store, "p") == submitted(people)
    assert final_labels(store, "p") == []
    assert marks(store, "p") == [("3", "ls-user-11", GROUND_TRUTH)]
    assert labels(store, "p", ("draft",)) == [("2", "ls-user-13", "label", 3, "draft")]
    assert model_scores(store, "p") == {ids[i]: v for i, v in MODEL.items()}
    assert set(store.scores_frame("p")["model"]) == {"judge-v2"}
    progress = store.progress_frame("p").set_index(["item_id", "annotator"])["seconds_spent"]
    assert progress[("2", "ls-user-11")] == 14.5 and progress[("1", "ls-user-12")] == 13.5
    assert reports["scores"].notes == [
        "1 cancelled (skipped) annotations hold no result and are not imported",
        "1 annotations marked ground truth: kept as their annotator's labels, the mark in "
        f"the annotator's note on the item ({GROUND_TRUTH!r})",
        "4 prediction confidence scores not imported",
    ]


def test_label_studio_ground_truth_round_trip(store: Store, tmp_path: Path) -> None:
    """The ground-truth mark leaves with its annotator's annotation and comes back beside
    the label; a final label set in the workbench (a reviewer's decision, no one's
    annotation) is counted in the notes, not written."""
    from adjudication.final_labels import set_final_label
    from workbench_api import export_file

    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    import_file(
        store,
        "p",
        "annotations",
        PEERS / "label-studio" / "export.json",
        "label-studio",
        mapping=RENAME,
    )
    store.ensure_annotator("rita", role="reviewer")
    set_final_label(store, "p", "1", "label", 4, reviewer="rita", cause="ambiguous_item")
    out, notes = tmp_path / "ls.json", []
    export_file(store, "p", "annotations", out, "label-studio", notes=notes)
    names = json.loads((tmp_path / "ls.users.json").read_text())
    truth = sorted(
        (t["id"], names[str(a["completed_by"])], a["result"][0]["value"]["rating"])
        for t in json.loads(out.read_text())
        for a in t["annotations"]
        if a.get("ground_truth")
    )
    assert truth == [(3, "ls-user-11", 3)]
    assert notes == [
        "1 final labels not written (Label Studio keeps one person's answers per "
        "annotation; a final label is a reviewer's decision)"
    ]
    store.create_project("q", "likert", {"min": 1, "max": 5, "k": 2})
    import_file(store, "q", "annotations", out, "label-studio")
    assert final_labels(store, "q") == []
    assert labels(store, "q") == labels(store, "p")  # every annotator's label
    assert marks(store, "q") == marks(store, "p") == [("3", "ls-user-11", GROUND_TRUTH)]


def test_label_studio_export_passed_the_sdk() -> None:
    results = {r["file"]: r for r in json.loads((PEERS / "validation.json").read_text())}
    for name in (
        "label-studio.json annotations",
        "label-studio.json predictions",
        "label-studio.label_config.xml",
        "label-studio-ground-truth.json annotations",
    ):
        assert results[name]["errors"] == [], results[name]
        assert results[name]["valid"] == results[name]["checked"] > 0
    # the ground-truth mark read from LS's own export went back out with its annotation
    assert results["label-studio-ground-truth.json annotations"]["ground_truth"] == 1


def test_argilla_dataset_folder_with_settings_users_and_suggestions(store: Store) -> None:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    folder = PEERS / "argilla"
    assert (folder / ".argilla" / "settings.json").is_file()
    reports = import_file(store, "p", "annotations", folder, "argilla", mapping=RENAME)
    assert {i.item_id: i.fields["text"] for i in store.items("p")} == TEXTS
    assert labels(store, "p") == submitted(PEOPLE)  # UUIDs named through users.json
    assert labels(store, "p", ("draft",)) == [("i4", "bob", "label", 2, "draft")]
    assert model_scores(store, "p") == MODEL
    assert set(store.scores_frame("p")["model"]) == {"judge-v2"}
    assert reports["scores"].notes == ["4 suggestion confidence scores not imported"]


def test_argilla_folder_export_has_settings_and_uuid_users(store: Store, tmp_path: Path) -> None:
    from workbench_api import export_file

    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    import_file(store, "p", "annotations", PEERS / "argilla", "argilla", mapping=RENAME)
    out = tmp_path / "dataset"
    export_file(store, "p", "annotations", out, "argilla")
    settings = json.loads((out / ".argilla" / "settings.json").read_text())
    assert [q["name"] for q in settings["questions"]] == ["label"]
    assert settings["questions"][0]["settings"]["options"] == [{"value": v} for v in range(1, 6)]
    import pyarrow.parquet as pq

    users = {
        u
        for row in pq.read_table(out / "records.parquet").to_pylist()
        for u in row["label.responses.users"]
    }
    names = json.loads((out / "users.json").read_text())
    assert set(names) == users and sorted(names.values()) == ["alice", "bob"]
    assert all(len(u) == 36 and u.count("-") == 4 for u in users)
    store.create_project("q", "likert", {"min": 1, "max": 5, "k": 2})
    import_file(store, "q", "annotations", out, "argilla")
    assert labels(store, "q") == labels(store, "p")


def test_label_studio_bad_ground_truth_imports_nothing(store: Store, tmp_path: Path) -> None:
    from interop.importing import ImportFailure

    tasks = json.loads((PEERS / "label-studio" / "export.json").read_text())
    truth = next(a for a in tasks[2]["annotations"] if a["ground_truth"])
    truth["result"][0]["value"]["rating"] = 9
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tasks))
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    with pytest.raises(ImportFailure) as failed:
        import_file(store, "p", "annotations", bad, "label-studio", mapping=RENAME)
    message = str(failed.value)
    assert "bad.json, task 3 (id 3), annotation 1, result 'quality'" in message
    assert "\n" not in message and "9" in message
    assert store.items("p") == [] and labels(store, "p") == [] and final_labels(store, "p") == []
