"""Label aggregation: majority vote, Dawid-Skene and MACE over nominal labels.

Compact numpy versions of the EM algorithms as crowd-kit 1.4.2 runs them (same
initialisation, same updates, same stopping rule), so their labels, posteriors and
competences equal crowd-kit's (``tests/test_aggregation.py`` checks it). Items,
annotators and classes are put in sorted order first, so the input's row order changes
nothing.

- Dawid & Skene (1979): one confusion matrix per annotator; EM started from the
  majority-vote shares, stopped when the evidence lower bound per label gains less than
  ``tol``. Competence: the annotator's expected accuracy, sum_c prior[c] * P(says c | c).
- MACE (Hovy et al., 2013): each annotator either knows the answer or follows a label
  strategy; variational Bayes updates (Beta(0.5, 0.5) and Dirichlet(10) priors).
  Competence: the probability that the annotator knows the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

METHODS = ("majority", "dawid_skene", "mace")
_EPS = 1e-10


@dataclass(frozen=True)
class Coded:
    """Labels as integer codes: one row per label (item, annotator, class)."""

    item: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    items: np.ndarray
    annotators: np.ndarray
    classes: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        """(items, annotators, classes)."""
        return len(self.items), len(self.annotators), len(self.classes)


@dataclass(frozen=True)
class Aggregation:
    """Aggregated labels of one field: per item a label and (where the method gives one)
    the posterior over ``classes``; per annotator a competence in [0, 1]."""

    method: str
    items: np.ndarray
    classes: np.ndarray
    labels: list[Any]  # None: a majority tie
    posteriors: np.ndarray  # items x classes
    competence: dict[str, float]
    iterations: int = 0

    def frame(self) -> pd.DataFrame:
        """item_id, label, posterior (of the label; NaN on a tie)."""
        post = [
            float(self.posteriors[i].max()) if lab is not None else np.nan
            for i, lab in enumerate(self.labels)
        ]
        return pd.DataFrame({"item_id": self.items, "label": self.labels, "posterior": post})


def _sorted_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # mixed types: order by their text
        codes, uniques = pd.factorize(values.astype(str), sort=True)
    return codes.astype(np.intp), np.asarray(uniques, dtype=object)


def encode(frame: pd.DataFrame) -> Coded:
    """Code a frame of labels (item_id, annotator, value); rows without a value dropped
    and one label per (item, annotator) kept (the last)."""
    frame = frame.dropna(subset=["value"]).drop_duplicates(["item_id", "annotator"], keep="last")
    values = frame["value"].map(lambda v: str(v) if isinstance(v, (list, dict)) else v)
    item, items = _sorted_codes(frame["item_id"].astype(str))
    annotator, annotators = _sorted_codes(frame["annotator"].astype(str))
    label, classes = _sorted_codes(values)
    # rows in one canonical order too: sums then add up in the same order whatever the
    # input's order, so exact ties break the same way
    order = np.lexsort((label, annotator, item))
    return Coded(item[order], annotator[order], label[order], items, annotators, classes)


def _per_item(coded: Coded, weights: np.ndarray) -> np.ndarray:
    """Sum per-label rows (n x K) into per-item rows (items x K)."""
    n_items, _, k = coded.shape
    out = np.empty((n_items, k))
    for c in range(k):
        out[:, c] = np.bincount(coded.item, weights[:, c], minlength=n_items)
    return out


def vote_shares(coded: Coded) -> np.ndarray:
    """Share of each class among an item's labels (items x classes)."""
    n_items, _, k = coded.shape
    counts = np.bincount(coded.item * k + coded.label, minlength=n_items * k).reshape(n_items, k)
    return counts / counts.sum(axis=1, keepdims=True)


def majority_vote(coded: Coded) -> Aggregation:
    """The most frequent label per item (a tie has none); posterior = the vote share;
    competence = agreement with the majority over the annotator's untied items."""
    shares = vote_shares(coded)
    top = shares.max(axis=1, keepdims=True)
    tied = (np.isclose(shares, top)).sum(axis=1) > 1
    best = shares.argmax(axis=1)
    labels = [None if t else coded.classes[b] for t, b in zip(tied, best, strict=True)]
    hit = (coded.label == best[coded.item]) & ~tied[coded.item]
    counted = ~tied[coded.item]
    n_ann = len(coded.annotators)
    hits = np.bincount(coded.annotator, hit.astype(float), minlength=n_ann)
    total = np.bincount(coded.annotator, counted.astype(float), minlength=n_ann)
    competence = {
        str(a): (float(h / t) if t else float("nan"))
        for a, h, t in zip(coded.annotators, hits, total, strict=True)
    }
    return Aggregation("majority", coded.items, coded.classes, labels, shares, competence)


def _from_posteriors(
    method: str, coded: Coded, probas: np.ndarray, competence: np.ndarray, iterations: int
) -> Aggregation:
    """The most probable class per item (the first in class order on a tie)."""
    return Aggregation(
        method,
        coded.items,
        coded.classes,
        [coded.classes[b] for b in probas.argmax(axis=1)],
        probas,
        {str(a): float(c) for a, c in zip(coded.annotators, competence, strict=True)},
        iterations,
    )


# --- Dawid-Skene -------------------------------------------------------------------------


def _ds_errors(coded: Coded, probas: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """M-step: errors[w, said, true], normalised over what w said (pairs w never said: 0)."""
    _, n_ann, k = coded.shape
    key = coded.annotator * k + coded.label
    counts = np.empty((n_ann * k, k))
    for c in range(k):
        counts[:, c] = np.bincount(key, probas[coded.item, c], minlength=n_ann * k)
    errors = np.where(seen[:, None], np.maximum(counts, _EPS), 0.0).reshape(n_ann, k, k)
    return errors / errors.sum(axis=1, keepdims=True)


def _ds_posteriors(coded: Coded, priors: np.ndarray, log_err: np.ndarray) -> np.ndarray:
    """E-step: P(true class | labels) per item."""
    rows = log_err[coded.annotator, coded.label]  # n x K
    loglik = np.log(np.maximum(priors, _EPS)) + _per_item(coded, rows)
    loglik -= loglik.max(axis=1, keepdims=True)
    like = np.exp(loglik)
    return like / like.sum(axis=1, keepdims=True)


def _ds_elbo(coded: Coded, probas: np.ndarray, priors: np.ndarray, log_err: np.ndarray) -> float:
    joint = log_err[coded.annotator, coded.label] + np.log(np.maximum(priors, _EPS))
    expectation = float((probas[coded.item] * joint).sum())
    clipped = np.maximum(probas, _EPS)
    return expectation - float((clipped * np.log(clipped)).sum())


def dawid_skene(coded: Coded, n_iter: int = 100, tol: float = 1e-5) -> Aggregation:
    """Dawid-Skene EM from the majority-vote shares (crowd-kit's ``DawidSkene``)."""
    _, n_ann, k = coded.shape
    seen = np.zeros(n_ann * k, bool)
    seen[coded.annotator * k + coded.label] = True
    probas = vote_shares(coded)
    priors = probas.mean(axis=0)
    errors = _ds_errors(coded, probas, seen)
    loss, done = -np.inf, 0
    with np.errstate(divide="ignore"):
        for step in range(1, n_iter + 1):
            done = step
            probas = _ds_posteriors(coded, priors, np.log(errors))
            priors = probas.mean(axis=0)
            errors = _ds_errors(coded, probas, seen)
            new_loss = _ds_elbo(coded, probas, priors, np.log(errors)) / len(coded.item)
            if new_loss - loss < tol:
                break
            loss = new_loss
    probas = np.maximum(probas, _EPS)
    diag = np.einsum("wcc->wc", errors)
    skill = diag @ np.maximum(priors, _EPS)
    return _from_posteriors("dawid_skene", coded, probas, skill, done)


# --- MACE --------------------------------------------------------------------------------


def mace_init(
    n_annotators: int, n_classes: int, seed: int = 0, noise: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """crowd-kit's starting point: (spam/know, strategy) rows drawn uniform on
    [1, 2 + noise] from a fresh generator seeded ``seed`` each, then normalised."""
    spam = np.random.RandomState(seed).uniform(0, 1, (n_annotators, 2)) * (1 + noise) + 1
    theta = np.random.RandomState(seed).uniform(0, 1, (n_annotators, n_classes)) * (1 + noise) + 1
    return spam / spam.sum(axis=1, keepdims=True), theta / theta.sum(axis=1, keepdims=True)


def _mace_expectations(
    coded: Coded, pair: np.ndarray, n_pair: np.ndarray, spam: np.ndarray, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """E-step: item marginals (items x K), strategy counts (annotators x K), and the
    expected (spamming, knowing) counts per annotator (annotators x 2).

    Everything a label contributes depends only on its (annotator, label) pair and on the
    posterior of its own class, so the sums run over pairs (``pair`` = w * K + y per
    label, ``n_pair`` labels per pair).
    """
    n_items, n_ann, k = coded.shape
    follow = (spam[:, :1] * theta).ravel()  # P(label y | w follows a strategy), per pair
    own = follow + np.repeat(spam[:, 1], k)  # P(label y | the true class is y)
    with np.errstate(divide="ignore"):
        log_follow, log_gain = np.log(follow), np.log(own) - np.log(follow)
    # log prod_rows P(label | true class L): log(follow) on every row, + gain where L = y
    row_class = coded.item * k + coded.label
    base = np.bincount(coded.item, log_follow[pair], minlength=n_items)
    gain = np.bincount(row_class, log_gain[pair], minlength=n_items * k)
    gold = np.exp(base[:, None] + gain.reshape(n_items, k)) / k
    inst = gold.sum(axis=1)
    own_share = np.bincount(pair, gold.ravel()[row_class] / inst[coded.item], minlength=n_ann * k)
    # a label is strategy-driven unless its class is the true one and w knew it
    strategy = n_pair - own_share + follow / own * own_share
    knowing = np.repeat(spam[:, 1], k) / own * own_share
    counts = np.stack(
        [strategy.reshape(n_ann, k).sum(axis=1), knowing.reshape(n_ann, k).sum(axis=1)], axis=1
    )
    return gold, strategy.reshape(n_ann, k), counts


def _vb_normalise(x: np.ndarray, prior: np.ndarray | float) -> np.ndarray:
    from scipy.special import digamma

    norm = np.exp(digamma((x + prior).sum(axis=1)))[:, None]
    out = np.zeros_like(x)
    np.divide(np.exp(digamma(x + prior)), norm, out=out, where=~np.isclose(norm, 0))
    return out


def _em_normalise(x: np.ndarray, smoothing: float) -> np.ndarray:
    norm = (x + smoothing).sum(axis=1)[:, None]
    out = np.zeros_like(x)
    np.divide(x + smoothing, norm, out=out, where=~np.isclose(norm, 0))
    return out


def mace(
    coded: Coded,
    n_iter: int = 50,
    *,
    method: str = "vb",
    alpha: float = 0.5,
    beta: float = 0.5,
    seed: int = 0,
    init: tuple[np.ndarray, np.ndarray] | None = None,
) -> Aggregation:
    """MACE (crowd-kit's ``MACE``; its restarts all start from the same seed, so one run
    gives the same result). ``init``: (spam/know, strategy) rows in sorted annotator and
    class order, else :func:`mace_init`."""
    _, n_ann, k = coded.shape
    spam, theta = init if init is not None else mace_init(n_ann, k, seed)
    priors = np.array([alpha, beta])
    pair = coded.annotator * k + coded.label
    n_pair = np.bincount(pair, minlength=n_ann * k).astype(float)
    gold, strategy_counts, counts = _mace_expectations(coded, pair, n_pair, spam, theta)
    for _ in range(n_iter):
        if method == "vb":
            spam, theta = _vb_normalise(counts, priors), _vb_normalise(strategy_counts, 10.0)
        else:
            smoothing = 0.01 / k
            spam = _em_normalise(counts, smoothing)
            theta = _em_normalise(strategy_counts, smoothing)
        gold, strategy_counts, counts = _mace_expectations(coded, pair, n_pair, spam, theta)
    probas = gold / gold.sum(axis=1, keepdims=True)
    return _from_posteriors("mace", coded, probas, spam[:, 1], n_iter)


def aggregate(frame: pd.DataFrame, method: str = "majority", **options: Any) -> Aggregation:
    """Aggregate the labels of one field (item_id, annotator, value) with ``method``."""
    if method not in METHODS:
        raise ValueError(f"unknown aggregation method {method!r}: use {', '.join(METHODS)}")
    coded = encode(frame)
    if not len(coded.item):
        empty = np.empty((0, 0))
        return Aggregation(method, coded.items, coded.classes, [], empty, {})
    if method == "majority":
        return majority_vote(coded)
    if method == "dawid_skene":
        return dawid_skene(coded, **options)
    return mace(coded, **options)
