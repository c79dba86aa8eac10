"""A crowd study inside the judge-study demo, so the study and quality screens show
something on first start: settings with consent, training, gold checks and a survey,
six gold items, and three synthetic Prolific workers who took the study by link.

The workers are made up (labelled ``DEMO-W…``) and deterministic: ``DEMO-W1`` works
carefully; ``DEMO-W2`` rushes (2 s an item) and misses gold, so the speed and gold checks
flag them; ``DEMO-W3`` fails the training and is screened out.

The gold items are items the demo's people did not label, and the workers answer gold
items only: agreement and alignment leave gold items out, so the judge study's findings
are the same with the crowd study as without it. Their gold answers are the recorded
grades of the demo's judge version 2 (the study author's answers, in this made-up study).
"""

from __future__ import annotations

import json
from typing import Any

from annotation_store import assignments as asg
from annotation_store.crowd import study_quality as crowd_quality
from annotation_store.crowd import workers as crowd
from annotation_store.demo import DEMO_DIR
from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from annotation_store.studies import gold
from annotation_store.studies.flow_settings import set_study

FIELD = "resolution"
N_GOLD = 6
RUNS = DEMO_DIR / "judge_study" / "judge_runs.jsonl"
STUDY: dict[str, Any] = {
    "crowd": True,
    "consent": "Demo study: your answers are stored for research (synthetic workers only).",
    "training": [
        {
            "id": "t1",
            "fields": {
                "query": "How do I change my password?",
                "response": "Open Settings, choose Security, then Change password.",
            },
            "answers": {FIELD: 1.0},
            "explanation": "The steps answer the question fully.",
        },
        {
            "id": "t2",
            "fields": {
                "query": "Can I get a refund for last month?",
                "response": "Thank you for reaching out! We value your feedback.",
            },
            "answers": {FIELD: 0.0},
            "explanation": "Polite, but it does not answer the question at all.",
        },
    ],
    "qualification": 0.5,
    "gold_rate": 0.2,
    "gold_threshold": 0.6,
    "gold_min": 2,
    "speeder_share": 0.3,
    "survey": [{"id": "clear", "text": "How clear was the task?", "type": "likert"}],
    "completion_code": "DEMO-DONE",
    "completion_url": "https://app.prolific.com/submissions/complete",
    "hourly_rate": 12.0,
}


def _gold_answers(store: Store, project: str) -> dict[str, float]:
    """Gold answers for ``N_GOLD`` items nobody labelled, spread over the project."""
    labelled = set(store.annotations_frame(project)["item_id"])
    grades = {
        row["item_id"]: float(row[FIELD])
        for row in map(json.loads, RUNS.read_text(encoding="utf-8").splitlines())
        if row["version"] == 2 and row["item_id"] not in labelled
    }
    free = sorted(grades)
    return {i: grades[i] for i in free[:: max(1, len(free) // N_GOLD)][:N_GOLD]}


def _wrong(value: float) -> float:
    return 0.0 if value >= 0.5 else 1.0


def _work(store: Store, project: str, who: str, items: dict[str, float], seconds: float) -> None:
    for item, value in items.items():
        store.save_label(project, item, who, FIELD, value)
        # bypass: the demo's four people already fill every item's k slots
        asg.submit(store, project, item, who, seconds=seconds, bypass=True)
        crowd_quality.record_active_seconds(store, project, item, who, seconds)


def load_crowd_study(store: Store, project: str) -> list[str]:
    """Configure the study, mark the gold items, run the three synthetic workers through
    it; returns the workers' names."""
    set_study(store, project, STUDY)
    token = store.project(project).settings["study"]["token"]
    truth = _gold_answers(store, project)
    gold.set_gold_many(store, project, {i: {FIELD: v} for i, v in truth.items()})
    names = []
    for pid, right_training, accurate, seconds in (
        ("DEMO-W1", True, True, 24.0),
        ("DEMO-W2", True, False, 2.0),
        ("DEMO-W3", False, True, 0.0),
    ):
        link = crowd.parse_link(
            {"study": project, "token": token, "PROLIFIC_PID": pid, "STUDY_ID": "DEMO"}
        )
        if link is None:  # cannot happen: the parameters above are a complete link
            raise StoreError("the demo's study link is incomplete")
        who = crowd.enter(store, link).name
        names.append(who)
        crowd.record_consent(store, project, who, True)
        crowd.record_guideline_opened(store, project, who)
        for t in STUDY["training"]:
            answer = t["answers"][FIELD]
            given = answer if right_training else _wrong(answer)
            crowd.record_training_answer(store, project, who, t["id"], {FIELD: given})
        if not crowd.finish_training(store, project, who).qualified:
            continue
        work = {i: v if accurate else _wrong(v) for i, v in list(truth.items())[:3]}
        _work(store, project, who, work, seconds)
        # the ends the study flow gives these two (set directly: the flow's own checks
        # read every label of the project, which would slow down the demo's first start)
        if accurate:
            crowd.set_stage(store, project, who, "survey")
            crowd.set_stage(
                store, project, who, "done", survey={"clear": 4},
                completion_code=STUDY["completion_code"],
            )  # fmt: skip
        else:
            crowd.stop(store, project, who)
    return names
