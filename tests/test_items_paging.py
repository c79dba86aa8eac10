"""Items are paged in SQL: the store returns one page in import order, and the Data page
shows only that page."""

from __future__ import annotations

import pytest

from annotation_store import Store, StoreError
from tests.support.apptest import open_app


def _items(store: Store, n: int) -> None:
    store.create_project("big", "binary")
    store.upsert_items(
        "big", [{"item_id": f"i{i:04d}", "fields": {"text": f"t{i}"}} for i in range(n)]
    )


def test_a_page_holds_the_rows_at_its_offset_in_import_order(any_store: Store) -> None:
    _items(any_store, 250)
    page = any_store.items_page("big", offset=100, limit=50)
    assert [it.item_id for it in page] == [f"i{i:04d}" for i in range(100, 150)]
    assert page[0].fields == {"text": "t100"}
    assert [it.item_id for it in any_store.items_page("big", 240, 50)] == [
        f"i{i:04d}" for i in range(240, 250)
    ]
    assert any_store.items_page("big", 250, 50) == []
    with pytest.raises(StoreError, match="offset"):
        any_store.items_page("big", -1, 50)


def test_the_data_page_draws_the_chosen_page_only(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _items(store, 120)
    at = open_app(monkeypatch, store.url, page="pages/data.py", project="big")
    assert at.selectbox(key="items_page_size").value == 50
    at.number_input(key="items_page").set_value(3).run()
    [table] = at.dataframe  # the one table of the page: the items
    shown = table.value
    assert list(shown["item_id"]) == [f"i{i:04d}" for i in range(100, 120)]
    assert "Items 101–120 of 120" in [c.value for c in at.caption]
    assert list(shown["text"])[:2] == ["t100", "t101"]  # a column per field, no JSON


def test_item_fields_read_as_text_not_json() -> None:
    from annotation_store import ItemRecord
    from ui.items_browser import items_page_frame

    act = {"act": "INFORM", "slot": "price_range", "values": ["cheap", "moderate"]}
    frame = items_page_frame(
        [ItemRecord(1, "d1", 0, {"act": act, "utterance": "It is cheap.", "facts": []})]
    )
    assert frame.loc[0, "act"] == "act: INFORM · slot: price_range · values: cheap · moderate"
    assert frame.loc[0, "utterance"] == "It is cheap." and frame.loc[0, "facts"] == "(empty)"
