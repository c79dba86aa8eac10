"""Result rows written with pre-serialised JSON are the rows the JSON type wrote."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from annotation_store import Store, store_results
from common.records import EvalResult, Signature
from common.redact import MASK

SIG = Signature("judge:toy", "1", "toy-model", "p1", {})


def _results() -> list[EvalResult]:
    return [
        EvalResult(
            "a",
            SIG,
            scores={"score": 0.8, "missing": None},
            details={"text": 'é "quoted" \\ \n 漢字', "nested": [1, 2.5, None, True]},
            reasoning="because é",
            raw_reply='{"score": 0.8}',
            tokens_in=10,
            tokens_out=2,
            cost=0.25,
            latency_s=0.5,
            cached=True,
        ),
        EvalResult.failure("b", SIG, "reply was not JSON", "oops"),
        EvalResult("a", SIG, scores={"score": 0.2}),  # the same item again: the last wins
    ]


def _rows(tmp_path: Path, name: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list:
    path = tmp_path / f"{name}.db"
    store = Store(f"sqlite:///{path}")
    store.create_project("p", "intent_resolution")
    store.upsert_items(
        "p", [{"item_id": i, "fields": {"query": "q", "response": "r"}} for i in "ab"]
    )
    run = store.create_run("p", SIG, 0)
    with monkeypatch.context() as patch:
        if not fast:  # the JSON type's path
            patch.setattr(store_results, "_serialised_rows", lambda *args: None)
        patch.setattr(store_results, "utcnow", lambda: datetime(2026, 1, 2, 3, 4, 5, 678901))
        store.save_results("p", run, _results())
    store.close()
    with sqlite3.connect(path) as conn:
        cols = "item_pk, status, scores, details, reasoning, raw_reply, error, tokens_in, "
        cols += "tokens_out, cost, latency_s, cached, typeof(cached), typeof(cost), created_at, typeof(scores), typeof(created_at)"
        return conn.execute(f"select {cols} from evaluator_results order by item_pk").fetchall()


def test_serialised_rows_are_the_json_types_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _rows(tmp_path, "fast", True, monkeypatch)
    slow = _rows(tmp_path, "slow", False, monkeypatch)
    assert fast == slow
    assert fast[0][2] == '{"score": 0.2}' and fast[0][-2:] == ("text", "text")
    assert fast[0][-3] == "2026-01-02 03:04:05.678901"
    assert fast[1][1] == "failed" and fast[1][5] == "oops"


def test_the_fast_path_is_taken_and_a_secret_is_still_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[bool] = []
    serialise = store_results._serialised_rows

    def spy(*args):  # type: ignore[no-untyped-def]
        rows = serialise(*args)
        taken.append(rows is not None)
        return rows

    monkeypatch.setattr(store_results, "_serialised_rows", spy)
    store = Store(f"sqlite:///{tmp_path / 'x.db'}")
    store.create_project("p", "intent_resolution")
    store.upsert_items("p", [{"item_id": "a", "fields": {"query": "q", "response": "r"}}])
    run = store.create_run("p", SIG, 0)
    store.save_results("p", run, [EvalResult("a", SIG, scores={"s": 1.0}, reasoning="fine")])
    leaky = EvalResult("a", SIG, details={"note": "key sk-abcdefghijkl"}, reasoning="x")
    run2 = store.create_run("p", SIG, 1)
    store.save_results("p", run2, [leaky])
    assert taken == [True, False]
    store.close()
    with sqlite3.connect(tmp_path / "x.db") as conn:
        details = conn.execute("select details from evaluator_results order by id").fetchall()
    assert "sk-abcdefghijkl" not in details[1][0] and MASK in details[1][0]


def test_a_batch_saved_again_updates_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    store = Store(f"sqlite:///{path}")
    store.create_project("p", "intent_resolution")
    store.upsert_items(
        "p", [{"item_id": f"i{n}", "fields": {"query": "q", "response": "r"}} for n in range(600)]
    )
    run = store.create_run("p", SIG, 0)
    store.save_results("p", run, [EvalResult(f"i{n}", SIG, scores={"s": 0.0}) for n in range(600)])
    store.save_results("p", run, [EvalResult("i599", SIG, scores={"s": 1.0})])  # a resumed batch
    store.close()
    with sqlite3.connect(path) as conn:
        rows = conn.execute("select count(*), sum(scores = '{\"s\": 1.0}') from evaluator_results")
        assert rows.fetchone() == (600, 1)
