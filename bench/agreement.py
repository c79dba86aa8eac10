"""Benchmark: ``agreement --json`` on 10,000 items x 5 annotators x 3 fields x 4 evaluators.

Builds (once, cached under /tmp) a SQLite project of the actionability kind (three ordinal
rubric fields, 0-2 / 0-2 / 0-3) with realistic noise: a latent quality per item, each
annotator with a bias and noise; four evaluators scoring the three fields with their own
leniency and noise, two of them run twice. Then it times the full command through the
same code path as the CLI (``commands.main``) with 1,000 bootstrap resamples, and the
side panel's refresh on a cached data version. Each in-process run starts with empty
bootstrap caches (as a fresh CLI process would) and is reported as wall and CPU time;
wall time is noisy on a shared machine, CPU time much less so. Finally it times one
fresh ``python cli.py agreement`` process (as often as the in-process runs), imports
included.

``--process`` times whole processes only, as a user runs the command: ``--repeats`` fresh
``python cli.py agreement bench --json`` processes (default 3), each one's wall and CPU
time (user + system, from ``wait4``), their medians, and the machine's load average
before and after (on a shared machine wall time follows the load; CPU time much less).
``--baseline DIR`` alternates them with another checkout's processes (before/after).

``--memory`` prints each fresh process's peak resident memory (``ru_maxrss`` from
``wait4``) beside its CPU time and the load (issue #47: under 1 GB at 100,000 items).
``--chunk-check`` runs the command once as is and once with the bootstrap's draw counts
forced into chunks of 128 resamples (as above 128 MB of counts), and compares the two
JSON documents byte for byte.

    .venv/bin/python bench/agreement.py [--items 10000] [--db sqlite:////tmp/x.db]
        [--process [--baseline DIR]]   # DIR: another checkout, e.g. git worktree add /tmp/base main
        [--memory] [--chunk-check]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agreement.bootstrap import clear_cache
from annotation_store import Store
from commands import main

ROOT = Path(__file__).resolve().parents[1]

PROJECT = "bench"
FIELDS = (("errors_detected", 2), ("errors_corrected", 2), ("sources", 3))
EVALUATORS = (
    ("geval", "gpt-4", 0.8, 0.6, 2),
    ("prometheus", "mistral", 0.3, 0.5, 2),
    ("fingract", "gpt-4", 0.0, 0.35, 1),
    ("lexical", None, -0.2, 0.9, 1),
)
GENERATORS = ("gpt-4", "mistral", "llama", "human")


def build(url: str, n_items: int, n_annotators: int = 5, seed: int = 0) -> None:
    """Create the benchmark project (skipped when it already has the right size)."""
    store = Store(url)
    try:
        if any(p.name == PROJECT for p in store.projects()):
            if store.item_count(PROJECT) == n_items:
                return
            store.delete_project(PROJECT)
        rng = np.random.default_rng(seed)
        store.create_project(PROJECT, "actionability")
        gens = rng.choice(GENERATORS, n_items)
        splits = np.where(rng.random(n_items) < 0.1, "dev", "test")
        store.upsert_items(
            PROJECT,
            [
                {
                    "item_id": f"i{i:05d}",
                    "split": str(splits[i]),
                    "generator": str(gens[i]),
                    "fields": {
                        "claim": "c",
                        "evidence": "e",
                        "label": "false",
                        "explanation": "x",
                        "generator": str(gens[i]),
                    },
                }
                for i in range(n_items)
            ],
        )
        quality = rng.random(n_items)
        labels = []
        for a in range(n_annotators):
            bias, noise = rng.normal(0, 0.05), 0.12 + 0.04 * a
            for name, top in FIELDS:
                v = np.clip(
                    np.round((quality + bias + rng.normal(0, noise, n_items)) * top), 0, top
                )
                labels += [
                    {
                        "item_id": f"i{i:05d}",
                        "annotator": f"ann{a}",
                        "field": name,
                        "value": int(v[i]),
                        "status": "submitted",
                    }
                    for i in range(n_items)
                ]
        store.import_labels(PROJECT, labels)
        scores = []
        for ev, model, leniency, noise, runs in EVALUATORS:
            own = (gens == model) * 0.5 if model else 0
            for run in range(runs):
                for name, top in FIELDS:
                    v = np.clip(
                        np.round(
                            (quality + (leniency + own) / 5 + rng.normal(0, noise / 3, n_items))
                            * top
                        ),
                        0,
                        top,
                    )
                    scores += [
                        {
                            "item_id": f"i{i:05d}",
                            "evaluator": ev,
                            "field": name,
                            "value": float(v[i]),
                            "judge_model": model,
                            "run": run,
                        }
                        for i in range(n_items)
                    ]
        store.import_scores(PROJECT, scores)
    finally:
        store.close()


def time_agreement(url: str, resamples: int) -> tuple[float, float, dict]:
    """Wall and CPU time of ``cli.py --db URL agreement bench --json`` run in-process."""
    clear_cache()
    buf = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(buf):
        code = main(["--db", url, "agreement", PROJECT, "--json", "--resamples", str(resamples)])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert code == 0
    return elapsed, cpu, json.loads(buf.getvalue())


#: A user's process: bytecode cached as for an installed package (this environment may
#: set PYTHONDONTWRITEBYTECODE, which would make every run compile the project anew).
PROCESS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_cli_process(url: str, resamples: int, root: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU time (user + system) of one fresh CLI process, imports included
    (``root``: the checkout whose ``cli.py`` runs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(root / "cli.py"), "--db", url, "agreement", PROJECT, "--json"]
        + ["--resamples", str(resamples)],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=root,
        env=PROCESS_ENV,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def process_memory(url: str, resamples: int, root: Path = ROOT) -> tuple[float, float, bytes]:
    """Peak resident memory (MB) and CPU time (user + system, s) of one fresh CLI process,
    and what it printed."""
    argv = [sys.executable, str(root / "cli.py"), "--db", url, "agreement", PROJECT, "--json"]
    proc = subprocess.Popen(
        argv + ["--resamples", str(resamples)],
        stdout=subprocess.PIPE,
        cwd=root,
        env=PROCESS_ENV,
    )
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"agreement ended with {proc.returncode}")
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, out


def memory_bench(url: str, resamples: int, repeats: int) -> None:
    """Peak RSS and CPU of ``repeats`` fresh processes, with the load before and after."""
    before = os.getloadavg()
    for i in range(1, repeats + 1):
        peak, cpu, _ = process_memory(url, resamples)
        print(f"  process {i}: peak RSS {peak:.0f} MB, {cpu:.2f} s CPU")
    after = os.getloadavg()
    print(f"load average {before[0]:.2f} before, {after[0]:.2f} after ({os.cpu_count()} CPUs)")


#: The CLI with the draw counts forced into chunks of 128 resamples (``--chunk-check``).
CHUNKED_CLI = (
    "import sys; import agreement.bootstrap as b; b.DENSE_BYTES = 0; "
    "b.CHUNK_BYTES = 128 * 8 * int(sys.argv.pop(1)); import runpy; "
    "sys.argv[0] = 'cli.py'; runpy.run_path('cli.py', run_name='__main__')"
)


def chunk_check(url: str, resamples: int, n_items: int) -> bool:
    """Whether the JSON document is byte-identical with the draws in chunks."""
    _, _, whole = process_memory(url, resamples)
    chunked = subprocess.run(
        [sys.executable, "-c", CHUNKED_CLI, str(n_items), "--db", url, "agreement", PROJECT]
        + ["--json", "--resamples", str(resamples)],
        check=True,
        capture_output=True,
        cwd=ROOT,
        # numpy is imported before cli.py would set this: set it as cli.py does
        env={"OPENBLAS_NUM_THREADS": "1", **PROCESS_ENV},
    ).stdout
    same = whole == chunked
    print(
        f"draws in chunks of 128 resamples: JSON {'byte-identical' if same else 'DIFFERS'} "
        f"({len(whole):,} bytes)"
    )
    return same


def time_panel(url: str, repeats: int = 20) -> tuple[float, float]:
    """Cold panel computation, and the median refresh on a cached data version."""
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    from ui.agreement_panel import cached_summary

    store = Store(url)
    try:
        start = time.perf_counter()
        cached_summary(store.url, PROJECT, store.data_version(PROJECT), None)
        cold = time.perf_counter() - start
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            cached_summary(store.url, PROJECT, store.data_version(PROJECT), None)
            times.append(time.perf_counter() - start)
        return cold, float(np.median(times))
    finally:
        store.close()


def process_bench(url: str, resamples: int, repeats: int, baseline: Path | None) -> None:
    """Whole ``agreement --json`` processes: each run, the medians and the load. With a
    ``baseline`` checkout, its process runs alternate with this one's, round by round,
    so both see the same load."""
    roots = {"this checkout": ROOT} | ({f"baseline {baseline}": baseline} if baseline else {})
    before = os.getloadavg()
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in roots}
    for root in roots.values():  # warm-up, not counted: bytecode and page caches
        time_cli_process(url, resamples, root)
    for i in range(1, repeats + 1):
        for name, root in roots.items():
            wall, cpu = time_cli_process(url, resamples, root)
            runs[name].append((wall, cpu))
            print(f"  round {i}, {name}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    after = os.getloadavg()
    for name, timed in runs.items():
        walls, cpus = [w for w, _ in timed], [c for _, c in timed]
        print(
            f"{name}: whole `python cli.py agreement {PROJECT} --json` process "
            f"({resamples} resamples, {repeats} runs): median {statistics.median(walls):.2f} s "
            f"wall (target < 3 s), median {statistics.median(cpus):.2f} s CPU"
        )
    print(f"load average {before[0]:.2f} before, {after[0]:.2f} after ({os.cpu_count()} CPUs)")


def main_bench() -> int:
    """Build, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--db", default="sqlite:////tmp/workbench-bench-agreement.db")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--process", action="store_true", help="time whole CLI processes only (3 runs, median)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="with --process: another checkout (e.g. main) whose cli.py runs alternate",
    )
    parser.add_argument(
        "--memory", action="store_true", help="peak RSS and CPU of fresh CLI processes"
    )
    parser.add_argument(
        "--chunk-check",
        action="store_true",
        help="compare the JSON with the bootstrap draws forced into chunks",
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    build(args.db, args.items)
    print(
        f"data: {args.items} items x 5 annotators x {len(FIELDS)} fields x "
        f"{len(EVALUATORS)} evaluators ({time.perf_counter() - t0:.1f} s to build/check)"
    )
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    if args.process:
        process_bench(args.db, args.resamples, args.repeats, args.baseline)
        return 0
    if args.memory or args.chunk_check:
        if args.memory:
            memory_bench(args.db, args.resamples, args.repeats)
        if args.chunk_check and not chunk_check(args.db, args.resamples, args.items):
            return 1
        return 0
    runs, cpus = [], []
    doc: dict = {}
    for _ in range(args.repeats):
        elapsed, cpu, doc = time_agreement(args.db, args.resamples)
        runs.append(elapsed)
        cpus.append(cpu)
    print(
        f"agreement --json ({args.resamples} resamples, in-process, first run pays imports): "
        + ", ".join(f"{t:.2f}" for t in runs)
        + f" s wall (best {min(runs):.2f} s; target < 3 s); CPU "
        + ", ".join(f"{t:.2f}" for t in cpus)
        + f" s (best {min(cpus):.2f} s)"
    )
    fresh = [time_cli_process(args.db, args.resamples) for _ in range(args.repeats)]
    walls = [w for w, _ in fresh]
    print(
        f"fresh `python cli.py agreement {PROJECT} --json` processes, imports included: "
        + ", ".join(f"{w:.2f}" for w in walls)
        + f" s wall (worst {max(walls):.2f} s; target < 3 s); CPU "
        + ", ".join(f"{c:.2f}" for _, c in fresh)
        + " s"
    )
    n_comparisons = sum(len(v) for v in doc["evaluators"].values())
    print(f"  {len(doc['fields'])} fields, {n_comparisons} evaluator x field comparisons")
    e = doc["evaluators"]["fingract"]["errors_detected"]
    print(
        f"  e.g. fingract/errors_detected: kendall {e['kendall']['r']:.3f} "
        f"CI {e['kendall']['ci']}, alpha(ordinal) "
        f"{doc['fields']['errors_detected']['krippendorff_alpha']['ordinal']:.3f}"
    )
    cold, warm = time_panel(args.db)
    print(
        f"side panel: cold {cold * 1000:.0f} ms; refresh on a cached data version "
        f"{warm * 1000:.1f} ms (median; target < 200 ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
