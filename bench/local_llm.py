"""The judges on a real local model: llama.cpp's server with SmolLM2-135M-Instruct.

Two sets of figures for docs/llm_evaluators.md ("A local model"):

1. Throughput: ``intent_resolution`` through the product path (``run_evaluator``) on the
   judge study's items with an empty cache, at concurrency 1, 4 and 16: items per second,
   and CPU: the server process's CPU seconds per wall second (cores busy) and this
   process's CPU per item.
2. Parseable replies per evaluator, constrained (the negotiated mode: ``json_object`` with
   the schema, which this server enforces) and unconstrained (``WORKBENCH_LLM_JSON_MODE=
   text``: the schema only in the prompt), re-asks off: the share of items whose replies
   all parsed and validated at the first ask. G-Eval and Prometheus ask for plain text in
   both: their shares are the usable samples and the replies with a ``[RESULT]`` marker.

Wall-clock figures are only meaningful on an otherwise idle machine: the output starts
with the load average.

    .venv/bin/python bench/local_llm.py [--items 32] [--parse-items 5] [--model PATH.gguf]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_store import Store
from evaluators.llm.local import LocalServer, free_port, make_spec
from jobs.runner import build_context, run_evaluator

CONCURRENCY = (1, 4, 16)
JUDGES = {
    "judge:bench-decimal": (
        "demo-intent-resolution",
        'kind = "intent_resolution"\nfields = ["resolution"]\ntemplate = "Question: {{ query }}'
        '\\nAnswer: {{ response }}\\nHow well does the answer resolve the question?"\n'
        '[output]\ntype = "decimal"\nmin = 1\nmax = 5\n[sampling]\nmax_tokens = 200\n',
    ),
    "judge:bench-facts": (
        "demo-intent-match",
        'kind = "intent_match"\nfields = ["gold_fact_labels"]\ntemplate = "Predicted intent: '
        '{{ predicted }}\\nFor each fact, is it implied (C) or missing (M)?"\n[output]\n'
        'type = "fact_labels"\nfacts_field = "gold_facts"\n[sampling]\nmax_tokens = 300\n',
    ),
}
PARSE = [
    # evaluator, project, settings
    ("intent_resolution", "demo-intent-resolution", {"max_tokens": 300}),
    ("bifact", "demo-intent-match", {"max_tokens": 300}),
    ("fingract", "demo-actionability", {"max_tokens": 300}),
    ("judge:bench-decimal", "demo-intent-resolution", None),
    ("judge:bench-facts", "demo-intent-match", None),
    ("geval", "demo-intent-resolution", {"min_usable": 0.0}),
    ("prometheus", "demo-intent-resolution", {"max_tokens": 300, "max_reasks": 0}),
]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def env(**values: str) -> Iterator[None]:
    """Environment variables set for the block."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def fresh_store(folder: Path, name: str) -> Store:
    """The demo projects and the bench's judges in a new SQLite file (an empty cache)."""
    from workbench_api.demo import load_all
    from workbench_api.judges import save_judge

    store = Store(f"sqlite:///{folder / name}.db")
    load_all(store)
    for judge, (_project, definition) in JUDGES.items():
        save_judge(store, judge.removeprefix("judge:"), definition)
    return store


def throughput(server: LocalServer, folder: Path, items: int) -> None:
    """Items per second and CPU at each concurrency."""
    from workbench_api.demo import JUDGE_STUDY as study

    print(f"\nthroughput: intent_resolution on {items} items of {study!r}, empty cache")
    print("concurrency  items/s  server cores busy  client CPU ms/item  ok/failed")
    assert server.process is not None
    for conc in CONCURRENCY:
        store = fresh_store(folder, f"throughput{conc}")
        with env(WORKBENCH_LLM_CONCURRENCY=str(conc)):
            ctx = build_context(store)
            cpu0, own0, t0 = cpu_seconds(server.process.pid), time.process_time(), time.time()
            progress = run_evaluator(
                store,
                study,
                "intent_resolution",
                runs=1,
                limit=items,
                settings={"max_tokens": 200},
                ctx=ctx,
            )
            wall = time.time() - t0
            cores = (cpu_seconds(server.process.pid) - cpu0) / wall
            own = (time.process_time() - own0) / items * 1000
        ok = progress.done - progress.failed
        print(
            f"{conc:>11}  {items / wall:7.2f}  {cores:17.2f}  {own:18.1f}  {ok}/{progress.failed}"
        )
        store.close()


def parse_share(store: Store, evaluator: str, project: str, settings: Any, n: int) -> str:
    """The share of parseable replies of one run (see the module docstring)."""
    progress = run_evaluator(
        store, project, evaluator, runs=1, limit=n, settings=settings, ctx=build_context(store)
    )
    results = store.run_results(progress.run_ids[0])
    if evaluator == "geval":
        usable = sum(int(r.details.get("valid_samples") or 0) for r in results)
        got = sum(int(r.details.get("received_samples") or 0) for r in results)
        return f"{usable}/{got} samples"
    ok = sum(1 for r in results if r.status == "ok")
    return f"{ok}/{len(results)} items"


def parseable(folder: Path, n: int) -> None:
    """Constrained vs unconstrained shares per evaluator."""
    print(f"\nparseable replies at the first ask (re-asks off), {n} demo items each")
    print("evaluator             constrained (json_object + schema)   unconstrained (text)")
    stores = {mode: fresh_store(folder, f"parse_{mode}") for mode in ("auto", "text")}
    for evaluator, project, settings in PARSE:
        shares = []
        for mode, store in stores.items():
            with env(WORKBENCH_LLM_JSON_MODE=mode, WORKBENCH_LLM_JSON_RETRIES="0"):
                shares.append(parse_share(store, evaluator, project, settings, n))
        print(f"{evaluator:<21} {shares[0]:<36} {shares[1]}")
    for store in stores.values():
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=32, help="items per throughput run")
    parser.add_argument("--parse-items", type=int, default=5, help="items per evaluator")
    parser.add_argument("--model", help="a .gguf file (default: SmolLM2-135M-Instruct)")
    args = parser.parse_args()
    spec = make_spec(args.model, port=free_port())
    import llama_cpp

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"model {spec.alias} ({spec.model.name}), llama-cpp-python {llama_cpp.__version__}")
    with (
        tempfile.TemporaryDirectory() as tmp,
        LocalServer(spec) as server,
        env(
            WORKBENCH_LLM_BASE_URL=spec.base_url,
            WORKBENCH_LLM_MODEL=spec.alias,
            WORKBENCH_LLM_TIMEOUT="600",
            WORKBENCH_LLM_MAX_RETRIES="1",
        ),
    ):
        throughput(server, Path(tmp), args.items)
        parseable(Path(tmp), args.parse_items)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
