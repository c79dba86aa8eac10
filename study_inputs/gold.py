"""Gold answers per item and field: the store's gold items, then an item's ``gold`` field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotation_store import ItemRecord, Store


def gold_answers(store: Store, project: str, items: list[ItemRecord], field: str) -> dict[str, Any]:
    """Gold answer per item for ``field``: the store's gold items (``studies.gold``),
    then, for other items, an item field ``gold`` that maps field names to answers (a plain
    ``gold`` value, such as intent-match's reference intent, is no label)."""
    from studies.gold import gold_items

    out = {}
    for item in items:
        gold = (item.fields or {}).get("gold")
        if isinstance(gold, dict) and gold.get(field) not in (None, ""):
            out[item.item_id] = gold[field]
    for item_id, stored in gold_items(store, project).items():
        if stored["answers"].get(field) is not None:
            out[item_id] = stored["answers"][field]
    return out
