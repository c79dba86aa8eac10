"""Label aggregation against crowd-kit 1.4.2 on published data, and its invariances."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.aggregation import aggregate, dawid_skene, encode, mace, mace_init, majority_vote

DATA = Path(__file__).parent / "data" / "rzhetsky_e2_sample.csv"
FAST = settings(max_examples=20, deadline=None)
# crowd-kit calls pandas APIs that pandas 3.1 deprecates
pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit")


def _e2(binary: bool) -> pd.DataFrame:
    """The pyAnno e-2 sample as crowd-kit's (task, worker, label) frame; binary: label >= 3.

    Rows are ordered so that workers and labels first appear in sorted order: crowd-kit's
    MACE indexes its parameters by first appearance but reads the strategy counts back in
    sorted order, so only then do its rows line up (ours are always sorted).
    """
    df = pd.read_csv(DATA).rename(columns={"item": "task", "annotator": "worker"})
    if binary:
        df["label"] = (df["label"] >= 3).astype(int)
    df = df.sort_values(["label", "worker", "task"]).reset_index(drop=True)
    assert list(pd.factorize(df["worker"])[1]) == sorted(df["worker"].unique())
    assert list(pd.factorize(df["label"])[1]) == sorted(df["label"].unique())
    return df


def _ours(df: pd.DataFrame):
    return encode(df.rename(columns={"task": "item_id", "worker": "annotator", "label": "value"}))


@pytest.fixture(scope="module")
def crowdkit():
    return pytest.importorskip("crowdkit.aggregation")


@pytest.mark.parametrize("binary", [False, True])
def test_dawid_skene_equals_crowdkit(crowdkit, binary: bool) -> None:
    df = _e2(binary)
    ck = crowdkit.DawidSkene(n_iter=100).fit(df)
    ours = dawid_skene(_ours(df))
    assert ours.iterations == len(ck.loss_history_)  # same stopping rule
    assert ours.iterations < 100
    probas = ck.probas_.sort_index()
    assert list(probas.index) == list(ours.items)
    np.testing.assert_allclose(ours.posteriors, probas.to_numpy(), atol=1e-9)
    assert ours.labels == list(ck.labels_.sort_index())
    errors = ck.errors_  # (worker, said) x true
    priors = ck.priors_.to_numpy()
    for w in ours.competence:
        diag = [errors.loc[(w, c), c] if (w, c) in errors.index else 0.0 for c in ours.classes]
        assert ours.competence[w] == pytest.approx(float(np.dot(diag, priors)), abs=1e-9)


@pytest.mark.parametrize("binary", [False, True])
def test_mace_equals_crowdkit(crowdkit, binary: bool) -> None:
    df = _e2(binary)
    # crowd-kit's restarts all draw from the same seed, so one restart is the same fit
    ck = crowdkit.MACE(n_restarts=1, n_iter=15, random_state=0).fit(df)
    ours = mace(_ours(df), n_iter=15, seed=0)
    probas = ck.probas_.sort_index()
    np.testing.assert_allclose(ours.posteriors, probas.to_numpy(), atol=1e-9)
    assert ours.labels == list(ck.labels_.sort_index())
    np.testing.assert_allclose(list(ours.competence.values()), ck.spamming_[:, 1], atol=1e-9)
    # annotator a4 is the one most likely to know the answer on this sample
    assert max(ours.competence, key=ours.competence.get) == "a4"
    assert ours.competence["a4"] > 0.85


def test_mace_start_equals_crowdkit(crowdkit) -> None:
    ck = crowdkit.MACE(random_state=3)
    ck._initialize(4, 3)
    spam, theta = mace_init(4, 3, seed=3)
    np.testing.assert_allclose(spam, ck.spamming_)
    np.testing.assert_allclose(theta, ck.thetas_)


def test_majority_equals_crowdkit_shares_and_leaves_ties_open(crowdkit) -> None:
    df = _e2(False)
    ck = crowdkit.MajorityVote().fit(df)
    ours = majority_vote(_ours(df))
    np.testing.assert_allclose(ours.posteriors, ck.probas_.sort_index().to_numpy())
    ck_labels = list(ck.labels_.sort_index())
    tied = [lab is None for lab in ours.labels]
    assert 0 < sum(tied) < len(tied)  # three different labels on some items
    assert all(t or o == c for o, c, t in zip(ours.labels, ck_labels, tied, strict=True))


def test_small_worked_example() -> None:
    frame = pd.DataFrame(
        {
            "item_id": ["x", "x", "x", "y", "y", "y", "z", "z"],
            "annotator": ["a", "b", "c", "a", "b", "c", "a", "b"],
            "value": ["yes", "yes", "no", "no", "no", "no", "yes", "no"],
        }
    )
    mv = aggregate(frame, "majority")
    assert mv.labels == ["yes", "no", None]
    assert mv.frame()["posterior"].tolist()[:2] == pytest.approx([2 / 3, 1.0])
    assert np.isnan(mv.frame()["posterior"].tolist()[2])
    # c disagrees with the untied majority once in two, a and b never
    assert mv.competence == {"a": 1.0, "b": 1.0, "c": 0.5}
    with pytest.raises(ValueError, match="unknown aggregation method"):
        aggregate(frame, "wawa")


@st.composite
def crowds(draw):
    n_items = draw(st.integers(3, 12))
    n_ann = draw(st.integers(2, 5))
    k = draw(st.integers(2, 3))
    rows = []
    for i in range(n_items):
        for a in range(n_ann):
            if draw(st.booleans()) or a < 2:
                rows.append((f"i{i}", f"w{a}", draw(st.integers(0, k - 1))))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def _by_item(agg) -> dict:
    """item -> (label, posterior to 9 digits); a label chosen between classes whose
    posteriors are equal to 9 digits is a tie broken by float noise, so it reads "tie"."""
    out = {}
    for item, label, post in zip(agg.items, agg.labels, agg.posteriors, strict=True):
        rounded = tuple(np.round(post, 9))
        tied = len(rounded) > 1 and sorted(rounded)[-1] == sorted(rounded)[-2]
        out[item] = ("tie" if tied and label is not None else label, rounded)
    return out


@FAST
@given(crowds(), st.randoms(use_true_random=False))
@pytest.mark.parametrize("method", ["majority", "dawid_skene", "mace"])
def test_row_order_changes_nothing(method: str, frame: pd.DataFrame, rnd) -> None:
    order = list(range(len(frame)))
    rnd.shuffle(order)
    a = aggregate(frame, method)
    b = aggregate(frame.iloc[order], method)
    assert _by_item(a) == _by_item(b)
    assert a.competence == pytest.approx(b.competence, abs=1e-9, nan_ok=True)


@FAST
@given(crowds(), st.randoms(use_true_random=False))
@pytest.mark.parametrize("method", ["majority", "dawid_skene"])
def test_renaming_workers_and_items_changes_nothing(method: str, frame, rnd) -> None:
    """Names only set the order; majority and Dawid-Skene treat everyone alike. (MACE's
    random start is drawn in name order, so renamed workers start elsewhere.)"""
    workers = sorted(frame["annotator"].unique())
    items = sorted(frame["item_id"].unique())
    new_w, new_i = workers[:], items[:]
    rnd.shuffle(new_w)
    rnd.shuffle(new_i)
    wmap, imap = dict(zip(workers, new_w, strict=True)), dict(zip(items, new_i, strict=True))
    renamed = frame.assign(
        annotator=frame["annotator"].map(wmap), item_id=frame["item_id"].map(imap)
    )
    a, b = aggregate(frame, method), aggregate(renamed, method)
    back = {imap[k]: v for k, v in _by_item(a).items()}
    assert back == _by_item(b)
    moved = {wmap[w]: c for w, c in a.competence.items()}
    assert moved == pytest.approx(b.competence, abs=1e-9, nan_ok=True)


def test_light_command_modules_name_the_same_methods() -> None:
    """The CLI keeps its own copies (its modules must not import numpy when loaded)."""
    from agreement.aggregation import METHODS
    from commands.agreement import REFERENCES as CLI_REFERENCES
    from commands.quality import METHODS as CLI_METHODS
    from workbench_api.quality import REFERENCES

    assert METHODS == CLI_METHODS == CLI_REFERENCES == REFERENCES
