"""The evaluation card of a judge version: CLI file and figures by hand on the toy project."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from tests.alignment_fixtures import PEOPLE, build_toy, human, v2_score


def majority(k: int) -> int:
    return int(sum(human(k, w) for w in range(len(PEOPLE))) >= 2)


def potato_ece() -> float:
    """v2 gives P(yes) 0.9 for a yes and 0.2 for a no: confidence 0.9 / 0.8 in its own
    answer; ECE over the two bins of |accuracy - confidence| (items 2..39)."""
    ks = range(2, 40)
    total = 0.0
    for decision, conf in ((1, 0.9), (0, 0.8)):
        mine = [k for k in ks if v2_score(k) == decision]
        acc = sum(majority(k) == decision for k in mine) / len(mine)
        total += len(mine) / len(ks) * abs(acc - conf)
    return total


def test_card_file_has_verdict_headline_biases_calibration_and_cost(
    store: Store, sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from alignment.card import evaluation_card
    from alignment.table import alignment_table

    build_toy(store)
    out = tmp_path / "card.md"
    args = ["--db", sqlite_url, "alignment", "toy", "--resamples", "0"]
    assert main([*args, "--card", "judge:toy v2", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Evaluation card: judge:toy v2")
    assert "**Verdict.** Can stand in for an annotator" in text
    assert "| kappa | 0.737 | 38 |" in text
    assert "| position swap | 0.079 [0.027, 0.208] of decisions changed | 38 |" in text
    assert "| ECE, P(yes) vs human majority | 0.076 | 38 |" in text
    assert (
        f"| ECE, confidence in its own answer vs correctness (Potato) | {potato_ece():.3f}" in text
    )
    assert "| mean cost per result | $0.0020 | 38 |" in text
    assert "| total cost | $0.0760 |" in text  # 38 results at $0.002

    doc = alignment_table(store, "toy", n_resamples=0)
    card = evaluation_card(doc, "judge:toy v1")
    assert card.verdict.startswith("Cannot stand in for an annotator yet")
    own = doc["versions"][1]["probes"]["calibration"]["own_answer"]
    assert own["ece"] == pytest.approx(potato_ece()) and own["n"] == 38

    capsys.readouterr()
    assert main([*args, "--card", "judge:toy v9"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no version 'judge:toy v9'" in err and len(err.splitlines()) == 1
    assert main([*args, "--out", str(out)]) == 2
    assert "--out goes with --card" in capsys.readouterr().err


def test_alignment_page_shows_the_card_of_the_chosen_version(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    from tests.support.apptest import open_app

    build_toy(store, swap=False)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=120)
    assert at.selectbox(key="alignment_card").value == "judge:toy v2"
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "Can stand in for an annotator" in shown and "| kappa | 0.737" in shown
    at.selectbox(key="alignment_card").set_value("judge:toy v1").run()
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "Cannot stand in for an annotator yet" in shown


def test_the_card_opens_on_the_edited_judge_not_on_the_metric_named_last(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """Rows sort by evaluator name: an imported metric named after the judge came last
    and its card showed first (the demo opened on its word-overlap metric)."""
    import pandas as pd

    import workbench_api as wb
    from tests.alignment_fixtures import item_ids
    from tests.support.apptest import open_app

    build_toy(store, swap=False)
    scores = {"item_id": item_ids(), "evaluator": "zz-metric", "field": "label", "value": 1}
    wb.add_scores(store, "toy", pd.DataFrame(scores))
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=120)
    assert at.selectbox(key="alignment_card").options[-1] == "zz-metric imported"
    assert at.selectbox(key="alignment_card").value == "judge:toy v2"
