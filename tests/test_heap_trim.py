"""common.heap.give_back_freed_memory: the app server's trim after a page's run."""

from __future__ import annotations

import threading

import pytest

from common import heap


class _Trim:
    """A stand-in for glibc's malloc_trim that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, pad: int) -> int:
        self.calls.append(pad)
        return 1


@pytest.fixture
def trim(monkeypatch: pytest.MonkeyPatch) -> _Trim:
    for thread in threading.enumerate():  # other tests' panel computations trim too
        if thread.name == "workbench-latest":
            thread.join(10)
    fake = _Trim()
    monkeypatch.setattr(heap, "_malloc_trim", lambda: fake)
    monkeypatch.setattr(heap, "_rss_after_trim", 0)
    return fake


def test_trims_only_after_the_process_grew(trim: _Trim, monkeypatch: pytest.MonkeyPatch) -> None:
    rss = [100 << 20]
    monkeypatch.setattr(heap, "resident_bytes", lambda: rss[0])
    assert heap.give_back_freed_memory(growth=32 << 20) is True  # 100 MB over 0: trim
    assert trim.calls == [0]
    rss[0] = 120 << 20
    assert heap.give_back_freed_memory(growth=32 << 20) is False  # 120 < 100 + 32
    rss[0] = 132 << 20
    assert heap.give_back_freed_memory(growth=32 << 20) is True  # 132 >= 100 + 32
    assert trim.calls == [0, 0]


def test_no_op_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    assert heap.give_back_freed_memory(growth=0) is False


def test_resident_bytes_reads_this_process() -> None:
    assert heap.resident_bytes() > 10 << 20  # an interpreter with pytest loaded


def test_real_trim_gives_memory_back() -> None:
    """On glibc, freed small blocks in the middle of the heap go back to the system."""
    if heap._malloc_trim() is None:
        pytest.skip("not glibc")
    blocks = [bytearray(20_000) for _ in range(10_000)]  # ~200 MB of heap blocks
    del blocks[::2]  # every other one freed: holes glibc keeps without a trim
    before = heap.resident_bytes()
    assert heap.give_back_freed_memory(growth=0) is True
    assert heap.resident_bytes() < before - (50 << 20)
    del blocks
