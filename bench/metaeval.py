"""Benchmark: ``metaeval`` on 14 systems x 100 groups x 10 evaluators, 1,000 resamples.

Builds (once, cached under /tmp) a SQLite project of the intent-resolution kind: 100
inputs each answered by 14 systems (1,400 items), three annotators per item, ten
evaluators of different quality (some closer to the items, some to the systems). Then it
times whole processes as a user runs them, ``python cli.py metaeval bench-metaeval
--field resolution --group input --resamples 1000 --json`` (imports included): wall and
CPU time (user + system, from ``wait4``) of each, their medians, and the machine's load
average before and after (on a shared machine wall time follows the load; CPU time much
less).

    .venv/bin/python bench/metaeval.py [--repeats 3] [--db sqlite:////tmp/metaeval-bench.db]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PROJECT = "bench-metaeval"
SYSTEMS, GROUPS, EVALUATORS = 14, 100, 10
LEVELS = np.array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def build(url: str) -> None:
    """Create the project unless the database already has it."""
    from annotation_store import Store
    from annotation_store.importing import import_annotations, import_items, import_scores

    store = Store(url)
    if PROJECT in {p.name for p in store.projects()}:
        return
    rng = np.random.default_rng(7)
    quality = rng.normal(0, 0.12, SYSTEMS)
    difficulty = rng.normal(0, 0.15, GROUPS)
    truth = np.clip(
        0.5 + quality[:, None] + difficulty[None, :] + rng.normal(0, 0.15, (SYSTEMS, GROUPS)), 0, 1
    )
    store.create_project(PROJECT, "intent_resolution", {"k": 3})
    with tempfile.TemporaryDirectory() as tmp:
        items, labels, scores = (
            [],
            ["item_id,annotator,field,value"],
            ["item_id,evaluator,field,value"],
        )
        for s in range(SYSTEMS):
            for g in range(GROUPS):
                iid = f"s{s:02d}-g{g:03d}"
                items.append(
                    {
                        "item_id": iid,
                        "query": f"question {g}",
                        "response": f"answer {iid}",
                        "generator": f"system-{s:02d}",
                        "input": f"g{g:03d}",
                    }
                )
                for a in range(3):
                    v = LEVELS[np.abs(LEVELS - (truth[s, g] + rng.normal(0, 0.1))).argmin()]
                    labels.append(f"{iid},annotator-{a},resolution,{v}")
                for e in range(EVALUATORS):
                    # even evaluators follow items, odd ones lean on the system's quality
                    noise = rng.normal(0, 0.05 + 0.03 * e)
                    lean = 0.5 * quality[s] if e % 2 else 0.0
                    scores.append(
                        f"{iid},metric-{e},resolution,{float(truth[s, g] + lean + noise)!r}"
                    )
        (Path(tmp) / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
        (Path(tmp) / "labels.csv").write_text("\n".join(labels) + "\n")
        (Path(tmp) / "scores.csv").write_text("\n".join(scores) + "\n")
        import_items(store, PROJECT, Path(tmp) / "items.jsonl")
        import_annotations(store, PROJECT, Path(tmp) / "labels.csv")
        import_scores(store, PROJECT, Path(tmp) / "scores.csv")
    store.close()


def run_once(url: str, resamples: int) -> tuple[float, float]:
    """(wall, cpu) seconds of one whole ``cli.py metaeval`` process."""
    cmd = [
        sys.executable,
        str(ROOT / "cli.py"),
        "--db",
        url,
        "metaeval",
        PROJECT,
        "--field",
        "resolution",
        "--group",
        "input",
        "--resamples",
        str(resamples),
        "--json",
    ]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"metaeval failed with status {status}")
        out.seek(0)
        doc = json.load(out)
    # a cached database from elsewhere may hold the project without its scores
    if len(doc["comparisons"]) < EVALUATORS * (EVALUATORS - 1) // 2:
        raise SystemExit(f"{url} holds {PROJECT} without the ten evaluators' scores: rebuild it")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="sqlite:////tmp/metaeval-bench.db")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    build(args.db)
    before = os.getloadavg()[0]
    runs = [run_once(args.db, args.resamples) for _ in range(args.repeats)]
    after = os.getloadavg()[0]
    for k, (wall, cpu) in enumerate(runs, 1):
        print(f"run {k}: wall {wall:.2f} s, cpu {cpu:.2f} s")
    print(
        f"median wall {statistics.median(r[0] for r in runs):.2f} s, "
        f"median cpu {statistics.median(r[1] for r in runs):.2f} s "
        f"({SYSTEMS} systems x {GROUPS} groups x {EVALUATORS} evaluators, "
        f"{args.resamples} resamples; load {before:.1f} -> {after:.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
