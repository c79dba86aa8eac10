"""The bootstrap reads its draw counts a chunk of resamples at a time, with the values of
one (B, n) matrix.

Above ``DENSE_BYTES`` the counts are stored as small unsigned integers in chunks of
``CHUNK_BYTES`` and each statistic converts one chunk at a time (100,000 items x 1,000
resamples: 100 MB stored instead of 800 MB). Here both limits are made tiny, so a few
thousand items are split into chunks, and every statistic must give the same floats
(``==``) as with the whole matrix; in the demo projects' agreement documents no
statistic may ask for the whole (n, B) matrix. (The byte-for-byte check of a whole
document in chunks is ``bench/agreement.py --chunk-check``: a 10,000-item project.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest

import agreement.bootstrap as bootstrap
import agreement.correlation as correlation
from agreement.bootstrap import Draws, draw_counts, draws
from agreement.chance import WEIGHTS, agreement_weights, parts_many
from agreement.kappa import fleiss_from_table
from agreement.pairwise import _resampled_pairs
from tests.support.golden import GOLDEN, PROJECTS, agreement_json, normalised

#: Items and resamples of the equality tests: chunks of 200 resamples, as large a product
#: per chunk as a 100,000-item project's (rows x n above a million; OpenBLAS takes
#: another kernel for products below that size, whose last bits may differ).
N, B, ROWS = 5000, 600, 200


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> int:
    """Chunks of ``ROWS`` resamples for ``N`` items (the whole matrix would be one)."""
    monkeypatch.setattr(bootstrap, "DENSE_BYTES", 0)
    monkeypatch.setattr(bootstrap, "CHUNK_BYTES", ROWS * N * 8)
    bootstrap.clear_cache()
    yield ROWS
    bootstrap.clear_cache()


def _whole(n: int, b: int, seed: int) -> np.ndarray:
    """(B, n) counts from one ``integers`` call, as the bootstrap has always drawn them,
    in the layout it has always handed out: the transpose of a C-contiguous (n, B)."""
    idx = np.random.default_rng(seed).integers(0, n, size=(b, n), dtype=np.int64)
    counts = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(float)
    return np.ascontiguousarray(counts.T).T


def test_chunks_hold_the_counts_of_one_matrix_in_one_byte(small_chunks: int) -> None:
    d = draws(N, B - 50, 7)
    assert [c.shape for c in d.chunks] == [(N, ROWS)] * 2 + [(N, 150)]
    assert {c.dtype for c in d.chunks} == {np.dtype(np.uint8)}
    assert d.nbytes == N * (B - 50)  # one byte a count, not eight
    np.testing.assert_array_equal(d.matrix_t().T, _whole(N, B - 50, 7))
    np.testing.assert_array_equal(draw_counts(N, B - 50, 7), _whole(N, B - 50, 7))
    rows = [w_t.shape[1] for _, w_t in d.chunks_t()]
    assert rows == [ROWS, ROWS, 150]


def test_small_draws_stay_one_float_matrix() -> None:
    bootstrap.clear_cache()
    d = draws(300, 100, 7)
    assert len(d.chunks) == 1 and d.chunks[0].dtype == np.float64
    assert d.matrix_t() is d.chunks[0]  # no copy


def test_a_count_above_255_is_kept_in_two_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert [bootstrap.count_dtype(c) for c in (1, 255, 256, 70_000)] == [
        np.uint8,
        np.uint8,
        np.uint16,
        np.uint32,
    ]
    monkeypatch.setattr(bootstrap, "DENSE_BYTES", 0)
    monkeypatch.setattr(bootstrap, "count_dtype", lambda _: np.dtype(np.uint16))
    bootstrap.clear_cache()
    d = draws(400, 5, 0)
    assert d.chunks[0].dtype == np.uint16
    np.testing.assert_array_equal(d.matrix_t().T, _whole(400, 5, 0))
    bootstrap.clear_cache()


def test_products_and_group_sums_equal_the_whole_matrix(small_chunks: int) -> None:
    rng = np.random.default_rng(1)
    w = _whole(N, B, 7)
    d = draws(N, B, 7)
    assert len(d.chunks) == B // ROWS
    values = rng.normal(size=(N, 9)) / 7  # not integers: the sums are rounded
    np.testing.assert_array_equal(d.product(values), w @ values)
    np.testing.assert_array_equal(d.product(values[:, 0]), w @ values[:, 0])
    codes = rng.integers(0, 11, N)
    expected = bootstrap.group_sums(np.ascontiguousarray(w.T), codes, 11)
    np.testing.assert_array_equal(d.group_sums(codes, 11), expected)


@pytest.mark.parametrize("force_merge", [False, True])
def test_correlations_equal_the_whole_matrix(small_chunks, force_merge, monkeypatch) -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 400, N) / 7
    y = np.round(x + rng.normal(0, 9, N), 1)
    if force_merge:
        monkeypatch.setattr(correlation, "TABLE_MAX_CELLS", 0)
        assert len(np.unique(x)) * len(np.unique(y)) > 2 * N  # the merge-sort path
    chunked = correlation.resampled_correlations(x, y, draws(N, B, 7))
    whole = correlation.resampled_correlations(x, y, _whole(N, B, 7))
    for a, b in zip(chunked, whole, strict=True):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(whole[0]).all()


def test_people_statistics_equal_the_whole_matrix(small_chunks: int) -> None:
    rng = np.random.default_rng(3)
    counts = np.stack([np.bincount(rng.integers(0, 4, 5), minlength=4) for _ in range(N)])
    w, d = _whole(N, B, 7), draws(N, B, 7)
    np.testing.assert_array_equal(fleiss_from_table(counts, d), fleiss_from_table(counts, w))
    w_cats = [agreement_weights(np.arange(4.0), k) for k in WEIGHTS]
    for (pa_d, pi_d), (pa_w, pi_w) in zip(
        parts_many(counts, w_cats, d), parts_many(counts, w_cats, w), strict=True
    ):
        np.testing.assert_array_equal(pa_d, pa_w)
        np.testing.assert_array_equal(pi_d, pi_w)
    values = rng.normal(size=(N, 4))
    values[rng.random((N, 4)) < 0.2] = np.nan
    np.testing.assert_array_equal(_resampled_pairs(values, d), _resampled_pairs(values, w))


def _numbers_close(got: object, want: object) -> bool:
    """The same JSON document, floats within 1e-12 (tiny chunks take another
    BLAS kernel, see ``N``), everything else exactly."""
    if isinstance(want, float) and isinstance(got, float):
        return got == pytest.approx(want, rel=1e-12, abs=1e-12)
    if isinstance(want, dict) and isinstance(got, dict):
        return list(got) == list(want) and all(_numbers_close(got[k], want[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(map(_numbers_close, got, want))
    return got == want


@pytest.mark.parametrize("project", PROJECTS)
def test_document_reads_the_draws_a_resample_at_a_time(demo, project, monkeypatch) -> None:
    """With chunks of one resample, every statistic of the demo documents reads the draws
    chunk by chunk (no array of more than one resample's counts, none asks for the whole
    (n, B) matrix) and gives the golden document's figures."""
    monkeypatch.setattr(bootstrap, "DENSE_BYTES", 0)
    monkeypatch.setattr(bootstrap, "CHUNK_BYTES", 1)
    bootstrap.clear_cache()

    def refuse(self: Draws) -> np.ndarray:
        raise AssertionError("a statistic asked for the whole (n, B) matrix")

    widest = []
    chunks_t = Draws.chunks_t

    def watched(self: Draws) -> Iterator[tuple[slice, np.ndarray]]:
        for part, w_t in chunks_t(self):
            widest.append(w_t.shape[1])
            yield part, w_t

    monkeypatch.setattr(Draws, "matrix_t", refuse)
    monkeypatch.setattr(Draws, "chunks_t", watched)
    try:
        got = json.loads(normalised(agreement_json(demo, project)))
    finally:
        bootstrap.clear_cache()
    assert widest and max(widest) == 1
    assert _numbers_close(got, json.loads((GOLDEN / f"{project}.json").read_text()))
