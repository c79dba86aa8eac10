"""Label (categorical) judges against the people: kappa with CI, accuracy, confusion
matrix, the alternative annotator test (accuracy form), option-order probe and the
confidence calibration, against hand computations on a 40-item three-label project."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from alignment.table import alignment_table
from annotation_store import Store
from commands.alignment import table_text
from evaluators.base import EvalResult, Signature

CATS = ["pos", "neg", "neu"]
PEOPLE = ("ann", "bob", "cat")
N = 40


def truth(k: int) -> str:
    return CATS[k % 3]


def shifted(k: int) -> str:
    return CATS[(k + 1) % 3]


def person(k: int, who: int) -> str:
    """bob errs on every 5th item, cat on every 7th (both to the next label)."""
    wrong = (who == 1 and k % 5 == 0) or (who == 2 and k % 7 == 0)
    return shifted(k) if wrong else truth(k)


def majority(k: int) -> str:
    [(label, _)] = Counter(person(k, w) for w in range(3)).most_common(1)
    return label


def judge(k: int) -> str:
    """The judge errs on every 4th item."""
    return shifted(k) if k % 4 == 0 else truth(k)


def samples(k: int) -> list[str]:
    """Three samples: unanimous except on every 6th item (2 of 3 agree)."""
    other = [x for x in CATS if x != judge(k)][0]
    return [judge(k), judge(k), other if k % 6 == 0 else judge(k)]


def add_run(store: Store, answers: dict[str, str], settings: dict) -> None:
    sig = Signature("judge:mood", "1", "m", "p1", settings)
    run = store.create_run("moods", sig, 0)
    results = [
        EvalResult(
            i,
            sig,
            scores={"label": float(CATS.index(a))},
            details={"answer": a, "samples": samples(int(i[1:]))},
            cost=0.001,
        )
        for i, a in answers.items()
    ]
    store.save_results("moods", run, results)
    store.finish_run(run)


def cohen(a: list[str], b: list[str]) -> float:
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in CATS)
    return (p_o - p_e) / (1 - p_e)


@pytest.fixture
def moods(store: Store) -> Store:
    store.create_project("moods", "categorical", settings={"labels": CATS})
    ids = [f"i{k:02d}" for k in range(N)]
    store.upsert_items("moods", [{"item_id": i, "fields": {"text": i}} for i in ids])
    store.import_labels(
        "moods",
        [
            {"item_id": i, "annotator": who, "field": "label", "value": person(k, w)}
            | {"status": "submitted"}
            for k, i in enumerate(ids)
            for w, who in enumerate(PEOPLE)
        ],
    )
    add_run(store, {i: judge(k) for k, i in enumerate(ids)}, {})
    reversed_run = {i: shifted(k) if k % 8 == 0 and k % 4 else judge(k) for k, i in enumerate(ids)}
    reversed_run |= {i: truth(k) for k, i in enumerate(ids) if k % 8 == 0}
    add_run(store, reversed_run, {"probe": "reverse_options"})
    return store


def test_label_judge_gets_kappa_confusion_alt_test_and_probes(moods: Store) -> None:
    doc = alignment_table(moods, "moods", n_resamples=200)
    assert doc["field"] == "label" and doc["field_type"] == "categorical"
    [row] = doc["versions"]  # the probe run is no row
    ks = range(N)
    gold, mine = [majority(k) for k in ks], [judge(k) for k in ks]
    assert row["n"] == N and row["headline"]["n"] == N
    assert row["headline"]["value"] == pytest.approx(cohen(mine, gold))
    lo, hi = row["headline"]["ci"]
    assert lo < row["headline"]["value"] < hi
    assert row["accuracy"] == pytest.approx(
        sum(a == b for a, b in zip(mine, gold, strict=True)) / N
    )
    confusion = row["confusion"]
    assert confusion["labels"] == CATS
    for r, h in enumerate(CATS):
        for c, j in enumerate(CATS):
            expected = sum(1 for k in ks if majority(k) == h and judge(k) == j)
            assert confusion["matrix"][r][c] == expected
    alt = row["probes"]["alt_test"]
    assert {a["n"] for a in alt["annotators"]} == {N} and alt["winning_rate"] is not None
    # option order: the reversed-options run answers differently on items 0, 8, 16, 24, 32
    order = row["probes"]["option_order"]
    changed = [k for k in ks if k % 8 == 0 and truth(k) != judge(k)]
    assert order["n"] == N and order["n_changed"] == len(changed) == 5
    # Potato's calibration: confidence 2/3 on every 6th item, 1 elsewhere, vs correctness
    cal = row["probes"]["calibration"]
    conf = [2 / 3 if k % 6 == 0 else 1.0 for k in ks]
    correct = [judge(k) == majority(k) for k in ks]
    lo_bin = [c for c, y in zip(conf, correct, strict=True) if c < 0.9]
    hi_bin = [y for c, y in zip(conf, correct, strict=True) if c >= 0.9]
    expected_ece = len(lo_bin) / N * abs(
        sum(y for c, y in zip(conf, correct, strict=True) if c < 0.9) / len(lo_bin) - 2 / 3
    ) + len(hi_bin) / N * abs(sum(hi_bin) / len(hi_bin) - 1.0)
    assert cal["n"] == N and cal["ece"] == pytest.approx(expected_ece)
    assert cal["definition"] == "confidence in its own answer vs correctness"
    text = table_text(doc)
    assert f"{N} items compared; kappa" in text and "option order: 0.125" in text


def test_alignment_page_shows_a_label_judge_with_its_confusion_matrix(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, moods: Store
) -> None:
    from tests.support.apptest import open_app

    moods.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="moods", timeout=120)
    versions = at.dataframe[0].value
    assert list(versions["version"]) == ["judge:mood v1"] and list(versions["n"]) == [N]
    confusion = at.dataframe[1].value
    assert list(confusion.columns) == CATS
    assert int(confusion.loc["pos", "pos"]) == sum(
        1 for k in range(N) if majority(k) == "pos" and judge(k) == "pos"
    )
    assert any("A diff needs two versions" in str(c.value) for c in at.caption)


def test_label_version_diff_moves_toward_and_away(moods: Store) -> None:
    from alignment.diff import diff_versions
    from workbench_api.autocalibration import corrected_items

    ids = [f"i{k:02d}" for k in range(N)]
    # version 2 fixes every 4th item but now errs on every 5th
    sig = Signature("judge:mood", "2", "m", "p2", {})
    run = moods.create_run("moods", sig, 0)
    v2 = {i: shifted(k) if k % 5 == 0 else truth(k) for k, i in enumerate(ids)}
    moods.save_results(
        "moods",
        run,
        [
            EvalResult(i, sig, scores={"label": float(CATS.index(a))}, details={"answer": a})
            for i, a in v2.items()
        ],
    )
    moods.finish_run(run)
    data = diff_versions(moods, "moods", "judge:mood v1", "judge:mood v2")
    rows = {r["item_id"]: r for r in data["items"]}
    expected = {}
    for k, i in enumerate(ids):
        a, b, h = judge(k), v2[i], majority(k)
        expected[i] = (
            "unchanged" if a == b else "toward" if b == h else "away" if a == h else "same distance"
        )
    assert {i: r["movement"] for i, r in rows.items()} == expected
    assert rows["i04"]["movement"] == "toward" and rows["i05"]["movement"] == "away"
    assert data["summary"]["flipped"] == sum(judge(k) != v2[i] for k, i in enumerate(ids))
    frame = pd.DataFrame(data["items"])
    assert corrected_items(frame, binary=False) == [
        i for k, i in enumerate(ids) if v2[i] != majority(k)
    ]
    # the categorical path refuses as the numeric one does: one version twice, or two
    # evaluators (a second label judge here)
    from alignment.diff import DiffRefused

    with pytest.raises(DiffRefused, match="Pick two different versions"):
        diff_versions(moods, "moods", "judge:mood v2", "judge:mood v2")
    other = Signature("judge:tone", "1", "m", "p-tone", {})
    run = moods.create_run("moods", other, 0)
    moods.save_results(
        "moods",
        run,
        [EvalResult(i, other, scores={"label": 0.0}, details={"answer": CATS[0]}) for i in ids],
    )
    moods.finish_run(run)
    with pytest.raises(DiffRefused, match=r"different evaluators \(judge:mood, judge:tone\)"):
        diff_versions(moods, "moods", "judge:mood v2", "judge:tone v1")


def test_a_label_judge_gets_the_bias_scan_of_its_disagreements(store: Store) -> None:
    """The judge errs on every 4th item, which all come from 'forum': the scan finds the
    source and not the item's number, with scipy's Kruskal-Wallis and Pearson figures."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    store.create_project("moods", "categorical", settings={"labels": CATS})
    ids = [f"i{k:02d}" for k in range(N)]
    source = ["forum" if k % 4 == 0 else "news" for k in range(N)]
    number = [float((k * 7) % 11) for k in range(N)]  # unrelated to the errors
    store.upsert_items(
        "moods",
        [
            {"item_id": i, "fields": {"text": i, "source": s, "number": x}}
            for i, s, x in zip(ids, source, number, strict=True)
        ],
    )
    store.import_labels(
        "moods",
        [
            {"item_id": i, "annotator": who, "field": "label", "value": person(k, w)}
            | {"status": "submitted"}
            for k, i in enumerate(ids)
            for w, who in enumerate(PEOPLE)
        ],
    )
    add_run(store, {i: judge(k) for k, i in enumerate(ids)}, {})
    [row] = alignment_table(store, "moods", n_resamples=0)["versions"]
    scan = row["probes"]["bias_scan"]
    assert scan["residual"].startswith("disagreement with the people's majority label")
    assert row["probes"]["injection"]["reason"].startswith("the injection probe runs on score")
    wrong = [float(judge(k) != majority(k)) for k in range(N)]
    by = {t["column"]: t for t in scan["tests"]}
    forum = [w for w, s in zip(wrong, source, strict=True) if s == "forum"]
    news = [w for w, s in zip(wrong, source, strict=True) if s == "news"]
    assert by["source"]["p"] == pytest.approx(stats.kruskal(forum, news).pvalue)
    assert by["number"]["p"] == pytest.approx(stats.pearsonr(number, wrong).pvalue)
    raw = [t["p"] for t in scan["tests"]]
    holm = multipletests(raw, method="holm")[1]
    assert [t["p_adjusted"] for t in scan["tests"]] == pytest.approx(list(holm))
    assert scan["significant"] == ["source"]
