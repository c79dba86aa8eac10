"""The workbench's side of the Label Studio contract tests (runs in the workbench's venv,
one process per call, so the tests start Python a few times rather than dozens):

    label_studio_side.py round-trip DB PROJECT=EXPORT ...   twins imported, compared
    label_studio_side.py cli DB ARGS_JSON                    CLI calls in order, then the
                                                             last project's labels

Prints one JSON document.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def state(store: Any, project: str) -> dict[str, Any]:
    """Labels (every status), the annotators' notes and the model scores of a project."""
    frame = store.annotations_frame(project, ("submitted", "skipped", "draft"))
    notes = store.progress_frame(project)
    scores = store.scores_frame(project)
    return {
        "labels": sorted(
            [r.item_id, r.annotator, r.field, r.value, r.status] for r in frame.itertuples()
        ),
        "notes": sorted([r.item_id, r.annotator, r.note] for r in notes.itertuples() if r.note),
        "scores": sorted([r.item_id, r.field, r.score, r.model] for r in scores.itertuples()),
    }


def people(store: Any, project: str) -> dict[str, Any]:
    """The people's agreement figures (human fields and derived scores)."""
    from workbench_api import agreement

    doc = agreement(store, project, resamples=0, timeline=False).to_dict()
    return json.loads(json.dumps({"fields": doc["fields"], "derived": doc["derived"]}))


def round_trip(url: str, pairs: list[str]) -> dict[str, Any]:
    """Each export imported into a twin of its project: labels and figures, both sides."""
    from annotation_store import Store
    from workbench_api import import_file

    store = Store(url)
    out = {}
    for pair in pairs:
        project, path = pair.split("=", 1)
        info = store.project(project)
        twin = f"{project}-ls"
        store.create_project(twin, info.kind, info.settings)
        import_file(store, twin, "annotations", path, "label-studio")
        before, after = state(store, project), state(store, twin)
        out[project] = {
            "labels": [before["labels"], after["labels"]],
            "agreement": [people(store, project), people(store, twin)] if before["labels"] else [],
        }
    return out


def cli(url: str, calls: list[list[str]]) -> dict[str, Any]:
    """CLI calls in order (stdout of each kept); then the labels of project ``p``."""
    from annotation_store import Store
    from commands import main

    printed = []
    for argv in calls:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = main(["--db", url, *argv])
        printed.append(buffer.getvalue())
        if code != 0:
            return {"failed": argv, "printed": printed}
    store = Store(url)
    if "p" not in {p.name for p in store.projects()}:
        return {"printed": printed}
    return {"printed": printed, **state(store, "p"), "agreement": people(store, "p")}


if __name__ == "__main__":
    command, db, *rest = sys.argv[1:]
    if command == "round-trip":
        result = round_trip(db, rest)
    else:
        result = cli(db, json.loads(rest[0]))
    print(json.dumps(result, default=str))
