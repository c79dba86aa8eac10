"""MTurk batch results: several assignments per HIT import as items, labels by workers,
and time on task; rejected assignments stay out. The figures equal an independent
computation from the CSV itself (krippendorff package, leave-one-out majority by hand)."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from agreement.annotator_quality import annotator_quality
from annotation_store import Store
from commands import main
from workbench_api import agreement, import_file

HEADER = [
    "HITId",
    "AssignmentId",
    "WorkerId",
    "AssignmentStatus",
    "WorkTimeInSeconds",
    "Input.text",
    "Answer.sentiment.pos",
    "Answer.sentiment.neg",
    "Answer.sentiment.neu",
]
TEXTS = ["great service", "never again", "it was fine", "loved it", "so slow", "meh"]
# (hit, worker, answer, seconds, status): three assignments per HIT, one rejected.
ASSIGNMENTS = [
    (0, "W1", "pos", 31, "Approved"),
    (0, "W2", "pos", 44, "Approved"),
    (0, "W3", "pos", 12, "Submitted"),
    (1, "W1", "neg", 25, "Approved"),
    (1, "W2", "neg", 38, "Approved"),
    (1, "W4", "pos", 3, "Rejected"),
    (1, "W3", "neu", 19, "Approved"),
    (2, "W1", "neu", 40, "Approved"),
    (2, "W2", "pos", 51, "Approved"),
    (2, "W3", "neu", 22, "Approved"),
    (3, "W1", "pos", 18, "Approved"),
    (3, "W2", "pos", 27, "Approved"),
    (3, "W3", "neg", 9, "Approved"),
    (4, "W1", "neg", 33, "Approved"),
    (4, "W2", "neu", 29, "Approved"),
    (4, "W3", "neg", 15, "Approved"),
    (5, "W1", "neu", 21, "Approved"),
    (5, "W2", "neu", 30, "Approved"),
    (5, "W3", "neu", 11, "Approved"),
]


@pytest.fixture
def results_csv(tmp_path: Path) -> Path:
    path = tmp_path / "Batch_123_batch_results.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        for n, (hit, worker, answer, seconds, status) in enumerate(ASSIGNMENTS):
            radio = ["true" if answer == o else "false" for o in ("pos", "neg", "neu")]
            writer.writerow([f"HIT{hit}", f"A{n}", worker, status, seconds, TEXTS[hit], *radio])
    return path


def kept() -> list[tuple[int, str, str, int, str]]:
    return [a for a in ASSIGNMENTS if a[4] != "Rejected"]


def test_batch_results_import_and_their_figures(store: Store, results_csv: Path) -> None:
    store.create_project("s", "categorical", {"labels": ["pos", "neg", "neu"]})
    reports = import_file(
        store, "s", "annotations", results_csv, "mturk", mapping={"sentiment": "label"}
    )
    assert reports["items"].created == len(TEXTS)
    assert reports["annotations"].created == len(kept())
    assert reports["annotations"].notes == ["1 rejected assignments kept out"]
    by_text = {i.fields["text"]: i.item_id for i in store.items("s")}
    assert sorted(by_text) == sorted(TEXTS)
    people = store.annotations_frame("s", ("submitted",))
    assert "W4" not in set(people["annotator"])

    # Krippendorff's alpha from the CSV's own rows.
    workers = sorted({a[1] for a in kept()})
    codes = {"pos": 0, "neg": 1, "neu": 2}
    matrix = np.full((len(workers), len(TEXTS)), np.nan)
    for hit, worker, answer, _, _ in kept():
        matrix[workers.index(worker), hit] = codes[answer]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    doc = agreement(store, "s", resamples=50)
    assert doc.fields["label"].stat("krippendorff_alpha", "nominal").value == pytest.approx(
        expected, abs=1e-12
    )

    # Leave-one-out majority agreement per worker, by hand.
    answers: dict[int, list[tuple[str, str]]] = {}
    for hit, worker, answer, _, _ in kept():
        answers.setdefault(hit, []).append((worker, answer))
    hits: dict[str, list[bool]] = {}
    for labels in answers.values():
        for worker, answer in labels:
            others = Counter(a for w, a in labels if w != worker).most_common()
            if others and (len(others) == 1 or others[0][1] > others[1][1]):
                hits.setdefault(worker, []).append(others[0][0] == answer)
    quality = {q.annotator: q for q in annotator_quality(people[["item_id", "annotator", "value"]])}
    for worker, seen in hits.items():
        assert quality[worker].n_loo == len(seen)
        assert quality[worker].loo_agreement == pytest.approx(sum(seen) / len(seen))
    # Three-way items with two different others are ties: only HITs 0 and 5 count for W1.
    assert hits["W1"] == [True, True] and hits["W2"] == [True, False, False, True]

    # Time on task: WorkTimeInSeconds per worker and item.
    progress = store.progress_frame("s")
    spent = {(r.item_id, r.annotator): r.seconds_spent for r in progress.itertuples()}
    for hit, worker, _, seconds, _ in kept():
        assert spent[(by_text[TEXTS[hit]], worker)] == seconds
    per_worker = progress.groupby("annotator")["seconds_spent"].sum().to_dict()
    assert per_worker == {w: sum(a[3] for a in kept() if a[1] == w) for w in workers}


def test_cli_imports_batch_results_and_refuses_to_write_them(
    sqlite_url: str, results_csv: Path, tmp_path: Path, capsys
) -> None:
    db = ["--db", sqlite_url]
    assert (
        main(
            [
                *db,
                "project",
                "create",
                "s",
                "--kind",
                "categorical",
                "--settings",
                '{"labels": ["pos", "neg", "neu"]}',
            ]
        )
        == 0
    )
    capsys.readouterr()
    cmd = [*db, "import", "annotations", "s", str(results_csv), "--format", "mturk"]
    assert main([*cmd, "--map", "sentiment=label"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "items: 6 created, 0 updated, 0 unchanged",
        "annotations: 18 created, 0 updated, 0 unchanged",
        "  note: 1 rejected assignments kept out",
    ]
    out = tmp_path / "x.csv"
    with pytest.raises(SystemExit, match="2"):  # an import-only format: no export choice
        main([*db, "export", "annotations", "s", "--out", str(out), "--format", "mturk"])
    assert "invalid choice: 'mturk'" in capsys.readouterr().err and not out.exists()


def test_a_file_without_the_mturk_columns_is_named(store: Store, tmp_path: Path) -> None:
    store.create_project("s", "categorical", {"labels": ["pos", "neg"]})
    path = tmp_path / "other.csv"
    path.write_text("id,label\n1,pos\n")
    with pytest.raises(Exception, match="other.csv, the header: not an MTurk batch results"):
        import_file(store, "s", "annotations", path, "mturk")
    assert store.items("s") == []


def test_the_readmes_mturk_lines_run_as_written(
    sqlite_url: str, results_csv: Path, tmp_path: Path, capsys
) -> None:
    """The README creates the project its MTurk import names, then imports the batch."""
    import shlex

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    at = readme.index("--format mturk --map")
    lines = readme[: readme.index("\n", at)].splitlines()[-2:]
    commands = [shlex.split(line.split("  #")[0]) for line in lines]
    assert [c[:3] for c in commands] == [
        ["python", "cli.py", "project"],
        ["python", "cli.py", "import"],
    ]
    assert commands[0][4] == commands[1][4]  # the import's project is the one created
    for args in commands:
        args = [str(results_csv) if a.endswith("batch_results.csv") else a for a in args[2:]]
        assert main(["--db", sqlite_url, *args]) == 0
    assert "annotations: 18 created, 0 updated, 0 unchanged" in capsys.readouterr().out
