"""Corpus-level figures (SER, SGSAcc) after a run: stored results read back, the CLI line,
and the Evaluate page's table."""

from __future__ import annotations

import asyncio
import json

import pytest

from annotation_store import Store
from annotation_store.sgd import import_sgd, shared_sgd_root
from commands import main
from evaluators.builtin.ser import ser_report
from jobs.runner import has_corpus_summary, run_corpus_summary, run_evaluator
from tests.support.apptest import open_app

SGD_TEST = shared_sgd_root() / "test"


@pytest.fixture
def sgd_store(sqlite_url: str) -> Store:
    if not (SGD_TEST / "schema.json").is_file():
        pytest.skip(f"SGD subset not found at {SGD_TEST}")
    store = Store(sqlite_url)
    import_sgd(store, "s", SGD_TEST, negatives=True, limit=40)
    return store


def test_only_corpus_evaluators_have_a_summary() -> None:
    assert has_corpus_summary("ser") and has_corpus_summary("sgsacc")
    assert not has_corpus_summary("bleu") and not has_corpus_summary("no-such-evaluator")


def test_the_stored_run_gives_the_same_figures_as_the_fresh_results(sgd_store: Store) -> None:
    from evaluators.registry import create_evaluator
    from jobs.runner import select_items

    progress = run_evaluator(sgd_store, "s", "ser")
    fresh = ser_report(asyncio.run(create_evaluator("ser").evaluate(select_items(sgd_store, "s"))))
    summary = run_corpus_summary(sgd_store, progress.run_ids[0], "ser")
    assert summary == fresh.as_dict()
    # the tampered copies are caught and categorical slots are counted, not judged
    assert summary["slot_errors"] > 0 and summary["not_applicable_reasons"]["categorical slot"] > 0
    stored = sgd_store.run_results(progress.run_ids[0])
    assert [r.item_id for r in stored] == [i.item_id for i in sgd_store.items("s")]
    assert stored[0].signature.evaluator == "ser"


def test_cli_prints_the_figures_after_the_run(sgd_store: Store, sqlite_url: str, capsys) -> None:
    code = main(["--db", sqlite_url, "evaluate", "s", "--evaluator", "ser"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[0].startswith("ser: 65 evaluated, 0 failed")
    expected = run_corpus_summary(sgd_store, 1, "ser")
    assert out[1] == (
        f"  run 1: applicable {expected['applicable']} · "
        f"not_applicable {expected['not_applicable']} · not_applicable_reasons "
        + json.dumps(expected["not_applicable_reasons"], sort_keys=True)
        + f" · slot_values {expected['slot_values']} · slot_errors {expected['slot_errors']}"
        + f" · slot_error_rate {expected['slot_error_rate']:.4f}"
        + f" · act_error_rate {expected['act_error_rate']:.4f}"
    )


def test_evaluate_page_lists_corpus_figures_of_finished_runs(
    sgd_store: Store, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    progress = run_evaluator(sgd_store, "s", "ser")
    at = open_app(
        monkeypatch,
        sqlite_url,
        page="pages/evaluate.py",
        project="s",
        env={"WORKBENCH_JOBS_IN_APP": "0"},
        timeout=90,
    )
    assert any(h.value == "Corpus figures" for h in at.subheader)
    [table] = [d.value for d in at.dataframe if "slot_errors" in d.value.columns]
    expected = run_corpus_summary(sgd_store, progress.run_ids[0], "ser")
    row = table.iloc[0]
    assert row["run"] == progress.run_ids[0] and row["evaluator"] == "ser"
    assert row["slot_errors"] == expected["slot_errors"]
    assert row["slot_error_rate"] == pytest.approx(expected["slot_error_rate"])


def test_signature_round_trips_through_its_stored_form() -> None:
    from evaluators.base import Signature

    sig = Signature("geval", "2", "gpt-4o", "abc", {"n": 5})
    assert Signature.from_dict(sig.to_dict()) == sig
    assert str(Signature.from_dict(sig.to_dict())) == sig.to_dict()["text"]
