"""Agreement reports through the CLI: HTML / Markdown / JSON with reliability CSVs."""

from __future__ import annotations

import csv
import hashlib
import json

import pytest

from annotation_store import Store
from commands import main


@pytest.fixture
def db(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(url)
    store.create_project("p", "likert", {"min": 1, "max": 5})
    store.upsert_items(
        "p",
        [
            {
                "item_id": f"u{i}",
                "fields": {"text": f"t{i}"},
                "generator": "gpt" if i % 2 else "llama",
            }
            for i in range(8)
        ],
    )
    store.import_labels(
        "p",
        [
            {
                "item_id": f"u{i}",
                "annotator": a,
                "field": "label",
                "value": (i % 5) + 1 if a != "C" else ((i + 1) % 5) + 1,
                "status": "submitted",
            }
            for i in range(8)
            for a in "ABC"
        ],
    )
    store.import_scores(
        "p",
        [
            {
                "item_id": f"u{i}",
                "evaluator": "judge",
                "field": "label",
                "value": (i % 5) + 1,
                "judge_model": "gpt",
                "run": 0,
            }
            for i in range(8)
        ],
    )
    items = store.items("p")
    store.close()
    return url, items


@pytest.mark.parametrize("suffix", ["html", "md", "json"])
def test_report_formats_state_provenance_and_write_csv(db, tmp_path, capsys, suffix):
    url, items = db
    out = tmp_path / f"rep.{suffix}"
    assert (
        main(["--db", url, "report", "p", "--out", str(out), "--items", "u1", "--resamples", "50"])
        == 0
    )
    text = out.read_text()
    canon = json.dumps(
        [
            {"item_id": i.item_id, "fields": i.fields, "split": i.split, "generator": i.generator}
            for i in sorted(items, key=lambda i: i.item_id)
        ],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    digest = hashlib.sha256(canon.encode()).hexdigest()
    assert digest in text
    assert "judge:imported|model:gpt" in text
    matrix = tmp_path / "rep.reliability_label.csv"
    with matrix.open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["item_id", "A", "B", "C"] and len(rows) == 9
    assert rows[1] == ["u0", "1", "1", "2"]
    if suffix == "html":
        assert text.count('<script type="application/json" data-figure=') >= 2
        # plotly.js is embedded exactly once (packed), and drawn by one loader
        assert text.count('id="plotly-bundle"') == 1 and text.count("Plotly.newPlot") == 1
        assert "<script src=" not in text
    if suffix == "json":
        data = json.loads(text)
        assert data["provenance"]["guideline_version"] == 1
        assert data["drilldown"][0]["item_id"] == "u1"
        assert len(data["drilldown"][0]["labels"]) == 3
        assert data["drilldown"][0]["evaluator_outputs"][0]["scores"] == {"label": 2.0}
        assert data["agreement"]["fields"]["label"]["n_items"] == 8
    if suffix == "md":
        assert "Guideline version" in text and "## Selected items" in text


def test_report_rejects_unknown_format(db, tmp_path, capsys):
    url, _ = db
    assert main(["--db", url, "report", "p", "--out", str(tmp_path / "x.pdf")]) == 2
    assert "format" in capsys.readouterr().err


def test_report_into_a_missing_folder_makes_the_folder(db, tmp_path) -> None:
    url, _ = db
    out = tmp_path / "missing" / "deeper" / "report.md"
    assert main(["--db", url, "report", "p", "--out", str(out), "--resamples", "0"]) == 0
    assert out.read_text().startswith("# ")
    assert (out.parent / "report.reliability_label.csv").exists()


def test_report_that_cannot_be_written_is_refused_before_any_work(
    db, tmp_path, capsys, monkeypatch
) -> None:
    import reports.render

    def no_work(*args, **kwargs):
        raise AssertionError("the report was built")

    monkeypatch.setattr(reports.render, "build_report", no_work)
    url, _ = db
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    (tmp_path / "folder.md").mkdir()
    for out, why in (
        (blocker / "sub" / "report.md", "is not a folder"),
        (tmp_path / "folder.md", "is a folder"),
    ):
        assert main(["--db", url, "report", "p", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert why in err and "\n" not in err and "Traceback" not in err
    assert not (blocker.parent / "sub").exists()


def test_runs_with_other_settings_are_not_pooled(db) -> None:
    from evaluators.base import EvalResult, Signature
    from reports.data import agreement_document

    url, _ = db
    store = Store(url)
    for settings, flip in (({"temperature": 0}, False), ({"temperature": 1}, True)):
        sig = Signature("geval", "1", "gpt", "p1", settings)
        run = store.create_run("p", sig, 0)
        scores = [5 - (i % 5) if flip else (i % 5) + 1 for i in range(8)]  # mirrored
        store.save_results(
            "p", run, [EvalResult(f"u{i}", sig, scores={"label": s}) for i, s in enumerate(scores)]
        )
        store.finish_run(run)
    doc = agreement_document(store, "p", n_resamples=0).to_dict()
    store.close()
    gevals = sorted(k for k in doc["evaluators"] if k.startswith("geval"))
    assert len(gevals) == 2 and all(k.startswith("geval [settings:") for k in gevals)
    for name in gevals:
        comparison = doc["evaluators"][name]["label"]
        assert comparison["n_runs"] == 1 and len(comparison["signatures"]) == 1
    # pooled, the mirrored runs would average to a constant (no correlation at all)
    rs = sorted(doc["evaluators"][k]["label"]["pearson"]["r"] for k in gevals)
    assert rs[0] == pytest.approx(-rs[1]) and rs[1] > 0.5
    assert "judge" in doc["evaluators"]  # the imported evaluator keeps its plain name


def test_exported_figures_keep_twelve_significant_digits() -> None:
    from reports.formats import portable_floats

    noisy = {"r": 0.1 + 0.2, "ci": [0.7071067811865476, 1e-17 + 0.5], "n": 12, "x": None}
    assert portable_floats(noisy) == {"r": 0.3, "ci": [0.707106781187, 0.5], "n": 12, "x": None}
    assert portable_floats((123456.7890123456789,)) == [123456.789012]


def test_gold_items_are_stated_apart_from_the_items_annotated(db, tmp_path) -> None:
    """Gold (check) items count in no figure: the document, the report and the alignment
    table give the items people annotate and state the gold items separately."""
    from alignment.table import alignment_table
    from reports.data import agreement_document
    from studies import gold

    url, _ = db
    store = Store(url)
    before = agreement_document(store, "p", n_resamples=0).to_dict()
    assert (before["meta"]["n_items_total"], before["meta"]["n_gold_items"]) == (8, 0)
    gold.set_gold(store, "p", "u6", 2)
    gold.set_gold(store, "p", "u7", 3)
    doc = agreement_document(store, "p", n_resamples=0).to_dict()
    assert (doc["meta"]["n_items_total"], doc["meta"]["n_gold_items"]) == (6, 2)
    assert doc["fields"]["label"]["n_items"] == 6  # the same count as the field's figures
    table = alignment_table(store, "p", "label", n_resamples=0)
    assert (table["meta"]["n_items_total"], table["meta"]["n_gold_items"]) == (6, 2)
    store.close()
    for suffix in ("html", "json"):
        out = tmp_path / f"gold.{suffix}"
        assert main(["--db", url, "report", "p", "--out", str(out), "--resamples", "0"]) == 0
        text = out.read_text()
        if suffix == "json":
            provenance = json.loads(text)["provenance"]
            assert (provenance["n_items"], provenance["n_gold_items"]) == (6, 2)
        else:
            assert "<dt>Items</dt><dd>6 (and 2 gold check items, left out)</dd>" in text
