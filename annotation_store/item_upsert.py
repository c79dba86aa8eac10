"""Bulk item upsert that holds the database's write lock only for the writing itself.

A large import used to add and flush one ORM row at a time inside one write transaction,
holding SQLite's single writer lock for minutes while every label save waited and then
failed. Now the work is split:

1. without any lock: read the project's items once (a snapshot plus a change token), work
   out which rows are new, changed or unchanged, and (on SQLite) turn the new rows into
   driver parameters (JSON text, timestamps), which is most of the Python work;
2. in one short write transaction: check the token (if another writer changed the items
   in between, plan again inside the transaction), then insert and update in large
   ``executemany`` batches and add the fact-list versions in bulk.

It stays all-or-nothing (one transaction) and idempotent (identical rows are left alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from annotation_store.models import FactListVersion, Item, utcnow
from annotation_store.records import ImportReport, ItemRecord

FACT_FIELDS = ("gold_facts", "predicted_facts")
BATCH = 5_000

Token = tuple[int, int | None, int | None]


@dataclass
class ItemPlan:
    """What an upsert will write, worked out against a snapshot of the project's items."""

    token: Token
    new: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[ItemRecord, dict[str, Any]]] = field(default_factory=list)
    unchanged: int = 0
    #: SQLite only: the new items and their first fact-list versions as driver parameters.
    raw_items: RawInsert | None = None
    raw_facts: RawInsert | None = None


@dataclass
class RawInsert:
    """An INSERT compiled for the driver and its parameter lists, built without a lock."""

    sql: str
    params: list[list[Any]]

    @classmethod
    def build(cls, dialect: Dialect, table: Table, rows: Sequence[Mapping[str, Any]]) -> RawInsert:
        """Compile ``INSERT INTO table`` and apply each column's own bind processing (the
        same JSON / timestamp text SQLAlchemy would store)."""
        keys = list(rows[0]) if rows else [c.key for c in table.c]
        compiled = insert(table).compile(dialect=dialect, column_keys=keys)
        order = list(compiled.positiontup or [])
        procs = [table.c[k].type._cached_bind_processor(dialect) for k in order]
        params = [
            [proc(row[k]) if proc else row[k] for k, proc in zip(order, procs, strict=True)]
            for row in rows
        ]
        return cls(str(compiled), params)

    def slot(self, column: str) -> int:
        """The parameter position of ``column``."""
        return self.sql[self.sql.index("(") + 1 : self.sql.index(")")].split(", ").index(column)

    def run(self, s: Session) -> None:
        """Execute on the session's own connection (inside its transaction)."""
        cursor = s.connection().connection.driver_connection.cursor()
        try:
            for start in range(0, len(self.params), BATCH):
                cursor.executemany(self.sql, self.params[start : start + BATCH])
        finally:
            cursor.close()


def change_token(s: Session, project_id: int) -> Token:
    """Changes whenever items are added or removed or any fact list gets a new version
    (the only ways item fields change outside an import)."""
    count, top = s.execute(
        select(func.count(), func.max(Item.id)).where(Item.project_id == project_id)
    ).one()
    return count, top, s.scalar(select(func.max(FactListVersion.id)))


def plan_items(
    token: Token, existing: Sequence[ItemRecord], rows: Sequence[Mapping[str, Any]]
) -> ItemPlan:
    """Classify ``rows`` against the ``existing`` items; new rows get the next positions."""
    plan = ItemPlan(token)
    by_id = {r.item_id: r for r in existing}
    position = max((r.position for r in existing), default=-1) + 1
    for row in rows:
        item_id = str(row["item_id"])
        wanted = {
            "item_id": item_id,
            "fields": dict(row["fields"]),
            "split": row.get("split"),
            "generator": row.get("generator"),
        }
        current = by_id.get(item_id)
        if current is None:
            plan.new.append({**wanted, "position": position})
            position += 1
        elif (current.fields, current.split, current.generator) != (
            wanted["fields"],
            wanted["split"],
            wanted["generator"],
        ):
            plan.changed.append((current, wanted))
        else:
            plan.unchanged += 1
    return plan


def prepare_sqlite(dialect: Dialect, project_id: int, plan: ItemPlan, source: str) -> ItemPlan:
    """Turn the plan's new items and their facts into driver parameters (no lock held);
    the facts' ``item_pk`` is filled in once the items have their keys."""
    now = utcnow()
    items = [{**row, "project_id": project_id, "created_at": now} for row in plan.new]
    plan.raw_items = RawInsert.build(dialect, Item.__table__, items)
    facts = [
        _fact(0, name, 1, row["fields"][name], source)
        for row in plan.new
        for name in FACT_FIELDS
        if name in row["fields"]
    ]
    plan.raw_facts = RawInsert.build(dialect, FactListVersion.__table__, facts)
    return plan


def _new_facts(plan: ItemPlan) -> list[tuple[str, str]]:
    """(item_id, field) of every first fact-list version the new items bring."""
    return [
        (row["item_id"], name) for row in plan.new for name in FACT_FIELDS if name in row["fields"]
    ]


def _new_pks(s: Session, project_id: int, plan: ItemPlan) -> dict[str, int]:
    floor = plan.token[1] or 0  # the new rows are the project's items above this id
    return dict(
        s.execute(
            select(Item.item_id, Item.id).where(Item.project_id == project_id, Item.id > floor)
        ).all()
    )


def write_plan(s: Session, project_id: int, plan: ItemPlan, source: str) -> ImportReport:
    """Write a plan in bulk inside the caller's transaction."""
    facts: list[dict[str, Any]] = []
    owners = _new_facts(plan)
    if plan.raw_items is not None and plan.raw_facts is not None:
        plan.raw_items.run(s)
        if owners:
            pks, slot = _new_pks(s, project_id, plan), plan.raw_facts.slot("item_pk")
            for params, (item_id, _) in zip(plan.raw_facts.params, owners, strict=True):
                params[slot] = pks[item_id]
            plan.raw_facts.run(s)
    elif plan.new:
        now = utcnow()
        rows = [{**row, "project_id": project_id, "created_at": now} for row in plan.new]
        for start in range(0, len(rows), BATCH):
            s.connection().execute(insert(Item.__table__), rows[start : start + BATCH])
        if owners:
            pks = _new_pks(s, project_id, plan)
            by_id = {row["item_id"]: row["fields"] for row in plan.new}
            facts = [_fact(pks[i], name, 1, by_id[i][name], source) for i, name in owners]
    if plan.changed:
        versions = _latest_versions(s, [current.pk for current, _ in plan.changed])
        for current, wanted in plan.changed:
            for name in FACT_FIELDS:
                if name in wanted["fields"] and wanted["fields"][name] != current.fields.get(name):
                    version = versions.get((current.pk, name), 0) + 1
                    facts.append(_fact(current.pk, name, version, wanted["fields"][name], source))
        statement = (
            update(Item)
            .where(Item.id == bindparam("pk"))
            .values(
                fields=bindparam("new_fields"),
                split=bindparam("new_split"),
                generator=bindparam("new_generator"),
            )
        )
        params = [
            {
                "pk": current.pk,
                "new_fields": wanted["fields"],
                "new_split": wanted["split"],
                "new_generator": wanted["generator"],
            }
            for current, wanted in plan.changed
        ]
        connection = s.connection()
        for start in range(0, len(params), BATCH):
            connection.execute(statement, params[start : start + BATCH])
    for start in range(0, len(facts), BATCH):
        s.connection().execute(insert(FactListVersion.__table__), facts[start : start + BATCH])
    return ImportReport(created=len(plan.new), updated=len(plan.changed), unchanged=plan.unchanged)


def _fact(pk: int, name: str, version: int, facts: Any, source: str) -> dict[str, Any]:
    return {
        "item_pk": pk,
        "field": name,
        "version": version,
        "facts": list(facts),
        "source": source,
        "created_by": None,
        "created_at": utcnow(),
    }


def _latest_versions(s: Session, pks: Sequence[int]) -> dict[tuple[int, str], int]:
    out: dict[tuple[int, str], int] = {}
    for start in range(0, len(pks), 500):  # well under SQLite's bound-parameter limit
        part = pks[start : start + 500]
        out.update(
            {
                (pk, name): version
                for pk, name, version in s.execute(
                    select(
                        FactListVersion.item_pk,
                        FactListVersion.field,
                        func.max(FactListVersion.version),
                    )
                    .where(FactListVersion.item_pk.in_(part))
                    .group_by(FactListVersion.item_pk, FactListVersion.field)
                ).all()
            }
        )
    return out
