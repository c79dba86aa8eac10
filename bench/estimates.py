"""Benchmark: ``cli.py estimate`` on 2,000 judged items, 150 of them labelled by people.

Builds the project (two systems, one imported judge, three annotators per labelled item)
in a temporary SQLite file, then runs ``python cli.py estimate ... --by generator`` as a
fresh process a few times and prints the median wall and CPU time against the 3 s target
of issue 29, with the load average (wall time is noisy on a shared machine).

    .venv/bin/python bench/estimates.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET_S = 3.0


def main() -> None:
    """Build the project, time the command, print the figures."""
    import workbench_api as wb
    from tests.support.estimates_project import build

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store = wb.open_store(url)
        build(store, "bench", n_items=2000, n_labelled=150, annotators=3)
        store.close()
        argv = [
            sys.executable,
            "cli.py",
            "--db",
            url,
            "estimate",
            "bench",
            "--field",
            "label",
            "--evaluator",
            "toyjudge",
            "--by",
            "generator",
        ]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
        out = subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
        print(out.stdout)
        walls, cpus = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(
        f"estimate, 2000 judged / 150 labelled items: median wall {wall:.2f} s, "
        f"CPU {cpu:.2f} s over {args.runs} runs (target {TARGET_S:.0f} s; "
        f"load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
