"""Benchmark: ``metaeval`` on 14 systems x 100 groups x 10 evaluators, 1,000 resamples.

Builds (once, cached under /tmp) a SQLite project of the intent-resolution kind: 100
inputs each answered by 14 systems (1,400 items), three annotators per item, ten
evaluators of different quality (some closer to the items, some to the systems). Then it
times whole processes as a user runs them, ``python cli.py metaeval bench-metaeval
--field resolution --group input --resamples 1000 --json`` (imports included): wall and
CPU time (user + system, from ``wait4``) of each, their medians, and the machine's load
average before and after (on a shared machine wall time follows the load; CPU time much
less).

    .venv/bin/python bench/metaeval.py [--repeats 3] [--resamples 1000] [--baseline ../main]
        [--db sqlite:////tmp/metaeval-bench.db] [--workers N]

``--baseline DIR`` alternates each run with the same process of another checkout, so both
see the same load (before/after). ``--workers N`` passes ``--workers`` to this
checkout's runs only (a baseline may not know the option).

Figures (CPU = user + system of the whole process, medians; details in
docs/performance.md, "metaeval at 14 x 100 x 10"). Branch metaspeed against main
(ed51bb2), alternating, on the shared 2-core machine: 3.47 s CPU against 5.07 s at load
4.6 -> 4.1 (5 rounds; wall 4.90 against 7.70 s), 2.87 s against 4.24 s at load 16.8 ->
12.1 (3 rounds; wall 3.01 against 4.35 s); with --resamples 0, 1.26 s against 1.72 s.
Same JSON. Under 2.5 s of CPU is not reached (about a third less CPU than before). --workers 2 cost ~1 s more CPU at load 4 and gained no wall time.
On a quiet machine (load 0.9-1.2): one process 3.21 s wall median, two 2.16 s; the default
(two when a CPU is idle) 2.18 s (2.03-2.89 s): under the 3 s target.
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
    from interop.importing import import_annotations, import_items, import_scores

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


def run_once(
    url: str, resamples: int, root: Path = ROOT, extra: tuple[str, ...] = ()
) -> tuple[float, float]:
    """(wall, cpu) seconds of one whole ``cli.py metaeval`` process of checkout ``root``
    (``extra``: more options, e.g. ``--workers 1``)."""
    cmd = [
        sys.executable,
        str(root / "cli.py"),
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
        *extra,
    ]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, cwd=root)
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
    ap.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. ../main): its processes alternate with this one's",
    )
    ap.add_argument(
        "--workers",
        type=int,
        help="this checkout's --workers (the baseline's own default: it may not know it)",
    )
    args = ap.parse_args()
    extra = ("--workers", str(args.workers)) if args.workers else ()
    build(args.db)
    roots = {"this checkout": ROOT} | (
        {f"baseline {args.baseline}": args.baseline.resolve()} if args.baseline else {}
    )
    before = os.getloadavg()[0]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in roots}
    for k in range(1, args.repeats + 1):
        for name, root in roots.items():
            wall, cpu = run_once(args.db, args.resamples, root, extra if root == ROOT else ())
            runs[name].append((wall, cpu))
            print(f"run {k}, {name}: wall {wall:.2f} s, cpu {cpu:.2f} s")
    after = os.getloadavg()[0]
    for name, timed in runs.items():
        print(
            f"{name}: median wall {statistics.median(r[0] for r in timed):.2f} s, "
            f"median cpu {statistics.median(r[1] for r in timed):.2f} s "
            f"({SYSTEMS} systems x {GROUPS} groups x {EVALUATORS} evaluators, "
            f"{args.resamples} resamples; load {before:.1f} -> {after:.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
