"""The workbench's side of the Potato contract test: import Potato files into twins of
projects and say how the twins' labels compare with the originals'.

Runs in the workbench's venv. For each ``PROJECT=PATH`` it makes a twin of the project
(same kind, settings and items), imports PATH (a Potato output folder or an
``annotations.jsonl``) as Potato annotations, and prints one JSON object::

    {project: {"same": n, "differ": {field: n}, "missing": {field: n}, "extra": n}}

compared over submitted labels (item, annotator, field -> value).

    .venv/bin/python tests/peers/potato_readback.py DB_URL PROJECT=PATH ...
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def submitted(store: Any, project: str) -> dict[tuple[str, str, str], str]:
    """(item, annotator, field) -> the value as JSON, submitted labels only."""
    from interop.frames import records
    from workbench_api import labels_frame

    return {
        (r["item_id"], r["annotator"], r["field"]): json.dumps(r["value"], sort_keys=True)
        for r in records(labels_frame(store, project))
        if r["status"] == "submitted"
    }


def compare(store: Any, project: str, path: str) -> dict[str, Any]:
    """Import ``path`` into a twin of ``project``; the comparison of their labels."""
    from workbench_api import add_items, create_project, import_file, items_frame

    info = store.project(project)
    twin = f"{project}-via-potato"
    create_project(store, twin, info.kind, info.settings)
    add_items(store, twin, items_frame(store, project))
    import_file(store, twin, "annotations", path, "potato")
    ours, back = submitted(store, project), submitted(store, twin)
    differ: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    for key, value in ours.items():
        if key not in back:
            missing[key[2]] += 1
        elif back[key] != value:
            differ[key[2]] += 1
    same = sum(1 for k, v in ours.items() if back.get(k) == v)
    extra = sum(1 for k in back if k not in ours)
    return {"same": same, "differ": differ, "missing": missing, "extra": extra}


def main(url: str, pairs: list[str]) -> None:
    """Print the comparison of every ``PROJECT=PATH``."""
    from annotation_store import Store

    store = Store(url)
    out = {}
    for pair in pairs:
        project, _, path = pair.partition("=")
        out[project] = compare(store, project, path)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
