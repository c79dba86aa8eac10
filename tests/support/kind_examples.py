"""The example declared kinds (examples/kinds/) as projects, for tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotation_store import Store
from workbench_api.kinds import save_kind

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kinds"


def example_project(
    store: Store, kind_file: str, name: str | None = None, settings: dict[str, Any] | None = None
) -> str:
    """Declare ``examples/kinds/<kind_file>.toml`` as kind ``name`` (default: the file's
    name), create a project of that name on it and load the example's demo items."""
    name = name or kind_file
    save_kind(store, name, (EXAMPLES / f"{kind_file}.toml").read_text())
    store.create_project(name, f"decl:{name}", settings)
    rows = [json.loads(line) for line in (EXAMPLES / f"{kind_file}_items.jsonl").open()]
    store.upsert_items(name, [{"item_id": r.pop("item_id"), "fields": r} for r in rows])
    return name
