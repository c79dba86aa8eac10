"""A crowd study inside the judge-study demo, so the study and quality screens show
something on first start: settings with consent, training, gold checks and a survey,
six gold items, and three synthetic Prolific workers who took the study by link.

The workers are made up (labelled ``DEMO-W…``) and deterministic (seeded with the judge
study's seed): ``DEMO-W1`` works carefully through 12 items and 3 gold items; ``DEMO-W2``
rushes (2 s an item) through 6 items, clicking at random, and misses every gold item, so
the speed and gold checks flag them; ``DEMO-W3`` fails the training and is screened out.

The workers' items are items the demo's people labelled (three people each, so a
worker's label is the fourth that ``k`` = 4 asks for: Progress counts them complete), and
their labels go through the store's labelling API like anyone's. ``DEMO-W1`` answers near
judge version 2's recorded grade (within a level); ``DEMO-W2``'s six random labels stay in
the figures until someone excludes the flagged worker. The gold items are items the
people did not label, answered with version 2's grades (the study author's answers, in
this made-up study); agreement and alignment leave gold items out.
"""

from __future__ import annotations

import json
import random
from typing import Any

from annotation_store import StoreError
from annotation_store.store import Store
from crowd import study_quality as crowd_quality
from crowd import workers as crowd
from demo.loading import DEMO_DIR
from studies import assignments as asg
from studies import gold
from studies.flow_settings import set_study

FIELD = "resolution"
N_GOLD = 6
#: The judge study's seed (``demo/judge_study/build.py``), for the workers' choices.
SEED = 20261126
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: Items (not gold) each qualified worker labels: the careful one, then the rusher.
N_WORK = {"DEMO-W1": 12, "DEMO-W2": 6}
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


def _grades() -> dict[str, float]:
    """Judge version 2's recorded grade per item."""
    return {
        row["item_id"]: float(row[FIELD])
        for row in map(json.loads, RUNS.read_text(encoding="utf-8").splitlines())
        if row["version"] == 2
    }


def _gold_answers(grades: dict[str, float], labelled: set[str]) -> dict[str, float]:
    """Gold answers for ``N_GOLD`` items nobody labelled, spread over the project."""
    free = sorted(set(grades) - labelled)
    return {i: grades[i] for i in free[:: max(1, len(free) // N_GOLD)][:N_GOLD]}


def _near(value: float) -> float:
    return min(LEVELS, key=lambda lv: abs(lv - max(0.0, min(1.0, value))))


def _work_items(
    grades: dict[str, float], labelled: set[str], rng: random.Random
) -> dict[str, dict[str, float]]:
    """Each qualified worker's real items (disjoint, among those the people labelled)
    and answers: the careful worker within a level of version 2's grade, the rusher at
    random."""
    picked = rng.sample(sorted(labelled), sum(N_WORK.values()))
    out, start = {}, 0
    for pid, n in N_WORK.items():
        mine = picked[start : start + n]
        start += n
        if pid == "DEMO-W1":
            out[pid] = {i: _near(grades[i] + rng.gauss(0, 0.1)) for i in mine}
        else:
            out[pid] = {i: rng.choice(LEVELS) for i in mine}
    return out


def _interleaved(work: dict[str, float], golds: dict[str, float]) -> dict[str, float]:
    """The worker's items in the order the study would serve them: gold spread evenly
    among the real items (at the study's gold rate of about one in five)."""
    real, gold_items = list(work.items()), list(golds.items())
    step = max(1, len(real) // max(1, len(gold_items)))
    order: list[tuple[str, float]] = []
    for n, g in enumerate(gold_items):
        order += real[n * step : (n + 1) * step] + [g]
    order += real[len(gold_items) * step :]
    return dict(order)


def _wrong(value: float) -> float:
    return 0.0 if value >= 0.5 else 1.0


def _work(store: Store, project: str, who: str, items: dict[str, float], seconds: float) -> None:
    for item, value in items.items():
        store.save_label(project, item, who, FIELD, value)
        # bypass: the worker takes the item without a claim from the study queue
        asg.submit(store, project, item, who, seconds=seconds, bypass=True)
        crowd_quality.record_active_seconds(store, project, item, who, seconds)


def load_crowd_study(store: Store, project: str) -> list[str]:
    """Configure the study, mark the gold items, run the three synthetic workers through
    it; returns the workers' names."""
    set_study(store, project, STUDY)
    token = store.project(project).settings["study"]["token"]
    grades = _grades()
    labelled = set(store.annotations_frame(project)["item_id"])
    truth = _gold_answers(grades, labelled)
    work_items = _work_items(grades, labelled, random.Random(SEED))
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
        golds = {i: v if accurate else _wrong(v) for i, v in list(truth.items())[:3]}
        _work(store, project, who, _interleaved(work_items[pid], golds), seconds)
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
