"""How long ``make run``'s demo load takes into a fresh SQLite file, and the part of it
the judge study's crowd study adds. Prints figures with the machine load (no assertion).

Usage: python bench/demo_load.py [REPEATS]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench_api.demo as demo
from annotation_store import Store
from demo.crowd_study import load_crowd_study


def _load(with_crowd: bool) -> tuple[float, float]:
    """Seconds for the whole load, and for the crowd study alone."""
    spent = {"crowd": 0.0}

    def timed(store: Store, project: str) -> list[str]:
        start = time.perf_counter()
        names = load_crowd_study(store, project) if with_crowd else []
        spent["crowd"] = time.perf_counter() - start
        return names

    demo.load_crowd_study = timed
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{tmp}/demo.db")
        start = time.perf_counter()
        demo.load_all(store)
        total = time.perf_counter() - start
        store.close()
    return total, spent["crowd"]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    for with_crowd in (False, True):
        runs = [_load(with_crowd) for _ in range(repeats)]
        totals = sorted(t for t, _ in runs)
        crowd = sorted(c for _, c in runs)
        print(
            f"{'with' if with_crowd else 'without'} the crowd study: demo load median "
            f"{totals[len(totals) // 2]:.2f} s, crowd part median {crowd[len(crowd) // 2]:.2f} s"
        )
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) after")


if __name__ == "__main__":
    main()
