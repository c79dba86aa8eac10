"""The meta-evaluation on several processes gives the document one process gives, and the
byte-table permutation sums equal the plain products."""

from __future__ import annotations

import numpy as np
import pytest

from agreement.metaeval import compare, parallel
from agreement.metaeval.document import meta_evaluate
from agreement.metaeval.grid import Grid

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="needs fork")


def _grid() -> Grid:
    rng = np.random.default_rng(5)
    systems, groups = 6, 9
    truth = rng.normal(0, 1, (systems, groups))
    people = np.round(truth * 2) / 2  # ties among people's values
    evaluators = {f"m{e}": truth + rng.normal(0, 0.3 + 0.2 * e, truth.shape) for e in range(4)}
    partial = evaluators["m3"].copy()
    partial[0, :2] = np.nan  # other items: its pairs are not tested
    evaluators["m3"] = partial
    annotators = {a: people + rng.normal(0, 0.4, people.shape) for a in ("p1", "p2", "p3")}
    return Grid(
        "f",
        "generator",
        "input",
        tuple(f"s{s}" for s in range(systems)),
        tuple(f"g{g}" for g in range(groups)),
        people,
        evaluators,
        annotators,
    )


@pytest.mark.parametrize("statistics", [None, ("kendall_b", "soft_pairwise_accuracy")])
def test_two_processes_give_the_same_document(statistics) -> None:
    grid = _grid()
    one = meta_evaluate(grid, n_resamples=60, seed=3, statistics=statistics).to_dict()
    two = meta_evaluate(grid, n_resamples=60, seed=3, statistics=statistics, workers=2).to_dict()
    assert one == two
    tested = [c for c in one["comparisons"] if c["test"] == "permutation" and c["p"] is not None]
    assert len(tested) >= 3  # the comparison took place, not only the untestable pairs
    assert any("different items" in (c["reason"] or "") for c in one["comparisons"])


def test_run_all_keeps_the_order() -> None:
    assert parallel.run_all(abs, [-3, 2, -1, 0], 2) == [3, 2, 1, 0]
    assert parallel.run_all(abs, [-3], 2) == [3]
    assert 1 <= parallel.default_workers() <= 2


@pytest.mark.parametrize("n", [1, 8, 13, 4001])
def test_swapped_sums_are_the_mask_products(n: int) -> None:
    moves = np.random.default_rng(n).normal(size=n)
    plain = compare._swaps(n, 200, 9).astype(float) @ moves
    assert np.allclose(compare._swapped_sums(moves, 200, 9), plain, rtol=0, atol=1e-12)
    assert plain.std() > 0


@pytest.mark.skipif(
    not __import__("platform").libc_ver()[0] == "glibc", reason="glibc's mallopt only"
)
def test_keep_freed_memory_takes_on_glibc() -> None:
    from common.heap import keep_freed_memory

    assert keep_freed_memory() is True


def test_cli_workers_print_the_same_document(store, sqlite_url: str, tmp_path, capsys) -> None:
    import json

    from cli import main
    from tests.test_metaeval import _project

    _project(store, tmp_path)
    args = ["--db", sqlite_url, "metaeval", "me", "--field", "resolution", "--json"]
    outputs = []
    for workers in ("1", "2", "0"):
        assert main([*args, "--group", "input", "--resamples", "80", "--workers", workers]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert json.loads(outputs[0])["comparisons"]


def test_swapped_block_sums_are_the_mask_products() -> None:
    rng = np.random.default_rng(8)
    sizes = [3, 1, 0, 12, 2, 30, 5]  # blocks within a byte, across bytes, one empty
    codes = np.repeat(np.arange(len(sizes)), sizes)
    moves = rng.normal(size=len(codes))
    onehot = np.zeros((len(codes), len(sizes)))
    onehot[np.arange(len(codes)), codes] = 1.0
    plain = compare._swaps(len(codes), 300, 4).astype(float) @ (moves[:, None] * onehot)
    got = compare._swapped_block_sums(moves, codes, len(sizes), 300, 4)
    assert np.allclose(got, plain, rtol=0, atol=1e-12)
    assert not got[:, 2].any() and got[:, 5].std() > 0


@pytest.mark.parametrize(("load", "expected"), [(0.2, 2), (1.4, 2), (1.6, 1), (7.0, 1)])
def test_a_second_process_only_where_a_cpu_is_idle(
    monkeypatch: pytest.MonkeyPatch, load: float, expected: int
) -> None:
    from agreement.metaeval import parallel

    monkeypatch.setattr(parallel, "default_workers", lambda limit=2: 2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert parallel.idle_workers() == expected


def test_one_process_where_only_one_cpu_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    from agreement.metaeval import parallel

    monkeypatch.setattr(parallel, "default_workers", lambda limit=2: 1)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert parallel.idle_workers() == 1


def test_one_process_beside_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from agreement.metaeval import parallel

    monkeypatch.setattr(parallel, "default_workers", lambda limit=2: 2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.idle_workers() == 1
    finally:
        stop.set()
        other.join()
