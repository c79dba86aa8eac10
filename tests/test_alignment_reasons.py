"""The Alignment page says why: undefined headlines, unknown prices, intervals without
width, the diff's columns in words, and no diff across two evaluators."""

from __future__ import annotations

import json

import pytest

from alignment.diff import diff_refusal
from alignment.diff_rows import COLUMNS, diff_headers
from alignment.frames import ci_note, cost_text, price_note, undrawn_versions, versions_formats
from annotation_store import Store
from evaluators.base import EvalResult, Signature
from tests.alignment_fixtures import PROJECT, build_toy, item_ids
from tests.support.apptest import assert_ok, open_app

UNPRICED = (
    "cost unknown: no price for model unpriced-model, so its results were stored at cost 0; "
    "set WORKBENCH_LLM_PRICE_IN and WORKBENCH_LLM_PRICE_OUT (USD per million tokens) to "
    "price the runs that follow"
)


def test_an_interval_without_width_says_why() -> None:
    assert ci_note([0.0, 0.0], 4) == (
        "no spread: n = 4 items is too few for the resamples to differ"
    )
    assert ci_note([0.5, 0.5], 40).startswith("no spread: every resample gives the same value")
    assert ci_note([0.1, 0.3], 4) is None and ci_note(None, 4) is None


def test_cost_reads_price_unknown_when_tokens_had_no_price() -> None:
    assert cost_text({"mean_cost": 0.0, "mean_tokens_in": 120.0, "mean_tokens_out": 8.0}) == (
        "price unknown"
    )
    assert cost_text({"mean_cost": 0.0, "mean_tokens_in": 0.0, "mean_tokens_out": 0.0}) is None
    assert cost_text({"mean_cost": 0.00125, "mean_tokens_in": 9.0}) == "$0.0013"
    assert price_note({"mean_cost": 0.00125, "mean_tokens_in": 9.0}) is None
    assert price_note({"mean_cost": 0.0, "mean_tokens_in": 0.0, "mean_tokens_out": 0.0}) is None
    unpriced = {"mean_cost": 0.0, "total_cost": 0.0, "mean_tokens_in": 80.0, "model": "m-x"}
    assert price_note(unpriced).startswith("cost unknown: no price for model m-x, ")
    assert cost_text(unpriced, "total_cost") == "price unknown"
    assert cost_text(
        {"mean_cost": 0.002, "total_cost": 0.08, "mean_tokens_in": 9.0}, "total_cost"
    ) == ("$0.0800")


def test_the_cli_table_and_card_say_the_price_is_unknown_not_zero(
    sqlite_url: str, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from commands import main

    build_toy(store, swap=False)
    _other_judge(store)
    args = ["--db", sqlite_url, "alignment", "toy", "--resamples", "0"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    other = next(i for i, line in enumerate(lines) if line.startswith("  judge:other v1:"))
    assert "mean cost price unknown," in lines[other]
    assert lines[other + 1] == f"    {UNPRICED}"
    toy = next(line for line in lines if line.startswith("  judge:toy v1:"))
    assert "mean cost $0.0010," in toy
    assert sum("cost unknown" in line for line in lines) == 1
    assert main([*args, "--card", "judge:other v1"]) == 0
    card = capsys.readouterr().out
    assert f"| mean cost per result | {UNPRICED} | 40 |" in card
    assert "| total cost | price unknown |" in card
    assert "cost per result | 0" not in card and "total cost | 0" not in card
    # the JSON keeps the stored figure: 0, beside the tokens that say it is no price
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    row = next(r for r in doc["versions"] if r["label"] == "judge:other v1")
    assert row["mean_cost"] == 0 and row["mean_tokens_in"] == 80


def test_undrawn_versions_and_formats() -> None:
    doc = {
        "headline": "kappa",
        "versions": [
            {"label": "j v1", "headline": {"value": 0.4, "reason": None}},
            {"label": "j v2", "headline": {"value": None, "reason": "one class only"}},
            {"label": "j v3", "headline": {"value": None}},
        ],
    }
    assert undrawn_versions(doc) == ["j v2: one class only", "j v3: undefined on these items"]
    formats = versions_formats(doc)
    assert formats["kappa"] == formats["Pearson r"] == formats["binary F1"] == "%.3f"


def test_the_diff_speaks_in_labels_and_refuses_two_evaluators() -> None:
    headers = diff_headers("j v1", "j v2")
    assert set(headers) == set(COLUMNS)
    assert (headers["score_a"], headers["reasoning_b"]) == ("score · j v1", "reasoning · j v2")
    rows = [
        {"label": "j v1", "evaluator": "j"},
        {"label": "j v2", "evaluator": "j"},
        {"label": "k v1", "evaluator": "k"},
    ]
    assert diff_refusal(rows, "j v1", "j v2") is None
    assert diff_refusal(rows, "j v1", "j v1").startswith("Pick two different versions")
    refusal = diff_refusal(rows, "j v2", "k v1")
    assert refusal is not None and "different evaluators (j, k)" in refusal


def _other_judge(store: Store) -> None:
    """``judge:other`` on a model without a known price: tokens counted, cost 0; it says
    yes to every item, so its kappa has no spread."""
    sig = Signature("judge:other", "1", "unpriced-model", "prompt-other", {})
    run = store.create_run(PROJECT, sig, 0)
    results = [
        EvalResult(i, sig, scores={"label": 1}, tokens_in=80, tokens_out=5, cost=0.0)
        for i in item_ids()
    ]
    store.save_results(PROJECT, run, results)
    store.finish_run(run)


def test_the_page_names_unknown_prices_and_refuses_a_cross_evaluator_diff(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    build_toy(store, swap=False)
    _other_judge(store)
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=120)
    versions = at.dataframe[0].value.set_index("version")
    other = next(v for v in versions.index if v.startswith("judge:other"))
    assert versions.loc[other, "mean cost"] == "price unknown"
    assert versions.loc["judge:toy v1", "mean cost"] == "$0.0010"
    captions = [c.value for c in at.caption]
    assert f"**{other}**: {UNPRICED}." in captions
    assert not [c for c in captions if c.startswith("**judge:toy v1**: cost unknown")]
    at.selectbox(key="alignment_card").set_value(other).run()
    card = next(m.value for m in at.markdown if "mean cost per result" in m.value)
    assert f"| mean cost per result | {UNPRICED} | 40 |" in card
    assert "| total cost | price unknown |" in card
    # it says yes to all 40 items: kappa 0 in every resample, and the CI says so
    assert versions.loc[other, "kappa 95% CI"].startswith("[0.000, 0.000] (no spread: ")
    at.selectbox(key="alignment_diff_a").set_value("judge:toy v2").run()
    at.selectbox(key="alignment_diff_b").set_value(other).run()
    assert_ok(at)
    assert any("belong to different evaluators" in i.value for i in at.info)
    assert not [d for d in at.dataframe if "item" in getattr(d.value, "columns", [])]


def test_the_cli_refuses_a_cross_evaluator_diff_as_the_page_does(
    sqlite_url: str, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from alignment.table import alignment_table
    from commands import main

    build_toy(store, swap=False)
    _other_judge(store)
    db = ["--db", sqlite_url, "alignment", "toy", "--diff"]
    assert main([*db, "judge:toy v2", "judge:other v1", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no document, not even a partial one
    assert err.startswith("error: A version diff compares two versions of one evaluator; ")
    assert "judge:toy v2 and judge:other v1 belong to different evaluators" in err
    assert "(judge:toy, judge:other)" in err and "'alignment toy' (without --diff)" in err
    assert len(err.strip().splitlines()) == 1
    # one version named by its label and by its signature text is still one version
    signature = {
        r["label"]: r["signature"] for r in alignment_table(store, "toy", n_resamples=0)["versions"]
    }["judge:toy v1"]
    assert main([*db, "judge:toy v1", signature]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Pick two different versions" in err
    # two versions of one judge still diff
    assert main([*db, "judge:toy v1", "judge:toy v2"]) == 0
    assert capsys.readouterr().out.startswith('{"n": 37')


def test_the_headline_is_named_in_words_and_no_bound_reads_minus_zero() -> None:
    from alignment.frames import fixed3, headline_name, versions_frame

    assert headline_name("spearman") == "Spearman" and headline_name("pearson") == "Pearson r"
    assert headline_name("kappa") == "kappa"
    assert headline_name("agreement_with_ties") == "agreement with ties"
    assert fixed3(-0.0002) == "0.000" and fixed3(-0.0006) == "-0.001" and fixed3(0.5) == "0.500"
    row = {
        "label": "j v1", "n": 5, "headline": {"value": 0.97, "ci": [-0.0001, 1.0], "n": 5},
        "correlations": {}, "failure_rate": 0.0, "mean_cost": None, "mean_tokens_in": 0.0,
        "mean_tokens_out": 0.0, "excluded": {"n": 0}, "date": None,
    }  # fmt: skip
    frame = versions_frame({"headline": "pearson", "versions": [row]})
    assert list(frame.columns[2:5]) == ["Pearson r", "Pearson r 95% CI", "Pearson r n"]
    assert frame.loc[0, "Pearson r 95% CI"] == "[0.000, 1.000]"
    assert versions_formats({"headline": "spearman"})["Spearman"] == "%.3f"
