"""Throughput of the local evaluators on SGD items: batched vs one item at a time.

    .venv/bin/python bench/local_evaluators.py [--items 2000] [--single-items 200] [--trials 3]
        [--batch-size N] [--threads N] [--only a,b] [--nli-precision float32|bfloat16]

Items are the first N system acts of the SGD test subset. Pair evaluators (lexical,
embedding, bidirectional NLI) compare each act's ground-truth utterance with the act's first
SGSAcc candidate reference, a realistic short sentence pair. The NLI evaluators use a
randomly initialised BERT of MiniLM size (6 layers, hidden 384, 12 heads) that this script
builds: its verdicts are meaningless, its speed is that of a real model of that size.

"Batched" runs the evaluator on all items in batches of the evaluator's default batch size
(as `cli.py evaluate` does; --batch-size overrides); "single" calls it once per item on
--single-items items spread evenly over the same items (so both see the same mix of
lengths). Both run in one event loop, as a real run does. Models are loaded before timing.
The two modes alternate for --trials trials and the medians are compared, so a burst of
load on a shared machine hits both. --nli-precision bfloat16 runs the NLI evaluators with
that setting (CPU autocast; fast only on CPUs with native bf16).

Exit status 0 when batching wins by at least 3x for every model-based evaluator run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluators.base import EvalItem, Evaluator
from evaluators.registry import create_evaluator
from evaluators.sgd_acts import Act
from interop.sgd import read_sgd, shared_sgd_root
from kinds import get_kind

SGD_TEST = shared_sgd_root() / "test"
LEXICAL = ("bleu", "chrf", "rouge1", "rouge2", "rougeL", "meteor", "ser")
MODEL_BASED = ("embedding_cosine", "nli_bidirectional", "sgsacc")
MIN_SPEEDUP = 3.0


def load_items(n: int) -> tuple[list[EvalItem], list[EvalItem]]:
    """(dialogue-faithfulness items, intent-match-style pairs) for the first n acts."""
    kind = get_kind("dialogue_faithfulness")
    acts, pairs = [], []
    for raw in read_sgd(SGD_TEST, limit=n):
        fields = kind.validate_item(raw["fields"])
        acts.append(EvalItem(raw["item_id"], fields, raw["generator"], kind.name))
        reference = (Act.from_fields(fields).candidates() or ["Hello."])[0]
        pairs.append(
            EvalItem(
                raw["item_id"],
                {"gold": fields["utterance"], "predicted": reference},
                kind="intent_match",
            )
        )
    return acts, pairs


def timed(ev: Evaluator, items: list[EvalItem], batch: int) -> tuple[float, float, int]:
    """Wall seconds and this process's CPU seconds to evaluate all items in batches of
    ``batch``, and the number of failures.

    All batches run in one event loop, as in a real run: a loop per call would also start
    a fresh executor thread per call (and torch a fresh thread team for it), a cost of
    ~5 ms per call that real runs never pay and that would flatter batching.
    """

    async def run_all() -> int:
        failed = 0
        for i in range(0, len(items), batch):
            results = await ev.evaluate(items[i : i + batch])
            failed += sum(r.status == "failed" for r in results)
        return failed

    wall, cpu = time.perf_counter(), time.process_time()
    failed = asyncio.run(run_all())
    return time.perf_counter() - wall, time.process_time() - cpu, failed


def spread(items: list[EvalItem], n: int) -> list[EvalItem]:
    """``n`` items taken at even steps over ``items``."""
    step = max(1, len(items) // max(1, n))
    return items[::step][:n]


def compare(
    ev: Evaluator, items: list[EvalItem], single: list[EvalItem], batch: int, trials: int
) -> dict:
    """Median items/s batched and one at a time over alternating trials."""
    batched, one, batched_cpu, one_cpu, failed = [], [], [], [], 0
    for _ in range(trials):
        wall, cpu, failed = timed(ev, items, batch)
        batched.append(len(items) / wall)
        batched_cpu.append(len(items) / cpu)
        wall, cpu, _ = timed(ev, single, 1)
        one.append(len(single) / wall)
        one_cpu.append(len(single) / cpu)
    median = statistics.median
    return {
        "batched_items_per_s": median(batched),
        "single_items_per_s": median(one),
        "speedup": median(batched) / median(one),
        "trial_speedups": [round(b / o, 2) for b, o in zip(batched, one, strict=True)],
        "cpu_speedup": median(batched_cpu) / median(one_cpu),
        "failed": failed,
    }


def forward_rates(model: Path, pairs: list[EvalItem], precision: str) -> str:
    """The NLI model's own throughput (pairs per CPU second) at batch sizes 1, 2 and 32.

    CPU seconds, unlike wall seconds, do not count time the VM lost to its neighbours.
    When the rates are close, the model is compute-bound: matrix products dominate even
    at batch size 1, and batching can only save the per-call overhead around them.
    """
    from evaluators.nli.transformers_backend import TransformersNLI

    texts = [(p.fields["gold"], p.fields["predicted"]) for p in spread(pairs, 256)]
    rates = {}
    for size in (1, 2, 32):
        nli = TransformersNLI(str(model), batch_size=size, precision=precision)
        nli.predict_sync(texts[:32])
        start = time.process_time()
        nli.predict_sync(texts)
        rates[size] = len(texts) / (time.process_time() - start)
    return (
        f"NLI model forward ({precision}), pairs per CPU second: {rates[1]:.0f} at batch "
        f"size 1, {rates[2]:.0f} at 2, {rates[32]:.0f} at 32 "
        f"({rates[32] / rates[1]:.2f}x and {rates[32] / rates[2]:.2f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--single-items", type=int, default=200)
    parser.add_argument(
        "--batch-size", type=int, default=None, help="default: each evaluator's own"
    )
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--only", default=None, help="comma-separated evaluator names")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    parser.add_argument(
        "--nli-precision",
        choices=("float32", "bfloat16"),
        default="float32",
        help="the NLI evaluators' precision setting (bfloat16 needs a CPU with native bf16)",
    )
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if not (SGD_TEST / "schema.json").is_file():
        print(f"SGD subset not found at {SGD_TEST}; set WORKBENCH_SGD_DIR")
        return 2
    acts, pairs = load_items(args.items)
    print(
        f"{len(acts)} SGD items from {SGD_TEST}; single mode on {args.single_items} of them; "
        f"{args.trials} trials; NLI precision {args.nli_precision}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )

    from evaluators.nli.random_model import build_random_nli_model

    tmp = tempfile.mkdtemp(prefix="nli-bench-")
    texts = [i.fields["utterance"] for i in acts] + [i.fields["predicted"] for i in pairs]
    model = build_random_nli_model(
        Path(tmp) / "minilm-sized-random",
        texts,
        hidden=384,
        layers=6,
        heads=12,
        intermediate=1536,
        init_range=0.02,
    )
    os.environ["WORKBENCH_NLI_MODEL"] = str(model)
    names = args.only.split(",") if args.only else [*LEXICAL, *MODEL_BASED]
    if {"nli_bidirectional", "sgsacc"} & set(names):
        print(forward_rates(model, pairs, args.nli_precision), flush=True)

    rows, ok = [], True
    for name in names:
        nli = name in ("nli_bidirectional", "sgsacc")
        ev = create_evaluator(name, {"precision": args.nli_precision} if nli else None)
        reason = ev.unavailable_reason()
        if reason:
            print(f"{name:18s} skipped: {reason}")
            continue
        items = acts if name in ("sgsacc", "ser") else pairs
        asyncio.run(ev.evaluate(items[:4]))  # load models / data outside the timing
        batch = args.batch_size or ev.preferred_batch_size()
        row = {
            "evaluator": name,
            "items": len(items),
            "batch_size": batch,
            **compare(ev, items, spread(items, args.single_items), batch, args.trials),
            "nli_precision": args.nli_precision if nli else None,
        }
        speedup = row["speedup"]
        verdict = ""
        if name in MODEL_BASED:
            passed = speedup >= MIN_SPEEDUP
            ok &= passed
            verdict = "ok" if passed else f"below {MIN_SPEEDUP:.0f}x"
            row["meets_3x"] = passed
        row["load_average"] = os.getloadavg()[0]
        rows.append(row)
        print(
            f"{name:18s} batched {row['batched_items_per_s']:9.1f} items/s   single "
            f"{row['single_items_per_s']:9.1f} items/s   speedup {speedup:5.2f}x "
            f"(trials {', '.join(map(str, row['trial_speedups']))}; CPU time "
            f"{row['cpu_speedup']:4.2f}x)  load {row['load_average']:.1f}  {verdict}",
            flush=True,
        )
    out = Path(__file__).parent / "output"
    out.mkdir(exist_ok=True)
    (out / "local_evaluators.json").write_text(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
