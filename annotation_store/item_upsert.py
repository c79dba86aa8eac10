"""Bulk item upsert that holds the database's write lock only for the writing itself.

A large import used to add and flush one ORM row at a time inside one write transaction,
holding SQLite's single writer lock for minutes while every label save waited and then
failed. Now the work is split, and rows arrive in batches so memory stays bounded:

1. without the write lock, on one connection: note a change token, then for each batch
   look up the stored items it names, work out which rows are new, changed or unchanged,
   and copy the new rows (and their first fact-list versions) into temporary tables of
   that connection (:class:`ItemStage`), which lock nothing else;
2. in one short write transaction: check the token (if another writer changed the items
   in between, stage again; the last attempt stages while holding the lock), then copy
   the staged rows in with ``INSERT ... SELECT`` and update the changed ones in large
   ``executemany`` batches.

It stays all-or-nothing (one transaction) and idempotent (identical rows are left alone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    bindparam,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Dialect

from annotation_store.models import FactListVersion, Item, utcnow
from annotation_store.records import ImportReport, ItemRecord

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

FACT_FIELDS = ("gold_facts", "predicted_facts")
BATCH = 5_000
#: Stagings tried before the last one, which holds the write lock throughout.
STAGE_ATTEMPTS = 3

Token = tuple[int, int | None, int | None]
#: ``lookup(session, item_ids)``: the stored items of the project among ``item_ids``.
Lookup = Callable[["Session", Sequence[str]], list[ItemRecord]]

_STAGE = MetaData()
_ITEM_COLUMNS = ("project_id", "item_id", "position", "fields", "split", "generator", "created_at")
_FACT_COLUMNS = ("field", "version", "facts", "source", "created_by", "created_at")
STAGE_ITEMS = Table(
    "import_stage_items",
    _STAGE,
    Column("seq", Integer, primary_key=True),
    Column("project_id", Integer),
    Column("item_id", String(200)),
    Column("position", Integer),
    Column("fields", JSON),
    Column("split", String(16)),
    Column("generator", String(200)),
    Column("created_at", DateTime),
    prefixes=["TEMPORARY"],
)
STAGE_FACTS = Table(
    "import_stage_facts",
    _STAGE,
    Column("seq", Integer, primary_key=True),
    Column("item_id", String(200)),
    Column("field", String(64)),
    Column("version", Integer),
    Column("facts", JSON),
    Column("source", String(32)),
    Column("created_by", String(200)),
    Column("created_at", DateTime),
    prefixes=["TEMPORARY"],
)


@dataclass
class ItemPlan:
    """What an upsert will write, worked out against a snapshot of the project's items."""

    token: Token
    new: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[ItemRecord, dict[str, Any]]] = field(default_factory=list)
    unchanged: int = 0
    #: new rows already copied into the stage (no longer in ``new``)
    staged: int = 0


@dataclass
class RawInsert:
    """An INSERT compiled for the driver and its parameter lists (SQLite)."""

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

    def run(self, s: Session) -> None:
        """Execute on the session's own connection (inside its transaction)."""
        cursor = s.connection().connection.driver_connection.cursor()
        try:
            for start in range(0, len(self.params), BATCH):
                cursor.executemany(self.sql, self.params[start : start + BATCH])
        finally:
            cursor.close()


def bulk_insert(s: Session, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` in ``executemany`` batches (SQLite: straight on the driver)."""
    if not rows:
        return
    if s.get_bind().dialect.name == "sqlite":
        RawInsert.build(s.get_bind().dialect, table, rows).run(s)
        return
    for start in range(0, len(rows), BATCH):
        s.connection().execute(insert(table), list(rows[start : start + BATCH]))


class ItemStage:
    """Temporary tables on one connection that hold an import's new items until the
    short write transaction copies them in (see the module docstring)."""

    def __init__(self, conn: Connection, project_id: int, source: str) -> None:
        self.conn, self.project_id, self.source = conn, project_id, source

    def __enter__(self) -> ItemStage:
        with self.conn.begin():
            _STAGE.drop_all(self.conn, checkfirst=True)
            _STAGE.create_all(self.conn)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.conn.in_transaction():
            self.conn.rollback()
        with self.conn.begin():
            _STAGE.drop_all(self.conn, checkfirst=True)

    def fill(
        self,
        s: Session,
        token: Token,
        batches: Iterable[Sequence[Mapping[str, Any]]],
        lookup: Lookup,
    ) -> ItemPlan:
        """Classify each batch against the stored items it names; stage the new rows."""
        plan = ItemPlan(token)
        top = s.scalar(select(func.max(Item.position)).where(Item.project_id == self.project_id))
        position = -1 if top is None else top
        position += 1
        now = utcnow()
        for batch in batches:
            ids = [str(row["item_id"]) for row in batch]
            part = plan_items(token, lookup(s, ids) if token[0] else [], batch, position)
            position += len(part.new)
            plan.changed += part.changed
            plan.unchanged += part.unchanged
            plan.staged += len(part.new)
            items = [{**row, "project_id": self.project_id, "created_at": now} for row in part.new]
            bulk_insert(s, STAGE_ITEMS, items)
            facts = [
                {"item_id": row["item_id"], **_fact(0, name, 1, row["fields"][name], self.source)}
                for row in part.new
                for name in FACT_FIELDS
                if name in row["fields"]
            ]
            for fact in facts:
                del fact["item_pk"]
            bulk_insert(s, STAGE_FACTS, facts)
        return plan

    def write(self, s: Session, plan: ItemPlan) -> ImportReport:
        """Copy the staged rows in and apply the plan's changes (caller's transaction)."""
        if plan.staged:
            stage = STAGE_ITEMS.c
            s.execute(
                insert(Item.__table__).from_select(
                    list(_ITEM_COLUMNS),
                    select(*(stage[c] for c in _ITEM_COLUMNS)).order_by(stage.seq),
                )
            )
            facts = STAGE_FACTS.c
            s.execute(
                insert(FactListVersion.__table__).from_select(
                    ["item_pk", *_FACT_COLUMNS],
                    select(Item.id, *(facts[c] for c in _FACT_COLUMNS))
                    .join(
                        Item,
                        and_(Item.project_id == self.project_id, Item.item_id == facts.item_id),
                    )
                    .order_by(facts.seq),
                )
            )
        report = write_plan(s, self.project_id, plan, self.source)
        report.created += plan.staged
        return report


def change_token(s: Session, project_id: int) -> Token:
    """Changes whenever items are added or removed or any fact list gets a new version
    (the only ways item fields change outside an import)."""
    count, top = s.execute(
        select(func.count(), func.max(Item.id)).where(Item.project_id == project_id)
    ).one()
    return count, top, s.scalar(select(func.max(FactListVersion.id)))


def plan_items(
    token: Token,
    existing: Sequence[ItemRecord],
    rows: Sequence[Mapping[str, Any]],
    position: int | None = None,
) -> ItemPlan:
    """Classify ``rows`` against the ``existing`` items; new rows get the next positions
    (from ``position``, by default after the last of ``existing``)."""
    plan = ItemPlan(token)
    by_id = {r.item_id: r for r in existing}
    if position is None:
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


def write_plan(s: Session, project_id: int, plan: ItemPlan, source: str) -> ImportReport:
    """Write a plan's changed items (new ones are staged, see :class:`ItemStage`) in bulk
    inside the caller's transaction."""
    facts: list[dict[str, Any]] = []
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
    bulk_insert(s, FactListVersion.__table__, facts)
    return ImportReport(created=0, updated=len(plan.changed), unchanged=plan.unchanged)


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
