"""Whole ``cli.py evaluate`` processes against a keep-alive scripted server.

What a user waits for: each figure is one fresh ``python cli.py evaluate`` process, its
imports and set-up included, run on intent-resolution items against the scripted
OpenAI-compatible server (in a child process; keep-alive, listen backlog 1024, 200 ms
per call). Three scenarios:

1. concurrency 16, 1,000 items, nothing cached: target >= 85 % of the call bound;
2. concurrency 64, 1,000 items, nothing cached: target >= 60 % of the call bound;
3. a re-run of 10,000 items that are all in the persistent cache: target < 2 s, 0 calls.

The call bound is ``items x latency / concurrency``: the wall time of a perfect client.
Every run starts from a fresh copy of a prepared SQLite database. Contenders alternate
within a round (A B A B ...), so that a drift in the machine's speed hits all of them
alike: with ``--baseline DIR`` (another checkout, e.g. a worktree of main) its
``cli.py`` runs as contender B of every scenario. The median of the rounds is printed
with the min and max, the CPU per item and the one-minute load average before and after:
on a shared machine wall time is noisy, CPU time much less so.

With ``--peers`` the peers run too, alternating with the workbench in the same rounds of
the cold scenarios: deepeval's GEval and azure-ai-evaluation's IntentResolutionEvaluator,
each a whole process of its runner script under ``bench/peers/`` (the same items, the
same concurrency, the same server, which answers each in the shape it parses:
``tests/support/peer_replies.py``). They run with the python of a side venv
(``--peer-venv``, default ``$PEER_VENV`` or /work/venvs/peer-bench, built by
``scripts/build_peer_bench_venv.sh``); without it the bench says how to build it and
runs the workbench alone.

    .venv/bin/python bench/whole_process.py [--rounds 3] [--quick] [--baseline DIR]
        [--peers [--peer-venv DIR]]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.peer_replies import bench_reply  # noqa: E402

PROJECT = "bench"
EVALUATOR = "intent_resolution"
DEFAULT_PEER_VENV = "/work/venvs/peer-bench"
#: Runner scripts under bench/peers/, by the name the report gives them.
PEER_SCRIPTS = {"deepeval": "deepeval_geval.py", "azure": "azure_intent_resolution.py"}
#: A model name the peers know (deepeval reads its capabilities, logprobs included, from
#: it); the scripted server answers whatever the name.
PEER_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class Scenario:
    """One timed configuration."""

    title: str
    items: int
    concurrency: int
    cached: bool
    target: float  # share of the call bound (cold) or seconds (cached)


@dataclass
class Sample:
    """One whole process."""

    wall_s: float
    cpu_s: float
    calls: int
    exit_code: int


@dataclass
class Contender:
    """A workbench checkout whose ``cli.py`` runs the scenarios."""

    name: str
    argv: list[str]
    cwd: Path
    samples: dict[str, list[Sample]] = field(default_factory=dict)


def _serve(latency: float, calls: Any, stop: Any, ready: Any) -> None:
    from tests.support import scripted_llm

    scripted_llm._Server.request_queue_size = 1024  # as a production server's backlog

    def handler(req: dict) -> scripted_llm.Reply:
        with calls.get_lock():
            calls.value += 1
        return bench_reply(req, latency)  # the workbench's record, or a peer's shape

    with scripted_llm.ScriptedLLM() as server:
        server.handler = handler
        ready.put((server.base_url, server.model))
        stop.wait()


@contextlib.contextmanager
def scripted_server(latency: float) -> Iterator[tuple[str, str, Any]]:
    """(base URL, model, shared call counter) of a scripted server in a child process."""
    ctx = multiprocessing.get_context("fork")
    calls, stop, ready = ctx.Value("i", 0), ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=_serve, args=(latency, calls, stop, ready), daemon=True)
    proc.start()
    try:
        base_url, model = ready.get(timeout=30)
        yield base_url, model, calls
    finally:
        stop.set()
        proc.join(timeout=10)


def prepare_db(path: Path, n: int) -> None:
    """A SQLite database with an intent-resolution project of ``n`` items."""
    from annotation_store import Store

    store = Store(f"sqlite:///{path}")
    store.create_project(PROJECT, "intent_resolution")
    rows = [
        {"item_id": f"i{i}", "fields": {"query": f"question {i}", "response": f"answer {i}"}}
        for i in range(n)
    ]
    store.upsert_items(PROJECT, rows)
    store.close()


def timed(argv: list[str], cwd: Path, env: dict[str, str], calls: Any) -> Sample:
    """Wall and CPU seconds (user + system, the child's own accounting) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    calls_before = calls.value
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        print(f"  exit {done.returncode}: {done.stderr.strip()[-300:]}", file=sys.stderr)
    return Sample(wall, cpu, calls.value - calls_before, done.returncode)


def scenario_env(base: dict[str, str], url: str, model: str, concurrency: int) -> dict[str, str]:
    """The environment of one run: the endpoint and its concurrency, no retries."""
    return {
        **base,
        "WORKBENCH_LLM_BASE_URL": url,
        "WORKBENCH_LLM_MODEL": model,
        "WORKBENCH_LLM_API_KEY": "bench",
        "WORKBENCH_LLM_CONCURRENCY": str(concurrency),
        "WORKBENCH_LLM_MAX_RETRIES": "0",
    }


def run_args(c: Contender, db: Path) -> list[str]:
    """The command line of contender ``c`` on database ``db``."""
    return [*c.argv, "--db", f"sqlite:///{db}", "evaluate", PROJECT, "--evaluator", EVALUATOR]


@dataclass
class Peer(Contender):
    """A peer's runner script (``bench/peers/``), run with the peer venv's python."""

    script: str = ""


def peer_contenders(venv: str | os.PathLike[str]) -> tuple[list[Contender], str]:
    """The peers when ``venv`` has a python, else none and how to build the venv."""
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        return [], (
            f"peers skipped: no peer venv at {venv}; build it with "
            f"PEER_VENV={venv} scripts/build_peer_bench_venv.sh (deepeval, "
            "azure-ai-evaluation), then re-run with --peers"
        )
    peers: list[Contender] = [
        Peer(name, [str(python), str(ROOT / "bench" / "peers" / script)], ROOT, script=script)
        for name, script in PEER_SCRIPTS.items()
    ]
    return peers, f"peers: {', '.join(PEER_SCRIPTS)} with {python}"


def peer_args(c: Contender, url: str, items: int, concurrency: int) -> list[str]:
    """The command line of peer ``c`` on ``items`` items at ``concurrency``."""
    return [
        *c.argv,
        "--base-url",
        url,
        "--model",
        PEER_MODEL,
        "--items",
        str(items),
        "--concurrency",
        str(concurrency),
    ]


def peer_env(base: dict[str, str]) -> dict[str, str]:
    """The environment of a peer run: none of the user's OpenAI, Azure or deepeval settings."""
    prefixes = ("OPENAI_", "AZURE_", "DEEPEVAL_", "CONFIDENT_")
    return {k: v for k, v in base.items() if not k.startswith(prefixes)}


def median(values: list[float]) -> float:
    """The median (0 for none)."""
    return statistics.median(values) if values else 0.0


def report(s: Scenario, c: Contender, latency: float) -> str:
    """One line: medians (min-max) of wall, % of bound (cold) and CPU per item."""
    runs = c.samples.get(s.title, [])
    walls = [r.wall_s for r in runs]
    cpus = [r.cpu_s for r in runs]
    if not runs:
        return f"  {c.name:>10}: no runs"
    line = (
        f"  {c.name:>10}: wall {median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}), "
        f"CPU {median(cpus):.2f} s = {1000 * median(cpus) / s.items:.2f} ms/item, "
        f"calls {median([r.calls for r in runs]):.0f}"
    )
    if s.cached:
        ok = median(walls) < s.target
        return line + f"; target < {s.target:g} s: {'PASS' if ok else 'FAIL'}"
    bound = s.items * latency / s.concurrency
    shares = [100 * bound / w for w in walls]
    ok = median(shares) >= 100 * s.target
    return line + (
        f"; {median(shares):.1f} % of the {bound:.2f} s call bound "
        f"({min(shares):.1f}-{max(shares):.1f}); target >= {100 * s.target:.0f} %: "
        f"{'PASS' if ok else 'FAIL'}"
    )


def peer_report(s: Scenario, c: Contender, latency: float, ours: Contender) -> str:
    """A peer's line: as :func:`report` but no target (the targets are the workbench's),
    and its CPU per item and wall time as multiples of the workbench's (``ours``)."""
    runs, mine = c.samples.get(s.title, []), ours.samples.get(s.title, [])
    if not runs:
        return f"  {c.name:>10}: no runs"
    wall, cpu = median([r.wall_s for r in runs]), median([r.cpu_s for r in runs])
    shares = [100 * s.items * latency / s.concurrency / r.wall_s for r in runs]
    failed = sum(r.exit_code != 0 for r in runs)
    line = (
        f"  {c.name:>10}: wall {wall:.2f} s ({min(r.wall_s for r in runs):.2f}-"
        f"{max(r.wall_s for r in runs):.2f}), CPU {cpu:.2f} s = "
        f"{1000 * cpu / s.items:.2f} ms/item, calls {median([r.calls for r in runs]):.0f}; "
        f"{median(shares):.1f} % of the call bound ({min(shares):.1f}-{max(shares):.1f})"
    )
    if mine:
        my_wall, my_cpu = median([r.wall_s for r in mine]), median([r.cpu_s for r in mine])
        line += f"; {cpu / my_cpu:.1f}x the CPU and {wall / my_wall:.1f}x the wall of {ours.name}"
    return line + (f"; {failed} run(s) FAILED" if failed else "")


def contenders(baseline: str | None) -> list[Contender]:
    """This checkout and, when given, the baseline checkout."""
    out = [Contender("this", [sys.executable, "cli.py"], ROOT)]
    if baseline:
        out.append(Contender("baseline", [sys.executable, "cli.py"], Path(baseline).resolve()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="200 cold / 2,000 cached items")
    parser.add_argument("--baseline", default=None, help="another checkout to alternate with")
    parser.add_argument(
        "--only", choices=("16", "64", "cached"), action="append", help="run these scenarios"
    )
    parser.add_argument(
        "--peers", action="store_true", help="also run deepeval and azure-ai-evaluation"
    )
    parser.add_argument(
        "--peer-venv",
        default=os.environ.get("PEER_VENV", DEFAULT_PEER_VENV),
        help="the peers' venv (scripts/build_peer_bench_venv.sh)",
    )
    args = parser.parse_args()
    n_cold, n_cached = (200, 2_000) if args.quick else (1_000, 10_000)
    scenarios = [
        Scenario(f"concurrency 16 x {n_cold:,}", n_cold, 16, False, 0.85),
        Scenario(f"concurrency 64 x {n_cold:,}", n_cold, 64, False, 0.60),
        Scenario(f"cached re-run x {n_cached:,}", n_cached, 64, True, 2.0),
    ]
    if args.only:
        keys = {"16": scenarios[0], "64": scenarios[1], "cached": scenarios[2]}
        scenarios = [keys[k] for k in args.only]
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches, as installed packages
    who = contenders(args.baseline)
    if args.peers:
        peers, note = peer_contenders(args.peer_venv)
        print(note)
        who += peers
    load_before = os.getloadavg()[0]
    print(
        f"whole processes; scripted server in a child process, {args.latency:g} s per call, "
        f"keep-alive; {args.rounds} rounds; contenders: {', '.join(c.name for c in who)}; "
        f"load {load_before:.2f} at start"
    )
    with tempfile.TemporaryDirectory() as tmp, scripted_server(args.latency) as (url, model, n):
        for c in who:  # peers write their own files (deepeval's .deepeval/) where they run
            if isinstance(c, Peer):
                c.cwd = Path(tmp)
        seeds: dict[int, Path] = {}
        for s in scenarios:  # one seed database per size; the cached one with its cache
            if s.items not in seeds:
                seeds[s.items] = Path(tmp) / f"seed{s.items}.db"
                prepare_db(seeds[s.items], s.items)
        cached_seed = Path(tmp) / "cached.db"
        if any(s.cached for s in scenarios):
            shutil.copy(seeds[n_cached], cached_seed)
            env = scenario_env(base_env, url, model, 64)
            timed(run_args(who[0], cached_seed), ROOT, env, n)
        for c in who:  # warm-up: bytecode caches, page cache (not counted)
            db = Path(tmp) / "warm.db"
            shutil.copy(seeds[min(seeds)], db)
            env = scenario_env(base_env, url, model, 64)
            if isinstance(c, Peer):
                timed(peer_args(c, url, 16, 16), c.cwd, peer_env(base_env), n)
                continue
            timed([*run_args(c, db), "--limit", "16"], c.cwd, env, n)
        for r in range(args.rounds):
            for s in scenarios:
                env = scenario_env(base_env, url, model, s.concurrency)
                for c in who:
                    if isinstance(c, Peer):
                        if s.cached:  # the peers have no persistent result cache to re-use
                            continue
                        argv = peer_args(c, url, s.items, s.concurrency)
                        sample = timed(argv, c.cwd, peer_env(base_env), n)
                        c.samples.setdefault(s.title, []).append(sample)
                        continue
                    db = Path(tmp) / f"run-{c.name}.db"
                    shutil.copy(cached_seed if s.cached else seeds[s.items], db)
                    sample = timed(run_args(c, db), c.cwd, env, n)
                    c.samples.setdefault(s.title, []).append(sample)
            print(f"  round {r + 1} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    for s in scenarios:
        print(f"{s.title}:")
        for c in who:
            if isinstance(c, Peer):
                if c.samples.get(s.title):
                    print(peer_report(s, c, args.latency, who[0]))
            elif c.samples.get(s.title):
                print(report(s, c, args.latency))
    print(f"load average (1 min): {load_before:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
