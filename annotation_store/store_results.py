"""Store operations on evaluator runs and results, the LLM cache and fetched pages."""

from __future__ import annotations

import json
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, DateTime, Select, func, insert, select, update
from sqlalchemy.dialects import sqlite as sqlite_dialect

from annotation_store.fast_columns import (
    Coder,
    RawColumns,
    categorical_column,
    coded_column,
    rank_lookup,
)
from annotation_store.models import (
    EvaluatorResult,
    EvaluatorRun,
    FetchedPage,
    Item,
    LLMCacheEntry,
    utcnow,
)
from annotation_store.records import ImportReport, RunInfo
from annotation_store.store_base import StoreBase, StoreError, dialect_insert
from common.lazy import LazyModule
from common.records import EvalResult, Signature
from common.redact import DataRedactor

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from sqlalchemy.orm import Session
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

RESULT_COLUMNS = [
    "item_id",
    "evaluator",
    "model",
    "signature",
    "run_id",
    "run_index",
    "source",
    "status",
    "scores",
    "error",
    "cached",
]
#: A result's place and status, without its scores (:meth:`ResultsMixin.result_status_frame`).
STATUS_COLUMNS = ["item_id", "evaluator", "model", "signature", "run_id", "status"]
#: Tidy scores: the run-describing result columns, then one field and its score.
SCORE_COLUMNS = [*RESULT_COLUMNS[:7], "field", "score"]
#: EvalResult attributes stored in an evaluator_results row under the same names.
#: The cache lookup of :meth:`ResultsMixin.cache_get_many` on SQLite ({} takes the
#: placeholders).
_CACHE_SELECT = "SELECT key, response FROM llm_cache WHERE key IN ({})"
#: The item keys and the run's stored results that :meth:`ResultsMixin.save_results`
#: looks up on SQLite.
_ITEM_PKS = "SELECT item_id, id FROM items WHERE project_id = ? AND item_id IN ({})"
_STORED_RESULTS = "SELECT item_pk, id FROM evaluator_results WHERE run_id = ? AND item_pk IN ({})"


def _sqlite_rows(s: Session | Connection, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` run on the own cursor of a session's (or a) SQLite connection."""
    conn = s if isinstance(s, Connection) else s.connection()
    cursor = conn.connection.driver_connection.cursor()
    try:
        cursor.execute(sql, tuple(params))
        return cursor.fetchall()
    finally:
        cursor.close()


def _serialised_rows(
    results: Sequence[EvalResult],
    item_pk: Mapping[str, int],
    run_id: int,
    now: Any,
    redactor: DataRedactor,
) -> list[tuple[Any, ...]] | None:
    """New result rows (SQLite) as the driver's parameter tuples: the JSON columns
    serialised as SQLAlchemy's JSON type does (``json.dumps``), each once, so that the
    redaction screen reads the same text; the timestamp as its DateTime type writes it.
    None when the screen finds something that may need masking (the caller then masks
    the values and lets the column types serialise them)."""
    created = DateTime().dialect_impl(_SQLITE).bind_processor(_SQLITE)(now)  # type: ignore[misc]
    rows: dict[int, tuple[Any, ...]] = {}
    texts: list[str] = []
    dumps = json.dumps
    for res in results:
        values = [getattr(res, name) for name in STORED_RESULT_ATTRS]
        values[_SCORES], values[_DETAILS] = dumps(values[_SCORES]), dumps(values[_DETAILS])
        values[_CACHED] = None if values[_CACHED] is None else int(values[_CACHED])
        texts.extend(v for v in values if type(v) is str)
        pk = item_pk[res.item_id]
        rows[pk] = (run_id, pk, created, *values)
    return list(rows.values()) if redactor.texts_clean(texts) else None


def _insert_result_rows(s: Session, rows: list[tuple[Any, ...]]) -> None:
    """Insert new result rows on the session's SQLite connection's own cursor."""
    cursor = s.connection().connection.driver_connection.cursor()
    try:
        cursor.executemany(_RESULT_INSERT, rows)
    finally:
        cursor.close()


STORED_RESULT_ATTRS = (
    "status",
    "scores",
    "details",
    "reasoning",
    "raw_reply",
    "error",
    "tokens_in",
    "tokens_out",
    "cost",
    "latency_s",
    "cached",
)
#: The stored attributes held as JSON.
_JSON_RESULT_ATTRS = ("scores", "details")

#: The columns of a new result row, in the order of :func:`_serialised_rows`' tuples.
_RESULT_COLUMNS = ("run_id", "item_pk", "created_at", *STORED_RESULT_ATTRS)
_RESULT_INSERT = (
    f"INSERT INTO evaluator_results ({', '.join(_RESULT_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_RESULT_COLUMNS))})"
)
_SCORES, _DETAILS, _CACHED = (
    STORED_RESULT_ATTRS.index(name) for name in ("scores", "details", "cached")
)
_SQLITE = sqlite_dialect.dialect()


def run_info(run: EvaluatorRun) -> RunInfo:
    """Convert an EvaluatorRun row to a record."""
    return RunInfo(
        id=run.id,
        evaluator=run.evaluator,
        version=run.version,
        model=run.model,
        signature=dict(run.signature or {}),
        signature_text=run.signature_text,
        run_index=run.run_index,
        source=run.source,
        job_id=run.job_id,
        status=run.status,
        tokens_in=run.tokens_in,
        tokens_out=run.tokens_out,
        cost=run.cost,
        created_at=run.created_at,
        finished_at=run.finished_at,
        heartbeat_at=run.heartbeat_at,
    )


def _run_row(s: Session, run_id: int) -> EvaluatorRun:
    run = s.get(EvaluatorRun, run_id)
    if run is None:
        raise StoreError(f"no evaluator run {run_id}")
    return run


class ResultsMixin(StoreBase):
    """Evaluator runs and results and caches."""

    # -- runs and results ---------------------------------------------------------------
    def create_run(
        self,
        project: str,
        signature: Signature,
        run_index: int = 0,
        job_id: int | None = None,
        source: str = "run",
    ) -> int:
        """Open a new evaluator run and return its id."""
        with self.write_statement() as conn:  # Core: no ORM before a run's first call
            return int(
                conn.execute(
                    insert(EvaluatorRun.__table__).values(
                        project_id=self._project_id(conn, project),
                        evaluator=signature.evaluator,
                        version=signature.version,
                        model=signature.model,
                        signature=signature.to_dict(),
                        signature_text=str(signature),
                        run_index=run_index,
                        source=source,
                        job_id=job_id,
                        status="running",
                    )
                ).inserted_primary_key[0]
            )

    def save_results(self, project: str, run_id: int, results: Sequence[EvalResult]) -> None:
        """Store results of a run (upsert per item) and apply their one-time item updates.

        One transaction and a fixed number of statements however many results: item keys
        in one query, new rows in one multi-row insert, rows already stored for the run
        (a resumed batch) in one executemany update, the run's totals in one update.
        """
        if not results:
            return
        with self.write() as s:
            proj = self._project_row(s, project)
            _run_row(s, run_id)  # an unknown run is an error, not silent rows
            wanted = list({r.item_id for r in results})
            item_pk: dict[str, int] = {}
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                if self.is_sqlite:  # the driver's cursor: no statement compiled per chunk
                    sql = _ITEM_PKS.format(",".join("?" * len(chunk)))
                    item_pk.update(_sqlite_rows(s, sql, [proj.id, *chunk]))
                    continue
                item_pk.update(
                    s.execute(
                        select(Item.item_id, Item.id).where(
                            Item.project_id == proj.id, Item.item_id.in_(chunk)
                        )
                    ).all()
                )
            existing: dict[int, int] = {}
            pks = list(item_pk.values())
            for start in range(0, len(pks), 500):
                pk_chunk = pks[start : start + 500]
                if self.is_sqlite:
                    sql = _STORED_RESULTS.format(",".join("?" * len(pk_chunk)))
                    existing.update(_sqlite_rows(s, sql, [run_id, *pk_chunk]))
                    continue
                existing.update(
                    s.execute(
                        select(EvaluatorResult.item_pk, EvaluatorResult.id).where(
                            EvaluatorResult.run_id == run_id,
                            EvaluatorResult.item_pk.in_(pk_chunk),
                        )
                    ).all()
                )
            redactor = DataRedactor()
            now = utcnow()
            if self.is_sqlite and not existing:
                rows = _serialised_rows(results, item_pk, run_id, now, redactor)
                if rows is not None:
                    _insert_result_rows(s, rows)
                    self._finish_saved_results(s, proj, run_id, results)
                    return
            inserts: dict[int, dict[str, Any]] = {}
            updates: dict[int, dict[str, Any]] = {}
            for res in results:
                pk = item_pk[res.item_id]
                stored = redactor.many([getattr(res, name) for name in STORED_RESULT_ATTRS])
                values = dict(zip(STORED_RESULT_ATTRS, stored, strict=True))
                row_id = existing.get(pk)
                if row_id is None:
                    inserts[pk] = {"run_id": run_id, "item_pk": pk, "created_at": now, **values}
                else:
                    updates[row_id] = {"id": row_id, **values}
            if inserts:  # a Core insert: the ORM's bulk path costs more per row
                s.execute(insert(EvaluatorResult.__table__), list(inserts.values()))
            if updates:
                s.execute(update(EvaluatorResult), list(updates.values()))
            self._finish_saved_results(s, proj, run_id, results)

    def _finish_saved_results(
        self, s: Any, proj: Any, run_id: int, results: Sequence[EvalResult]
    ) -> None:
        """The run's totals and the results' item updates, after their rows are written."""
        s.execute(
            update(EvaluatorRun)
            .where(EvaluatorRun.id == run_id)
            .values(
                tokens_in=EvaluatorRun.tokens_in + sum(r.tokens_in for r in results),
                tokens_out=EvaluatorRun.tokens_out + sum(r.tokens_out for r in results),
                cost=EvaluatorRun.cost + sum(r.cost for r in results),
            )
        )
        with_updates = [r for r in results if r.item_updates]
        if with_updates:
            self._apply_item_updates(s, proj, with_updates)

    def _apply_item_updates(self, s: Any, proj: Any, results: Sequence[EvalResult]) -> None:
        """Fill item fields that results bring (Bi-Fact's facts) where they are empty."""
        from kinds import get_kind

        items = {
            r.item_id: r
            for r in s.scalars(
                select(Item).where(
                    Item.project_id == proj.id, Item.item_id.in_([r.item_id for r in results])
                )
            )
        }
        for res in results:
            item = items[res.item_id]
            old = dict(item.fields or {})
            new = dict(old)
            for key, value in res.item_updates.items():
                if old.get(key) in (None, "", []):
                    new[key] = value
            if new != old:
                new = get_kind(proj.kind).validate_item(new)
                self._record_facts(s, item, old, new, "bifact")
                item.fields = new

    def finish_run(self, run_id: int, status: str = "done") -> None:
        """Close a run with its final status."""
        with self.write() as s:
            run = _run_row(s, run_id)
            run.status = status
            run.finished_at = utcnow()

    def beat_runs(self, run_ids: Sequence[int]) -> None:
        """Stamp running runs as alive (their process is still working)."""
        if not run_ids:
            return
        with self.write() as s:
            s.execute(
                update(EvaluatorRun)
                .where(EvaluatorRun.id.in_(list(run_ids)), EvaluatorRun.status == "running")
                .values(heartbeat_at=utcnow())
            )

    def close_stopped_runs(self, project: str, stale_after_s: float) -> list[int]:
        """Mark ``stopped`` the project's running runs with no heartbeat for ``stale_after_s``.

        Their process died (killed, machine gone); their stored results stay, and a
        resume evaluates only what they did not store. Returns the closed runs' ids.
        """
        cutoff = utcnow() - timedelta(seconds=stale_after_s)
        runs = EvaluatorRun.__table__  # Core: evaluate calls this before its first call
        with self.write_statement() as conn:
            pid = self._project_id(conn, project)
            beat = func.coalesce(runs.c.heartbeat_at, runs.c.created_at)
            ids = list(
                conn.scalars(
                    select(runs.c.id).where(
                        runs.c.project_id == pid,
                        runs.c.status == "running",
                        runs.c.source == "run",
                        beat < cutoff,
                    )
                )
            )
            if ids:
                conn.execute(
                    update(runs)
                    .where(runs.c.id.in_(ids))
                    .values(status="stopped", finished_at=utcnow())
                )
            return ids

    def runs(self, project: str) -> list[RunInfo]:
        """Every evaluator run of a project, newest first."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            rows = s.scalars(
                select(EvaluatorRun)
                .where(EvaluatorRun.project_id == pid)
                .order_by(EvaluatorRun.id.desc())
            )
            return [run_info(r) for r in rows]

    def _result_rows(self, project: str, include_failed: bool) -> list[tuple[Any, ...]]:
        """Result rows in RESULT_COLUMNS order, scores decoded."""
        raw = RawColumns(self.is_sqlite)
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = _results_of(
                pid,
                EvaluatorRun.run_index,
                EvaluatorRun.source,
                EvaluatorResult.status,
                raw.text(EvaluatorResult.scores),
                EvaluatorResult.error,
                EvaluatorResult.cached,
            )
            if not include_failed:
                q = q.where(EvaluatorResult.status == "ok")
            rows = raw.fetch(s, q)
        scores = raw.decode_json([r[8] for r in rows])
        return [(*r[:8], sc or {}, r[9], bool(r[10])) for r, sc in zip(rows, scores, strict=True)]

    def run_results(self, run_id: int) -> list[EvalResult]:
        """Every stored result of one run, as evaluator results (item order)."""
        with self.read() as s:
            run = _run_row(s, run_id)
            sig = Signature.from_dict(
                {"evaluator": run.evaluator, "version": run.version, **(run.signature or {})}
            )
        return [
            EvalResult(item_id, sig, **dict(zip(STORED_RESULT_ATTRS, stored, strict=True)))
            for item_id, *stored in self.run_result_rows(run_id, STORED_RESULT_ATTRS)
        ]

    def run_result_rows(self, run_id: int, columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every stored result of one run as a tuple (item_id, then ``columns``: names of
        STORED_RESULT_ATTRS), in item order; scores and details decoded (``{}`` for none)."""
        with self.read() as s:
            # Columns, not ORM entities: a 10k-item run builds no 10k mapped instances;
            # the JSON columns as raw text, decoded in bulk (not one json.loads a cell).
            raw = RawColumns(self.is_sqlite)
            selected = [
                raw.text(getattr(EvaluatorResult, name))
                if name in _JSON_RESULT_ATTRS
                else getattr(EvaluatorResult, name)
                for name in columns
            ]
            rows = raw.fetch(
                s,
                select(Item.item_id, *selected)
                .join(Item, Item.id == EvaluatorResult.item_pk)
                .where(EvaluatorResult.run_id == run_id)
                .order_by(Item.position),
            )
        at = {name: 1 + k for k, name in enumerate(columns)}
        json_at = [at[name] for name in _JSON_RESULT_ATTRS if name in at]
        decoded = [raw.decode_json([r[k] for r in rows]) for k in json_at]
        cached_at = at.get("cached")
        out = []
        for n, row in enumerate(rows):
            values = list(row)
            for k, column in zip(json_at, decoded, strict=True):
                values[k] = column[n] or {}
            if cached_at is not None and values[cached_at] is not None:
                values[cached_at] = bool(values[cached_at])  # SQLite's raw rows hold 0 / 1
            out.append(tuple(values))
        return out

    def results_frame(self, project: str, include_failed: bool = False) -> pd.DataFrame:
        """One row per result: item_id, evaluator, model, signature, run, status, scores..."""
        frame = pd.DataFrame(self._result_rows(project, include_failed), columns=RESULT_COLUMNS)
        frame["scores"] = frame["scores"].astype(object)
        return frame

    def result_status_frame(self, project: str) -> pd.DataFrame:
        """Every result, ok and failed, without its scores: item_id, evaluator, model,
        signature, run_id and status, in the order of :meth:`results_frame` (which also
        reads and decodes every result's scores: at 10,000 items most of its time)."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            rows = RawColumns(self.is_sqlite).fetch(s, _results_of(pid, EvaluatorResult.status))
        return pd.DataFrame(rows, columns=STATUS_COLUMNS)

    def scores_frame(self, project: str, *, categorical: bool = False) -> pd.DataFrame:
        """Tidy scores of successful results: one row per item x run x field.

        Rows are ordered by run, item position and the order of fields in the result.
        ``categorical``: the text columns (item_id, evaluator, model, signature, source,
        field) as categoricals (``categorical_column``) instead of strings.
        """
        raw = RawColumns(self.is_sqlite)
        with self.read() as s:
            pid = self._project_row(s, project).id
            items = self._item_keys(s, pid)
            runs = s.execute(
                select(
                    EvaluatorRun.id,
                    EvaluatorRun.evaluator,
                    EvaluatorRun.model,
                    EvaluatorRun.signature_text,
                    EvaluatorRun.run_index,
                    EvaluatorRun.source,
                )
                .where(EvaluatorRun.project_id == pid)
                .order_by(EvaluatorRun.id)
            ).all()
            # One output row per non-null score, a batch of results at a time into arrays
            # (the decoded dicts of 600,000 results at once cost more than the frame); names
            # are gathered by code (see coded_column).
            source_row, values = array("q"), array("d")
            run_pks, item_pks, fields = [], [], Coder()
            query = select(
                EvaluatorResult.run_id, EvaluatorResult.item_pk, raw.text(EvaluatorResult.scores)
            ).where(
                EvaluatorResult.run_id.in_([r[0] for r in runs]), EvaluatorResult.status == "ok"
            )
            offset = 0
            for batch in raw.fetch_batches(s, query) if runs else ():
                names: list[str] = []
                for i, scores in enumerate(raw.decode_json([r[2] for r in batch]), offset):
                    for field, score in (scores or {}).items():
                        if score is not None:
                            source_row.append(i)
                            names.append(field)
                            values.append(float(score))
                fields.add(names, len(names))
                run_pks.append(np.fromiter((r[0] for r in batch), np.intp, len(batch)))
                item_pks.append(np.fromiter((r[1] for r in batch), np.intp, len(batch)))
                offset += len(batch)
                del batch
        if not values:
            return pd.DataFrame(columns=SCORE_COLUMNS)
        at = np.frombuffer(source_row, dtype=np.int64).astype(np.intp)
        run_code = rank_lookup([r[0] for r in runs])[np.concatenate(run_pks)][at]
        item_code = rank_lookup([r[0] for r in items])[np.concatenate(item_pks)][at]
        del run_pks, item_pks, at, source_row
        order = np.lexsort((item_code, run_code))  # stable: keeps field order within a result
        run_code, item_code = run_code[order], item_code[order]
        field_code, field_names = fields.all_codes(), fields.distinct
        run_column = dict(
            zip(
                ["run_id", "evaluator", "model", "signature", "run_index", "source"],
                zip(*runs, strict=True),
                strict=True,
            )
        )

        def named(name: str, values: list[Any], codes: np.ndarray) -> pd.Series:
            text = categorical and name not in ("run_id", "run_index")
            return (categorical_column if text else coded_column)(values, codes)

        frame = pd.DataFrame(
            {
                "item_id": named("item_id", [r[1] for r in items], item_code),
                **{
                    name: named(name, list(run_column[name]), run_code)
                    for name in SCORE_COLUMNS[1:7]
                },
                "field": named("field", list(field_names), field_code[order]),
                "score": np.frombuffer(values, dtype=np.float64)[order],
            },
            columns=SCORE_COLUMNS,
        )
        return frame

    def item_results(self, project: str, item_id: str) -> list[dict[str, Any]]:
        """Every evaluator result for one item, with details, reasoning and signature."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = (
                select(EvaluatorResult, EvaluatorRun)
                .join(EvaluatorRun, EvaluatorRun.id == EvaluatorResult.run_id)
                .join(Item, Item.id == EvaluatorResult.item_pk)
                .where(EvaluatorRun.project_id == pid, Item.item_id == item_id)
                .order_by(EvaluatorRun.id)
            )
            out = []
            for res, run in s.execute(q).all():
                out.append(
                    {
                        **asdict(run_info(run)),
                        "run_id": run.id,
                        "result_status": res.status,
                        "scores": res.scores,
                        "details": res.details,
                        "reasoning": res.reasoning,
                        "raw_reply": res.raw_reply,
                        "error": res.error,
                        "cached": res.cached,
                        "latency_s": res.latency_s,
                        "tokens_in": res.tokens_in,
                        "tokens_out": res.tokens_out,
                    }
                )
            return out

    def import_scores(self, project: str, rows: Sequence[Mapping[str, Any]]) -> ImportReport:
        """Store external scores (already validated) as imported runs, in one transaction.

        Rows have ``item_id``, ``evaluator``, ``field``, ``value``, ``judge_model`` and
        ``run``. One imported run per (evaluator, judge model, run); re-importing the same
        rows changes nothing.
        """
        report = ImportReport()
        with self.write() as s:
            pid = self._project_row(s, project).id
            items = dict(
                s.execute(select(Item.item_id, Item.id).where(Item.project_id == pid)).all()
            )
            runs: dict[tuple[str, str | None, int], EvaluatorRun] = {}
            results: dict[tuple[int, int], EvaluatorResult] = {}
            for row in rows:
                key = (row["evaluator"], row.get("judge_model"), int(row.get("run") or 0))
                run = runs.get(key)
                if run is None:
                    run = s.scalar(
                        select(EvaluatorRun).where(
                            EvaluatorRun.project_id == pid,
                            EvaluatorRun.source == "import",
                            EvaluatorRun.evaluator == key[0],
                            EvaluatorRun.run_index == key[2],
                            EvaluatorRun.model.is_(None)
                            if key[1] is None
                            else EvaluatorRun.model == key[1],
                        )
                    )
                    if run is None:
                        sig = Signature(key[0], "imported", key[1], None, {})
                        run = EvaluatorRun(
                            project_id=pid,
                            evaluator=key[0],
                            version="imported",
                            model=key[1],
                            signature=sig.to_dict(),
                            signature_text=str(sig),
                            run_index=key[2],
                            source="import",
                            status="done",
                            finished_at=utcnow(),
                        )
                        s.add(run)
                        s.flush()
                    runs[key] = run
                    for r in s.scalars(
                        select(EvaluatorResult).where(EvaluatorResult.run_id == run.id)
                    ):
                        results[(run.id, r.item_pk)] = r
                item_pk = items[str(row["item_id"])]
                res = results.get((run.id, item_pk))
                if res is None:
                    res = EvaluatorResult(
                        run_id=run.id, item_pk=item_pk, status="ok", scores={}, details={}
                    )
                    s.add(res)
                    results[(run.id, item_pk)] = res
                old = (res.scores or {}).get(row["field"])
                if old == row["value"]:
                    report.unchanged += 1
                    continue
                res.scores = {**(res.scores or {}), row["field"]: row["value"]}
                if old is None:
                    report.created += 1
                else:
                    report.updated += 1
        return report

    # -- LLM cache (evaluators.base.LLMCache) -------------------------------------------
    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The cached response for ``key``, or None."""
        with self.read() as s:
            row = s.get(LLMCacheEntry, key)
            return dict(row.response) if row else None

    def cache_get_many(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The cached responses of those ``keys`` that have one, in one query per 500 keys."""
        found: dict[str, dict[str, Any]] = {}
        table = LLMCacheEntry.__table__
        # On SQLite the replies are read as raw text on the driver's cursor (no statement
        # compiled per chunk) and each chunk's are decoded by one json.loads; SQLAlchemy's
        # JSON type would decode them row by row.
        raw = RawColumns(self.is_sqlite)
        query = select(table.c.key, table.c.response)  # Core: no ORM work per query
        with self.read_connection() as conn:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                if self.is_sqlite:
                    sql = _CACHE_SELECT.format(",".join("?" * len(chunk)))
                    rows = _sqlite_rows(conn, sql, chunk)
                else:
                    rows = [tuple(r) for r in conn.execute(query.where(table.c.key.in_(chunk)))]
                replies = raw.decode_json([reply for _, reply in rows])
                found.update(zip([key for key, _ in rows], map(dict, replies), strict=True))
        return found

    def cache_put(
        self, key: str, model: str, request: dict[str, Any], response: dict[str, Any]
    ) -> None:
        """Cache a response; an existing entry for the key is kept."""
        self.cache_put_many([(key, model, request, response)])

    def cache_put_many(
        self, entries: Sequence[tuple[str, str, dict[str, Any], dict[str, Any]]]
    ) -> None:
        """Cache several (key, model, request, response) entries in one transaction;
        existing keys are kept (first writer wins, also under concurrent writers)."""
        if not entries:
            return
        now = utcnow()
        with self.write() as s:
            # A Core insert on the table: the ORM's bulk path costs more per row.
            stmt = dialect_insert(s, LLMCacheEntry.__table__).on_conflict_do_nothing(
                index_elements=["key"]
            )
            s.execute(
                stmt,
                [
                    {"key": k, "model": m, "request": req, "response": resp, "created_at": now}
                    for k, m, req, resp in entries
                ],
            )

    def batch_state_get(self, key: str) -> dict[str, Any] | None:
        """The stored state of a submitted LLM batch (``jobs/batch_mode.py``), or None."""
        with self.read() as s:
            row = s.get(LLMCacheEntry, key)
            return dict(row.response) if row else None

    def batch_states(self) -> dict[str, dict[str, Any]]:
        """Every stored batch state by key (a handful: one per batch ever sent)."""
        with self.read() as s:
            rows = s.execute(
                select(LLMCacheEntry.key, LLMCacheEntry.response).where(
                    LLMCacheEntry.key.like("batch:%")
                )
            )
            return {str(key): dict(state) for key, state in rows}

    def batch_state_put(self, key: str, model: str, state: dict[str, Any]) -> None:
        """Store (or replace) a batch's state: ids, status, counts.

        It lives in the cache table under a ``batch:`` key (no reply key has a colon), so
        every process that would send the same requests finds the batch already sent.
        """
        with self.write() as s:
            row = s.get(LLMCacheEntry, key)
            if row is None:
                s.add(LLMCacheEntry(key=key, model=model, request={"batch": True}, response=state))
            else:
                row.response = dict(state)

    # -- fetched pages (evaluators.base.PageStore) --------------------------------------
    def page_get(self, url: str) -> dict[str, Any] | None:
        """What was fetched for ``url``, or None."""
        with self.read() as s:
            row = s.get(FetchedPage, url)
            return dict(row.record) if row else None

    def page_put(self, url: str, record: dict[str, Any]) -> None:
        """Store (or replace) the fetch record of ``url``."""
        with self.write() as s:
            row = s.get(FetchedPage, url)
            if row is None:
                s.add(FetchedPage(url=url, record=record))
            else:
                row.record = record
                row.fetched_at = utcnow()


def _results_of(project_pk: int, *columns: Any) -> Select[Any]:
    """Every result of the project as item_id, evaluator, model, signature, run id and then
    ``columns``, in run and item order."""
    return (
        select(
            Item.item_id,
            EvaluatorRun.evaluator,
            EvaluatorRun.model,
            EvaluatorRun.signature_text,
            EvaluatorRun.id,
            *columns,
        )
        .join(EvaluatorRun, EvaluatorRun.id == EvaluatorResult.run_id)
        .join(Item, Item.id == EvaluatorResult.item_pk)
        .where(EvaluatorRun.project_id == project_pk)
        .order_by(EvaluatorRun.id, Item.position)
    )
