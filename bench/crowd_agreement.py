"""Benchmark: agreement over a crowd batch shaped like a real MTurk one.

A Likert (1-5) project of 1,400 items, each rated by 5 of 283 workers (7,000 labels;
a few workers do hundreds of items, most a handful, as on MTurk), with pure-noise
ratings and platform work times (some workers answer in a few seconds). It times
``agreement PROJECT --json`` and the text output in-process (CPU and wall, output size,
longest line), the report's Markdown, and the Agreement page's script run (AppTest,
first visit computing the document, then repeated visits: ``bench/agreement_page.py``'s
``apptest_visits``), and prints one line each with the load average.
Targets (issue #39): ``--json`` under 2 s of CPU and 2 MB, no output or report line
over 10 KB, the Agreement page drawn in under 2 s.

    .venv/bin/python bench/crowd_agreement.py [--db sqlite:////tmp/crowd.db] [--workers 283]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation_store import Store

PROJECT = "crowd"


def crowd_batch(
    n_items: int = 1400, per_item: int = 5, n_workers: int = 283, seed: int = 0
) -> tuple[list[dict], list[dict]]:
    """(items, labels) of a synthetic crowd batch: workers drawn with a long-tailed
    share of the work, never twice on one item; ratings uniform 1-5; each label's
    ``seconds`` a platform work time (a third of the workers fast: 5-9 s)."""
    rng = np.random.default_rng(seed)
    share = rng.pareto(1.2, n_workers) + 0.05
    share /= share.sum()
    fast = rng.random(n_workers) < 0.2
    items = [{"item_id": f"h{i:04d}", "fields": {"text": f"summary {i}"}} for i in range(n_items)]
    labels = []
    for i in range(n_items):
        for w in rng.choice(n_workers, per_item, replace=False, p=share):
            seconds = rng.uniform(5, 9) if fast[w] else rng.uniform(40, 160)
            labels.append(
                {
                    "item_id": f"h{i:04d}",
                    "annotator": f"W{w:03d}",
                    "field": "label",
                    "value": int(rng.integers(1, 6)),
                    "status": "submitted",
                    "seconds": round(float(seconds), 1),
                }
            )
    return items, labels


def build(url: str, n_workers: int) -> None:
    """The crowd project in a new database at ``url``."""
    store = Store(url)
    store.create_project(PROJECT, "likert", {"k": 5})
    items, labels = crowd_batch(n_workers=n_workers)
    store.upsert_items(PROJECT, items)
    store.import_labels(PROJECT, [{k: v for k, v in r.items() if k != "seconds"} for r in labels])
    store.close()


def _run(argv: list[str]) -> tuple[float, float, str]:
    from commands import main

    out = io.StringIO()
    wall, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        main(argv)
    return time.perf_counter() - wall, time.process_time() - cpu, out.getvalue()


def _line(name: str, wall: float, cpu: float, text: str) -> str:
    longest = max((len(x) for x in text.splitlines()), default=0)
    return (
        f"{name:<22} wall {wall:6.2f} s  cpu {cpu:6.2f} s  size {len(text) / 1e6:6.2f} MB  "
        f"longest line {longest / 1e3:7.1f} KB"
    )


def main() -> None:
    """Build the batch, time the JSON and text outputs and the report, print lines."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="database URL (default: a new SQLite file)")
    ap.add_argument("--workers", type=int, default=283)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--visits", type=int, default=3, help="Agreement page visits")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'crowd.db'}"
        build(url, args.workers)
        common = ["--db", url, "agreement", PROJECT, "--resamples", str(args.resamples)]
        print(_line("agreement --json", *_run([*common, "--json"])), flush=True)
        print(_line("agreement (text)", *_run(common)), flush=True)
        report = Path(tmp) / "report.md"
        wall, cpu, _ = _run(["--db", url, "report", PROJECT, "--out", str(report)])
        print(_line("report (Markdown)", wall, cpu, report.read_text()), flush=True)
        from bench.agreement_page import apptest_visits

        times = apptest_visits(url, PROJECT, args.visits)
        print(
            f"Agreement page (AppTest) first {times[0]:.2f} s, then "
            + ", ".join(f"{t:.2f}" for t in times[1:])
            + " s",
            flush=True,
        )
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} / {load[1]:.1f} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
