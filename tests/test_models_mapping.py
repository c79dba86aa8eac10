"""The ORM classes over the Core tables: one schema, mapped on first use."""

from __future__ import annotations

from sqlalchemy import inspect

from annotation_store import models, tables
from tests.support.fresh_python import fresh_python

MODEL_CLASSES = models._model_classes()


def test_every_table_has_one_class_whose_annotations_name_exactly_its_columns() -> None:
    assert len(MODEL_CLASSES) == len(tables.metadata.tables) == 28
    assert {c.__table__.name for c in MODEL_CLASSES} == set(tables.metadata.tables)
    for cls in MODEL_CLASSES:
        assert set(cls.__annotations__) - {"__table__"} == set(cls.__table__.c.keys()), cls


def test_each_class_maps_every_column_of_its_table() -> None:
    for cls in MODEL_CLASSES:
        mapper = inspect(cls)
        assert mapper.local_table is cls.__table__
        assert {p.key for p in mapper.column_attrs} == set(cls.__table__.c.keys()), cls


def test_importing_the_models_and_the_store_neither_imports_the_orm_nor_maps() -> None:
    state = fresh_python(
        """
        import json, sys
        import annotation_store.models as models
        from annotation_store.store import Store
        print(json.dumps({
            "orm": sorted(m for m in sys.modules if m.startswith("sqlalchemy.orm")),
            "mapped": models._registry is not None,
        }))
        """
    )
    assert state == {"orm": [], "mapped": False}


def test_the_first_orm_use_of_any_kind_maps_every_class() -> None:
    state = fresh_python(
        """
        import json
        from sqlalchemy import inspect, select
        import annotation_store.models as models
        from annotation_store.models import Item, Job, Project
        out = {}
        out["inspect"] = inspect(Job).local_table.name  # as session.get(Job, 1) asks
        out["mapped"] = models._registry is not None
        out["select"] = str(select(Project.name).where(Project.id == 1)).split()[1]
        item = Item(item_id="a", position=3)
        out["item"] = [item.item_id, item.position]
        try:
            Item(nope=1)
        except TypeError as exc:
            out["refused"] = str(exc)
        print(json.dumps(out))
        """
    )
    assert state == {
        "inspect": "jobs",
        "mapped": True,
        "select": "projects.name",
        "item": ["a", 3],
        "refused": "'nope' is an invalid keyword argument for Item",
    }


def test_an_attribute_is_the_first_use_too() -> None:
    state = fresh_python(
        """
        import json
        import annotation_store.models as models
        from annotation_store.models import Annotator
        column = Annotator.name  # no mapping yet: the class looks it up by mapping them all
        print(json.dumps([models._registry is not None, column.key, hasattr(Annotator, "nope")]))
        """
    )
    assert state == [True, "name", False]


def test_threads_meeting_the_first_use_all_get_the_mapped_attribute() -> None:
    state = fresh_python(
        """
        import json, threading
        from annotation_store.models import Item
        start = threading.Barrier(8)
        keys = []

        def use() -> None:
            start.wait()
            keys.append(Item.item_id.key)  # a thread arriving mid-mapping waits for it

        threads = [threading.Thread(target=use) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(json.dumps(keys))
        """
    )
    assert state == ["item_id"] * 8
