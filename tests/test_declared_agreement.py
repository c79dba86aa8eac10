"""Agreement on declared question types equals an independent computation:
krippendorff's package, NLTK's MASI alpha, a Bradley-Terry likelihood maximised by
SciPy, and span F1 worked by hand."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from annotation_store import Store
from reports.data import agreement_document
from tests.support.bt_reference import bt_by_scipy
from tests.support.kind_examples import example_project

PEOPLE = ("ann1", "ann2", "ann3")


def _label(store: Store, project: str, field: str, table: dict[str, tuple]) -> None:
    for item, answers in table.items():
        for who, value in zip(PEOPLE, answers, strict=True):
            if value is not None:
                store.save_label(project, item, who, field, value, status="submitted")


@pytest.fixture
def store(sqlite_url: str) -> Store:
    return Store(sqlite_url)


def test_rubric_alpha_equals_krippendorff(store: Store) -> None:
    example_project(store, "summary_rubric", "rubric")
    coherence = {"s1": (5, 4, 5), "s2": (4, 4, 3), "s3": (2, 1, 2), "s4": (3, 4, None)}
    _label(store, "rubric", "coherence", coherence)
    doc = agreement_document(store, "rubric", n_resamples=0).to_dict()
    matrix = np.array(
        [[np.nan if v[k] is None else v[k] for v in coherence.values()] for k in range(3)],
        dtype=float,
    )
    got = doc["fields"]["coherence"]["krippendorff_alpha"]
    for level in ("nominal", "ordinal", "interval"):
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert got[level] == pytest.approx(want, abs=1e-12)


REASONS = {
    "p1": (["correctness"], ["correctness", "clarity"], ["completeness"]),
    "p2": (["clarity"], ["clarity"], ["clarity", "safety"]),
    "p3": (["correctness", "completeness"], ["correctness"], ["correctness", "completeness"]),
    "p4": (["safety"], ["clarity"], ["safety"]),
}
CHOICES = {
    "p1": ("answer_a", "answer_a", "tie"),
    "p2": ("answer_a", "answer_b", "answer_a"),
    "p3": ("answer_b", "answer_a", "answer_a"),
    "p4": ("answer_a", "tie", "answer_b"),
}
SYSTEMS = {
    "p1": ("model-x", "model-y"),
    "p2": ("model-y", "model-z"),
    "p3": ("model-x", "model-z"),
    "p4": ("model-z", "model-x"),
}


def _bt_by_scipy() -> dict[str, float]:
    """Maximise the Bradley-Terry likelihood directly (a tie: half a win each)."""
    names = ["model-x", "model-y", "model-z"]
    games = []
    for item, answers in CHOICES.items():
        a, b = (names.index(s) for s in SYSTEMS[item])
        for c in answers:
            games.append((a, b, 0.5 if c == "tie" else float(c == "answer_a")))

    return bt_by_scipy(names, games)


def test_pairwise_and_multilabel_figures(store: Store) -> None:
    example_project(store, "pairwise_preference", "pref")
    _label(
        store,
        "pref",
        "preference",
        {
            i: tuple({"choice": c, "shown": ["answer_b", "answer_a"]} for c in v)
            for i, v in CHOICES.items()
        },
    )
    _label(store, "pref", "reasons", REASONS)
    doc = agreement_document(store, "pref", n_resamples=200).to_dict()
    pref = doc["fields"]["preference"]
    # MT-Bench agreement by hand: 3 of 12 annotator pairs agree; 3 of 8 without ties
    assert pref["pairwise_agree_with_ties"] == pytest.approx(3 / 12)
    assert pref["pairwise_agree_with_ties_n_pairs"] == 12
    assert pref["pairwise_agree_without_ties"] == pytest.approx(3 / 8)
    assert pref["pairwise_agree_without_ties_n_pairs"] == 8
    codes = {"answer_a": 0, "answer_b": 1, "tie": 2}
    matrix = np.array([[codes[v[k]] for v in CHOICES.values()] for k in range(3)], float)
    want = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert pref["krippendorff_alpha"]["nominal"] == pytest.approx(want, abs=1e-12)
    ranking = {row["system"]: row for row in pref["bradley_terry"]}
    for system, theta in _bt_by_scipy().items():
        assert ranking[system]["theta"] == pytest.approx(theta, abs=1e-5)
    top, second = pref["bradley_terry"][:2]
    assert top["system"] == "model-x" and top["ci"][0] < top["theta"] < top["ci"][1]
    assert pref["bradley_terry_top"] == pytest.approx(
        1 / (1 + np.exp(second["theta"] - top["theta"]))
    )
    reasons = doc["fields"]["reasons"]
    task = AnnotationTask(
        [
            (who, item, frozenset(v[k]))
            for item, v in REASONS.items()
            for k, who in enumerate(PEOPLE)
        ],
        distance=masi_distance,
    )
    assert reasons["masi_alpha"] == pytest.approx(task.alpha(), abs=1e-12)
    assert reasons["masi_alpha_n_items"] == 4
    labels = ["correctness", "completeness", "clarity", "safety"]
    for label in labels:
        m = np.array([[float(label in v[k]) for v in REASONS.values()] for k in range(3)])
        want = krippendorff.alpha(reliability_data=m, level_of_measurement="nominal")
        assert reasons["label_alpha_by_label"][label] == pytest.approx(want, abs=1e-12)
    assert reasons["label_alpha_mean"] == pytest.approx(
        np.mean(list(reasons["label_alpha_by_label"].values()))
    )


SPANS = {
    "e1": (
        [{"start": 8, "end": 13, "label": "fluency"}],
        [{"start": 8, "end": 13, "label": "fluency"}, {"start": 0, "end": 3, "label": "style"}],
        [{"start": 4, "end": 13, "label": "fluency"}],
    ),
    "e3": (
        [
            {"start": 4, "end": 8, "label": "accuracy"},
            {"start": 21, "end": 30, "label": "accuracy"},
        ],
        [{"start": 4, "end": 8, "label": "accuracy"}],
        [{"start": 4, "end": 8, "label": "terminology"}],
    ),
}


def test_span_f1_by_hand_and_character_alpha(store: Store) -> None:
    example_project(store, "error_spans", "err")
    _label(store, "err", "errors", SPANS)
    _label(store, "err", "has_errors", {"e1": (1, 1, 1), "e2": (0, 0, 1), "e3": (1, 1, 1)})
    errors = agreement_document(store, "err", n_resamples=0).to_dict()["fields"]["errors"]
    # exact: 4 matched of 16 spans over 6 pairs; overlap: 8 of 16 (worked in the docstring
    # of agreement/spans.py's formula, pair by pair)
    assert errors["span_f1_exact"] == pytest.approx(4 / 16)
    assert errors["span_f1_overlap"] == pytest.approx(8 / 16)
    assert errors["span_f1_exact_n_pairs"] == 6
    lengths = {
        "e1": len("The cat sleep on the sofa."),
        "e3": len("She sold two tickets yesterday."),
    }
    for label in ("fluency", "accuracy"):
        rows = [[], [], []]
        for item, answers in SPANS.items():
            for k, spans in enumerate(answers):
                marks = [0.0] * lengths[item]
                for s in spans:
                    if s["label"] == label:
                        marks[s["start"] : s["end"]] = [1.0] * (s["end"] - s["start"])
                rows[k].extend(marks)
        want = krippendorff.alpha(reliability_data=np.array(rows), level_of_measurement="nominal")
        assert errors["char_alpha_by_label"][label] == pytest.approx(want, abs=1e-12)
    assert errors["span_char_alpha_n_chars"] == sum(lengths.values())
    assert list(errors["char_alpha_by_label"]) == ["accuracy", "fluency", "terminology", "style"]


def test_free_text_is_counted_and_undefined_cases_say_why(store: Store) -> None:
    example_project(store, "pairwise_preference", "notes")
    _label(store, "notes", "note", {"p1": ("too long", None, "fine"), "p2": ("ok", None, None)})
    doc = agreement_document(store, "notes", n_resamples=0).to_dict()["fields"]
    assert doc["note"]["text_answers"] == 3
    assert doc["note"]["text_answers_n_items"] == 2
    assert doc["note"]["text_mean_characters"] == pytest.approx((8 + 4 + 2) / 3)
    # no statistic but the counts applies to free text: none is computed or noted
    note_keys = {k for k in doc["note"] if k != "reasons"} | set(doc["note"]["reasons"])
    assert not note_keys & {"krippendorff_alpha", "fleiss_kappa", "percent_agreement"}
    assert not {k for k in note_keys if k.startswith(("cohen_", "fleiss_", "gwet_", "icc_"))}
    assert not {k for k in note_keys if k.startswith(("masi", "span_", "pairwise_agree"))}
    # a multi-label set is no category: exact-set alpha and MASI, but no Fleiss or Cohen
    reasons = doc["reasons"]
    assert "masi_alpha" in reasons and "percent_agreement" in reasons
    assert not {k for k in reasons if k.startswith(("fleiss", "cohen", "gwet_ac1", "text_"))}
    assert doc["preference"]["bradley_terry_top"] is None
    assert (
        doc["preference"]["reasons"]["bradley_terry_top"] == "fewer than two systems were compared"
    )


def test_imported_scores_are_compared_per_question(store: Store) -> None:
    from scipy.stats import spearmanr

    from interop.importing import import_scores

    example_project(store, "summary_rubric", "rubric")
    human = {"s1": (5, 4, 5), "s2": (4, 4, 3), "s3": (2, 1, 2), "s4": (3, 4, 3)}
    _label(store, "rubric", "relevance", human)
    metric = {"s1": 0.9, "s2": 0.7, "s3": 0.2, "s4": 0.4}
    csv = "item_id,evaluator,field,value\n" + "".join(
        f"{i},rougeL,relevance,{v}\n" for i, v in metric.items()
    )
    import_scores(store, "rubric", csv.encode(), "scores.csv")
    doc = agreement_document(store, "rubric", n_resamples=0).to_dict()
    got = doc["evaluators"]["rougeL"]["relevance"]
    means = [np.mean(human[i]) for i in metric]
    want = spearmanr(list(metric.values()), means).statistic
    assert got["spearman"]["r"] == pytest.approx(want, abs=1e-12)
    assert got["n"] == 4
