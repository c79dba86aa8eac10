"""Benchmark: a big project (100,000 items, 3 annotators) on SQLite.

Writes 10,000 and ``--rows`` items of the binary kind as JSONL and as Parquet, imports
each file with ``cli.py import items`` in its own process and prints the wall time and
the peak resident memory of that process (its ``VmHWM``): the two sizes' peaks should be
about the same (the import streams the file). Then times reading one page of 50 items at
the start, the middle and the end (``Store.items_page``, as the Data page does); stores 3
annotators' labels on every item (``Store.import_labels``: wall time and how far it raises
the peak resident memory) and times ``agreement NAME --json`` in-process (wall and CPU).
Targets (issue #11): agreement under 10 s. Wall times are noisy on a shared machine: run it more than once and read the CPU figures too.

    .venv/bin/python bench/big_project.py [--rows 100000] [--quick] [--imports-only]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from annotation_store import Store

ROOT = Path(__file__).resolve().parents[1]
#: The small import whose peak memory the big one is compared with.
SMALL = 10_000


def write_files(folder: Path, rows: int) -> dict[str, Path]:
    """The same items as JSONL and as Parquet."""
    frame = pd.DataFrame(
        {
            "item_id": [f"i{i:06d}" for i in range(rows)],
            "text": [
                f"Item {i}: a sentence long enough to look like real text." for i in range(rows)
            ],
            "split": np.where(np.arange(rows) % 10 == 0, "dev", "test"),
        }
    )
    jsonl, parquet = folder / "items.jsonl", folder / "items.parquet"
    folder.mkdir(exist_ok=True)
    frame.to_json(jsonl, orient="records", lines=True)
    frame.to_parquet(parquet, index=False)
    return {"jsonl": jsonl, "parquet": parquet}


#: Run in the child: ``cli.py import items``, then print the process's peak RSS in MiB
#: (``VmHWM``; ``ru_maxrss`` from ``wait4`` would also count this process's memory, which
#: the child shares until it ``exec``s).
CHILD = """
import contextlib, io, sys
from pathlib import Path
from cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(["--db", sys.argv[1], "import", "items", sys.argv[2], sys.argv[3]])
status = Path("/proc/self/status").read_text().splitlines()
peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
print(peak / 1024)
sys.exit(code)
"""


def timed_import(url: str, project: str, path: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one ``cli.py import items`` process."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, url, project, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"import of {path.name} failed: {proc.stderr.strip()[-500:]}")
    return elapsed, float(proc.stdout.strip().splitlines()[-1])


def time_pages(store: Store, project: str, rows: int, repeats: int = 10) -> dict[str, float]:
    """Median ms to read a page of 50 at the start, the middle and the end."""
    out = {}
    for where, offset in (("first", 0), ("middle", rows // 2), ("last", max(0, rows - 50))):
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            page = store.items_page(project, offset, 50)
            samples.append(time.perf_counter() - start)
        assert page and page[0].item_id == f"i{offset:06d}"
        out[where] = statistics.median(samples) * 1000
    return out


def _status_kib(key: str) -> int:
    """One memory figure (kB) of this process from /proc/self/status."""
    lines = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in lines if line.startswith(key))


def add_labels(store: Store, project: str, rows: int, seed: int = 0) -> tuple[float, float]:
    """Three annotators' submitted labels on every item; returns the seconds it took and
    how far (MiB) the import raised the process's resident memory above where it began."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, rows)
    labels = []
    for a in range(3):
        flip = rng.random(rows) < 0.1 + 0.05 * a
        values = np.where(flip, 1 - truth, truth)
        labels += [
            {
                "item_id": f"i{i:06d}",
                "annotator": f"ann{a}",
                "field": "label",
                "value": int(values[i]),
                "status": "submitted",
            }
            for i in range(rows)
        ]
    Path("/proc/self/clear_refs").write_text("5")  # restart VmHWM from the current RSS
    before = _status_kib("VmRSS")
    start = time.perf_counter()
    store.import_labels(project, labels)
    elapsed = time.perf_counter() - start
    return elapsed, (_status_kib("VmHWM") - before) / 1024


def time_agreement(url: str, project: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``cli.py agreement NAME --json`` in this process."""
    from cli import main

    buf = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(buf):
        code = main(["--db", url, "agreement", project, "--json"])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert code == 0 and json.loads(buf.getvalue())
    return elapsed, cpu


def import_sizes(folder: Path, url: str, store: Store, sizes: list[int]) -> None:
    """Import each size as JSONL and as Parquet; print wall time and peak RSS."""
    for rows in sizes:
        files = write_files(folder / f"n{rows}", rows)
        for fmt, path in files.items():
            store.create_project(f"big-{fmt}-{rows}", "binary", {"k": 3})
            wall, rss = timed_import(url, f"big-{fmt}-{rows}", path)
            size = path.stat().st_size / 2**20
            print(
                f"import {rows:,} items from {fmt:<7} ({size:.1f} MiB): {wall:.1f} s, "
                f"{rows / wall:,.0f} rows/s, peak RSS {rss:.0f} MiB",
                flush=True,
            )


def main() -> None:
    """Build, import, page, label, agree; print one line per figure."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="20,000 items")
    ap.add_argument("--imports-only", action="store_true", help="stop after the imports")
    args = ap.parse_args()
    rows = 20_000 if args.quick else args.rows
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'big.db'}"
        store = Store(url)
        import_sizes(folder, url, store, sorted({min(SMALL, rows), rows}))
        project = f"big-jsonl-{rows}"
        if args.imports_only:
            return
        pages = time_pages(store, project, rows)
        print(
            "page of 50 items (median ms): " + ", ".join(f"{k} {v:.1f}" for k, v in pages.items()),
            flush=True,
        )
        label_s, label_mib = add_labels(store, project, rows)
        print(
            f"store {3 * rows:,} labels: {label_s:.1f} s, peak RSS +{label_mib:.0f} MiB",
            flush=True,
        )
        store.close()
        wall, cpu = time_agreement(url, project)
        ok = "meets" if wall < 10 else "misses"
        print(
            f"agreement on {rows:,} items x 3 annotators: {wall:.1f} s wall, {cpu:.1f} s CPU "
            f"({ok} < 10 s)"
        )
    load = os.getloadavg()
    print(f"load average: {load[0]:.1f} / {load[1]:.1f} ({os.cpu_count()} CPUs); noisy figures")


if __name__ == "__main__":
    main()
