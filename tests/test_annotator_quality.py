"""Annotator quality, exclusions (store, CLI, agreement document, report) and the
aggregated human reference."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from agreement.annotator_quality import annotator_quality, loo_majority
from annotation_store import Store, StoreError
from commands import main
from kinds import ValidationError


def run(db: str, *args: str, capsys) -> tuple[int, str, str]:
    code = main(["--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


CROWD = pd.DataFrame(
    {
        "item_id": list("xxxyyyzz"),
        "annotator": list("abcabcab"),
        "value": [1, 1, 0, 0, 0, 0, 1, 0],
    }
)


def test_leave_one_out_majority_by_hand() -> None:
    # x: a and b see a tie among the others (skipped), c misses the others' 1;
    # y: everyone matches; z: a and b each see one other label and differ from it
    hits = loo_majority(CROWD).groupby("annotator")["hit"].agg(["size", "sum"])
    assert hits.to_dict("index") == {
        "a": {"size": 2, "sum": 1},
        "b": {"size": 2, "sum": 1},
        "c": {"size": 2, "sum": 1},
    }


def test_quality_table_by_hand() -> None:
    rows = {q.annotator: q for q in annotator_quality(CROWD, {"x": 1, "z": "0"})}
    assert (rows["a"].n_gold, rows["a"].gold_accuracy) == (2, 0.5)  # right on x, wrong on z
    assert (rows["b"].n_gold, rows["b"].gold_accuracy) == (2, 1.0)  # "0" matches 0
    assert (rows["c"].n_gold, rows["c"].gold_accuracy) == (1, 0.0)
    assert rows["c"].n_labels == 2 and rows["c"].loo_agreement == 0.5
    # b never strays from the item's other labels where they agree: most competent
    assert rows["b"].dawid_skene > rows["a"].dawid_skene > rows["c"].dawid_skene
    assert rows["c"].mace < min(rows["a"].mace, rows["b"].mace)
    no_gold = annotator_quality(CROWD)
    assert all(q.n_gold == 0 and q.gold_accuracy != q.gold_accuracy for q in no_gold)  # NaN


def test_exclusions_in_the_store(any_store: Store) -> None:
    s = any_store
    s.create_project("p", "dialogue_faithfulness")
    s.ensure_annotator("ann")
    assert s.exclusions("p") == []
    with pytest.raises(ValidationError, match="needs a reason"):
        s.exclude_annotator("p", "ann", "  ")
    with pytest.raises(ValidationError, match="source"):
        s.exclude_annotator("p", "ann", "why", source="Not A Word")
    with pytest.raises(StoreError, match="no annotator"):
        s.exclude_annotator("p", "ghost", "why")
    assert s.exclusions("p") == []  # nothing changed by the bad calls
    before = s.data_version("p")
    s.exclude_annotator("p", "ann", "clicked through", by="admin-1")
    s.exclude_annotator("p", "ann", "gold accuracy 2/10", source="gold")
    s.exclude_annotator("p", "ann", "clicked   through\nfast")  # same source: new reason
    assert s.data_version("p") != before
    recs = s.exclusions("p")
    assert [(r.annotator, r.source, r.reason) for r in recs] == [
        ("ann", "admin", "clicked through fast"),
        ("ann", "gold", "gold accuracy 2/10"),
    ]
    assert list(s.excluded_annotators("p")) == ["ann"]
    assert s.include_annotator("p", "ann", source="gold") == 1
    assert [r.source for r in s.exclusions("p")] == ["admin"]
    assert s.include_annotator("p", "ann") == 1
    assert s.exclusions("p") == []


def test_cli_annotators_and_aggregate(demo, capsys) -> None:
    code, out, _ = run(demo, "annotators", "demo-dialogue", "--json", capsys=capsys)
    assert code == 0
    table = json.loads(out)["fields"]["faithful"]
    rows = {r["annotator"]: r for r in table["annotators"]}
    assert table["n_gold_items"] == 0
    assert rows["demo-annotator-1"]["n_labels"] == 17
    assert rows["demo-annotator-1"]["gold_accuracy"] is None  # no gold: a dash in the table
    # annotator 3 differs from the other two on one of the 17 items
    assert rows["demo-annotator-3"]["loo_agreement"] == pytest.approx(16 / 17)
    assert rows["demo-annotator-1"]["loo_agreement"] == 1.0
    assert rows["demo-annotator-3"]["mace"] < rows["demo-annotator-1"]["mace"]
    code, out, _ = run(demo, "annotators", "demo-dialogue", capsys=capsys)
    assert "—" in out and "demo-annotator-3" in out

    code, out, _ = run(
        demo, "aggregate", "demo-dialogue", "--method", "dawid_skene", "--json", capsys=capsys
    )
    doc = json.loads(out)
    assert (doc["field"], doc["method"], doc["classes"]) == ("faithful", "dawid_skene", [0, 1])
    labels = {r["item_id"]: r["label"] for r in doc["items"]}
    assert len(labels) == 17 and sum(labels.values()) == 14  # the three tampered turns are 0
    assert all(lab == 0 for i, lab in labels.items() if i.endswith(":tampered"))
    assert all(r["posterior"] > 0.99 for r in doc["items"])

    code, _, err = run(demo, "aggregate", "demo-dialogue", "--field", "nope", capsys=capsys)
    assert code != 0 and "choose one of faithful" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(demo, "annotators", "demo-dialogue", "--exclude", "x", capsys=capsys)
    assert code != 0 and "--reason" in err


def test_exclusion_in_agreement_and_report(demo, capsys, tmp_path) -> None:
    args = ("agreement", "demo-dialogue", "--json", "--resamples", "0", "--no-timeline")
    _, plain, _ = run(demo, *args, capsys=capsys)
    assert "exclusions" not in json.loads(plain)
    code, out, _ = run(
        demo,
        "annotators",
        "demo-dialogue",
        "--exclude",
        "demo-annotator-3",
        "--reason",
        "did not read the guideline",
        capsys=capsys,
    )
    assert code == 0 and "excluded demo-annotator-3" in out
    _, out, _ = run(demo, *args, capsys=capsys)
    doc = json.loads(out)
    ex = doc["exclusions"]
    assert (ex["n_annotators"], ex["n_labels"]) == (1, 17)
    assert ex["annotators"][0]["reasons"] == [
        {"source": "admin", "reason": "did not read the guideline"}
    ]
    # default figures leave annotator 3 out: annotators 1 and 2 agree on every item
    assert doc["fields"]["faithful"]["n_ratings"] == 34
    assert doc["fields"]["faithful"]["percent_agreement"] == 1.0
    everyone = ex["with_excluded"]["fields"]["faithful"]
    assert everyone["n_ratings"] == 51
    assert everyone["percent_agreement"] == pytest.approx(49 / 51)
    assert set(json.loads(plain)) | {"exclusions"} == set(doc)  # other keys unchanged

    _, text, _ = run(demo, *args[:2], "--resamples", "0", capsys=capsys)
    assert "Excluded: 1 annotator and 17 labels - demo-annotator-3 (admin: did not" in text
    out_md = tmp_path / "r.md"
    run(demo, "report", "demo-dialogue", "--out", str(out_md), "--resamples", "0", capsys=capsys)
    md = out_md.read_text()
    assert (
        "## With the excluded annotators" in md and "| faithful | binary | item | 17 | 3 | 51" in md
    )

    code, out, _ = run(
        demo, "annotators", "demo-dialogue", "--include", "demo-annotator-3", capsys=capsys
    )
    assert "1 exclusion(s) lifted" in out
    _, out, _ = run(demo, *args, capsys=capsys)
    assert out == plain  # back to the default document, byte for byte


def test_reference_selector(demo, capsys) -> None:
    args = ("agreement", "demo-dialogue", "--json", "--resamples", "0", "--no-timeline")
    _, default, _ = run(demo, *args, capsys=capsys)
    _, majority, _ = run(demo, *args, "--reference", "majority", capsys=capsys)
    assert majority == default and '"reference"' not in default
    _, ds, _ = run(demo, *args, "--reference", "dawid_skene", capsys=capsys)
    doc = json.loads(ds)
    assert doc["meta"]["reference"] == "dawid_skene"
    assert doc["meta"]["reference_override"] is False  # not an adjudication
    with pytest.raises(SystemExit) as exc:
        run(demo, *args, "--reference", "wawa", capsys=capsys)
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_aggregated_reference_is_what_evaluators_are_compared_with(demo, capsys) -> None:
    import numpy as np

    args = ("agreement", "demo-intent-match", "--json", "--resamples", "0", "--no-timeline")
    name = "embedding-similarity (demo)"
    _, out, _ = run(demo, *args, capsys=capsys)
    mean_r = json.loads(out)["evaluators"][name]["match"]["pearson"]["r"]
    _, out, _ = run(demo, *args, "--reference", "dawid_skene", capsys=capsys)
    ds_r = json.loads(out)["evaluators"][name]["match"]["pearson"]["r"]
    _, out, _ = run(
        demo, "aggregate", "demo-intent-match", "--method", "dawid_skene", "--json", capsys=capsys
    )
    labels = {r["item_id"]: r["label"] for r in json.loads(out)["items"]}
    s = Store(demo)
    scores = s.scores_frame("demo-intent-match")
    per_item = scores[scores["field"] == "match"].groupby("item_id")["score"].mean()
    people = s.annotations_frame("demo-intent-match")
    mean = people[people["field"] == "match"].groupby("item_id")["value"].mean()
    s.close()
    ids = sorted(per_item.index)
    expected_ds = np.corrcoef(per_item[ids], [labels[i] for i in ids])[0, 1]
    expected_mean = np.corrcoef(per_item[ids], mean[ids].astype(float))[0, 1]
    assert ds_r == pytest.approx(expected_ds, abs=1e-9)
    assert mean_r == pytest.approx(expected_mean, abs=1e-9)
    assert abs(ds_r - mean_r) > 0.01


def test_crowd_flags_feed_exclusions(demo, capsys, monkeypatch) -> None:
    """The crowd study's checks hand over (annotator, reason, source) flags; they are
    recorded as exclusions under the check's source (a stand-in for the checks here)."""
    import sys
    import types
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Flag:
        annotator: str
        reason: str
        source: str

    fake = types.ModuleType("crowd.study_quality")
    fake.crowd_flags = lambda store, project: [
        Flag("demo-annotator-2", "gold accuracy 1/5 below 60%", "gold"),
        Flag("demo-annotator-3", "median active time 20% of the workers' median", "speed"),
    ]
    monkeypatch.setitem(sys.modules, "crowd.study_quality", fake)
    code, out, _ = run(demo, "annotators", "demo-dialogue", "--apply-flags", capsys=capsys)
    assert code == 0 and "2 flag(s) recorded" in out
    s = Store(demo)
    assert [
        (r.annotator, r.source, r.reason, r.created_by) for r in s.exclusions("demo-dialogue")
    ] == [
        ("demo-annotator-2", "gold", "gold accuracy 1/5 below 60%", "study checks"),
        (
            "demo-annotator-3",
            "speed",
            "median active time 20% of the workers' median",
            "study checks",
        ),
    ]
    s.close()
    code, out, _ = run(demo, "annotators", "demo-dialogue", capsys=capsys)
    assert "gold: gold accuracy 1/5 below 60%" in out


def test_audit_with_aggregated_reference_and_exclusions(demo, capsys) -> None:
    import io

    base = ("audit", "demo-intent-match", "--field", "match", "--out", "-")
    _, out, _ = run(demo, *base, capsys=capsys)
    plain = pd.read_csv(io.StringIO(out)).set_index("item_id")
    assert set(plain["human_source"]) == {"mean"}
    assert plain.loc["alarm", "human"] == pytest.approx(1 / 3)
    _, out, _ = run(demo, *base, "--human-reference", "mace", capsys=capsys)
    mace_ref = pd.read_csv(io.StringIO(out)).set_index("item_id")
    assert set(mace_ref["human_source"]) == {"mace"}
    assert mace_ref.loc["alarm", "human"] == 0.0  # two of three said 0
    s = Store(demo)
    who = s.annotations_frame("demo-intent-match")
    alarm = who[(who["item_id"] == "alarm") & (who["field"] == "match")]
    odd = alarm.loc[alarm["value"] == 1, "annotator"].item()
    s.exclude_annotator("demo-intent-match", odd, "test")
    s.close()
    _, out, _ = run(demo, *base, capsys=capsys)
    after = pd.read_csv(io.StringIO(out)).set_index("item_id")
    assert after.loc["alarm", "annotators"] == 2 and after.loc["alarm", "human"] == 0.0
