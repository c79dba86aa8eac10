"""The workbench's side of scripts/make_peer_fixtures.sh: import the peers' fixtures into a
scratch database and write the workbench's own exports of them to ``DIR/ours`` (which
peer_fixtures.py then reads with the tools' models). Runs in the workbench's venv.

    python scripts/peer_exports.py tests/data/peers
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd

import workbench_api as wb

TEXTS = {"i1": "The refund was sent.", "i2": "No idea.", "i3": "See the manual.", "i4": "Done."}


def main(root: Path) -> None:
    """Import the Langfuse and Label Studio fixtures, export every foreign format."""
    ours = root / "ours"
    ours.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        store = wb.open_store(f"sqlite:///{scratch}/peers.db")
        wb.create_project(store, "peers", "likert", {"min": 1, "max": 5, "k": 2})
        items = pd.DataFrame({"item_id": list(TEXTS), "text": list(TEXTS.values())})
        wb.add_items(store, "peers", items)
        rename = {"quality": "label"}
        wb.import_file(
            store,
            "peers",
            "annotations",
            root / "langfuse" / "scores.json",
            "langfuse",
            mapping=rename,
        )
        for what in ("annotations", "scores"):
            wb.export_file(store, "peers", what, ours / f"langfuse-{what}.json", "langfuse")
            wb.export_file(store, "peers", what, ours / f"langsmith-{what}.jsonl", "langsmith")
        wb.export_file(store, "peers", "annotations", ours / "label-studio.json", "label-studio")
        wb.export_file(store, "peers", "annotations", ours / "potato", "potato")
        # Label Studio's own export back out: its ground-truth mark travels with the label
        wb.create_project(store, "peers-ls", "likert", {"min": 1, "max": 5, "k": 2})
        ls_export = root / "label-studio" / "export.json"
        wb.import_file(store, "peers-ls", "annotations", ls_export, "label-studio", mapping=rename)
        out = ours / "label-studio-ground-truth.json"
        wb.export_file(store, "peers-ls", "annotations", out, "label-studio")
        store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
