"""The demo projects with what the store alone cannot load: the judge study's two
judge versions and their recorded runs (no model is called)."""

from __future__ import annotations

import json

from annotation_store import Store
from common.records import EvalResult
from demo.crowd_study import load_crowd_study
from demo.loading import DEMO_DIR, ensure_demo, load_demo
from evaluators.judges.evaluator import from_record
from workbench_api.judges import save_judge

JUDGE_STUDY = "demo-judge-study"
JUDGE = "demo-resolves"
STUDY_DIR = DEMO_DIR / "judge_study"


def load_all(store: Store, *, if_empty: bool = False) -> list[str]:
    """Load the demo projects (``if_empty``: only into an empty database), the judge
    study's judge versions and runs and its crowd study; returns the projects created."""
    created = ensure_demo(store) if if_empty else load_demo(store)
    if JUDGE_STUDY in created:
        load_judge_runs(store)
        load_crowd_study(store, JUDGE_STUDY)
        load_metaeval(store)
    return created


#: The judge study's meta-evaluation columns (docs/metaeval.md): its questions are the
#: inputs, its assistants' checkpoints the systems.
METAEVAL = {"field": "resolution", "group": "input", "system": "model"}


def load_metaeval(store: Store, project: str = JUDGE_STUDY) -> None:
    """Import the two metrics that teach the levels apart and name the columns in the
    project's settings (so the report and the Agreement page show the meta-evaluation)."""
    from interop.importing import import_scores

    import_scores(store, project, STUDY_DIR / "metaeval_scores.csv")
    settings = dict(store.project(project).settings)
    store.update_settings(project, {**settings, "metaeval": METAEVAL})


def load_judge_runs(store: Store, project: str = JUDGE_STUDY) -> None:
    """Save the two demo judge versions and store their recorded grades as runs, each
    signed as the version's real runs would be."""
    rows = [json.loads(line) for line in (STUDY_DIR / "judge_runs.jsonl").open()]
    for version in (1, 2):
        definition = (STUDY_DIR / f"judge_v{version}.toml").read_text(encoding="utf-8")
        record = save_judge(store, JUDGE, definition, created_by="demo")
        signature = from_record(record).signature()
        run_id = store.create_run(project, signature, 0, source="import")
        store.save_results(
            project,
            run_id,
            [
                EvalResult(
                    item_id=row["item_id"],
                    signature=signature,
                    scores={"resolution": row["resolution"]},
                    reasoning="Recorded demo grade (no model was called).",
                )
                for row in rows
                if row["version"] == version
            ],
        )
        store.finish_run(run_id)
