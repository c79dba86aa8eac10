"""The bootstrap's draw-count cache in a long-lived server (issue #47 point 4): only the
latest draws are kept as float64, the others one byte a count, and a draw asked for again
is the same float64 matrix as when it was first drawn."""

from __future__ import annotations

import numpy as np

from agreement import bootstrap


def test_only_the_latest_draws_are_kept_as_floats() -> None:
    bootstrap.clear_cache()
    try:
        first = bootstrap.draws(3000, 500, 7).matrix_t().copy()
        second = bootstrap.draws(2000, 500, 7).matrix_t().copy()
        held = bootstrap._CACHE
        assert list(held) == [(3000, 500, 7), (2000, 500, 7)]
        older, latest = held[(3000, 500, 7)], held[(2000, 500, 7)]
        assert older.chunks[0].dtype == np.uint8 and older.nbytes == 3000 * 500
        assert latest.chunks[0].dtype == np.float64 and latest.nbytes == 2000 * 500 * 8
        again = bootstrap.draws(3000, 500, 7)
        w_t = again.chunks[0]
        assert w_t.dtype == np.float64 and w_t.flags.c_contiguous and not w_t.flags.writeable
        assert np.array_equal(w_t, first)
        assert held[(2000, 500, 7)].chunks[0].dtype == np.uint8
        assert np.array_equal(bootstrap.draws(2000, 500, 7).matrix_t(), second)
        # the counts are those of a cold draw
        bootstrap.clear_cache()
        assert np.array_equal(bootstrap.draws(3000, 500, 7).matrix_t(), first)
    finally:
        bootstrap.clear_cache()


def test_zero_resamples_are_cached_without_chunks() -> None:
    bootstrap.clear_cache()
    try:
        assert len(bootstrap.draws(10, 0)) == 0
        bootstrap.draws(20, 5)
        assert len(bootstrap.draws(10, 0)) == 0
    finally:
        bootstrap.clear_cache()


def test_between_runs_the_latest_draws_are_compacted_too_and_come_back_the_same() -> None:
    bootstrap.clear_cache()
    try:
        first = bootstrap.draws(3000, 500, 7).matrix_t().copy()
        assert bootstrap.compact_cache() == 3000 * 500 * 7  # float64 -> one byte a count
        held = bootstrap._CACHE[(3000, 500, 7)]
        assert held.chunks[0].dtype == np.uint8
        assert bootstrap.compact_cache() == 0
        assert np.array_equal(bootstrap.draws(3000, 500, 7).matrix_t(), first)
        assert bootstrap._CACHE[(3000, 500, 7)].chunks[0].dtype == np.float64
    finally:
        bootstrap.clear_cache()


def test_prefetch_draws_once_and_keeps_them_one_byte_a_count() -> None:
    """The server draws a project's resamples ahead of its first analysis page; the page
    then gets the same draws as if it had drawn them itself."""
    from agreement import bootstrap

    n = 1237  # a size no other test draws
    assert bootstrap.prefetch(n, 50, seed=5) is True
    held = bootstrap._CACHE[(n, 50, 5)]
    assert held.chunks[0].dtype == np.uint8  # compact until a page asks
    assert bootstrap.prefetch(n, 50, seed=5) is False  # already there: nothing drawn
    fresh = np.random.default_rng(5).integers(0, n, size=(50, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in fresh]).T
    np.testing.assert_array_equal(bootstrap.draws(n, 50, seed=5).chunks[0], expected)
