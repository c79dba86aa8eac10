"""Corpus-level figures (SER, SGSAcc) after a run: stored results read back, the CLI line,
and the Evaluate page's table."""

from __future__ import annotations

import asyncio
import json

import pytest

from annotation_store import Store
from commands import main
from evaluators.builtin.ser import ser_report
from interop.sgd import import_sgd, shared_sgd_root
from jobs.runner import has_corpus_summary, run_corpus_summary, run_evaluator
from tests.support.apptest import open_app
from tests.test_sgsacc import _value_judge

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
        + f" · utterance_error_rate {expected['utterance_error_rate']:.4f}"
        + f" · n_utterances {expected['n_utterances']}"
        + " · invented_values_counted False"  # says plainly what this SER leaves out
    )


def _evaluate_page(monkeypatch: pytest.MonkeyPatch, sqlite_url: str) -> object:
    """The Evaluate page of project "s", without the in-app job worker."""
    return open_app(
        monkeypatch,
        sqlite_url,
        page="pages/evaluate.py",
        project="s",
        env={"WORKBENCH_JOBS_IN_APP": "0"},
        timeout=90,
    )


def test_evaluate_page_lists_corpus_figures_of_finished_runs(
    sgd_store: Store, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    progress = run_evaluator(sgd_store, "s", "ser")
    at = _evaluate_page(monkeypatch, sqlite_url)
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


def test_sgsacc_on_the_sgd_subset_per_utterance_and_per_act_in_cli_and_report(
    sgd_store: Store, sqlite_url: str, llm_env, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path
) -> None:
    from evaluators.utterances import group_units, unit_values, utterance_key
    from reports.render import build_report, render_json, render_markdown

    monkeypatch.delenv("WORKBENCH_NLI_MODEL", raising=False)
    llm_env.handler = _value_judge
    code = main(["--db", sqlite_url, "evaluate", "s", "--evaluator", "sgsacc"])
    out = capsys.readouterr().out.splitlines()
    label = f"sgsacc (LLM-NLI: {llm_env.model})"  # auto picked the endpoint, and says so
    assert code == 0 and out[0].startswith(f"{label}: 65 evaluated")
    summary = run_corpus_summary(sgd_store, 1, "sgsacc")
    # the per-utterance figure recomputed by hand from the stored results
    stored = sgd_store.run_results(1)
    items = {i.item_id: i for i in sgd_store.items("s")}
    units = group_units(
        {r.item_id: utterance_key(r.item_id, items[r.item_id].fields) for r in stored}
    )
    per_act = {r.item_id: r.scores["faithful"] for r in stored if r.status == "ok"}
    by_unit = unit_values(units, per_act)
    assert len(units) < len(stored)  # acts really are grouped into utterances
    assert summary["sgsacc_utterance"] == pytest.approx(sum(by_unit.values()) / len(by_unit))
    assert summary["sgsacc_act"] == pytest.approx(sum(per_act.values()) / len(per_act))
    assert summary["sgsacc_utterance"] < summary["sgsacc_act"]  # all acts must hold
    assert out[1].startswith(
        f"  run 1: sgsacc_utterance {summary['sgsacc_utterance']:.4f} · "
        f"sgsacc_act {summary['sgsacc_act']:.4f} · n_utterances {len(by_unit)}"
    )
    assert f"nli_backend LLM-NLI: {llm_env.model}" in out[1]
    # human labels: act 0 faithful, the rest of its turn too -> compared at both levels
    first = stored[0].item_id
    sgd_store.ensure_annotator("ann")
    sgd_store.save_label("s", first, "ann", "faithful", 1, status="submitted")
    report = build_report(sgd_store, "s", n_resamples=0)
    md = render_markdown(report)
    assert f"{label} (run 1): NLI backend: LLM-NLI: {llm_env.model} on" in md
    assert f"SGSAcc per utterance {summary['sgsacc_utterance']:.4f}" in md
    assert f"per act {summary['sgsacc_act']:.4f}" in md
    assert "human faithful per act 1.0000" in md
    assert json.loads(render_json(report))["provenance"]["run_notes"][0]["label"] == label
    # the Evaluate page: the headline figure and the backend in the evaluator's name
    at = _evaluate_page(monkeypatch, sqlite_url)
    [table] = [d.value for d in at.dataframe if "sgsacc_utterance" in d.value.columns]
    row = table.iloc[0]
    assert row["evaluator"] == label
    assert row["sgsacc_utterance"] == pytest.approx(summary["sgsacc_utterance"])
    assert row["sgsacc_act"] == pytest.approx(summary["sgsacc_act"])
