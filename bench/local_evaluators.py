"""Throughput of the local evaluators on SGD items: batched vs one item at a time.

    .venv/bin/python bench/local_evaluators.py [--items 2000] [--single-items 200] [--threads N] [--only a,b]
        [--nli-precision float32|bfloat16]

Items are the first N system acts of the SGD test subset. Pair evaluators (lexical,
embedding, bidirectional NLI) compare each act's ground-truth utterance with the act's first
SGSAcc candidate reference, a realistic short sentence pair. The NLI evaluators use a
randomly initialised BERT of MiniLM size (6 layers, hidden 384, 12 heads) that this script
builds: its verdicts are meaningless, its speed is that of a real model of that size.

"Batched" runs the evaluator on batches of --batch-size items (as `cli.py evaluate` does);
"single" calls it once per item on the first --single-items items (fewer, to keep the run
short; items per second is what is compared). Both run in one event loop, as a real run
does. Models are loaded before timing. --nli-precision bfloat16 runs the NLI evaluators
with that setting (CPU autocast; fast only on CPUs with native bf16).

Exit status 0 when batching wins by at least 3x for every model-based evaluator run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation_store.sgd import read_sgd, shared_sgd_root
from evaluators.base import EvalItem, Evaluator
from evaluators.registry import create_evaluator
from evaluators.sgd_acts import Act
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
        acts.append(EvalItem(raw["item_id"], fields, raw["generator"]))
        reference = (Act.from_fields(fields).candidates() or ["Hello."])[0]
        pairs.append(
            EvalItem(raw["item_id"], {"gold": fields["utterance"], "predicted": reference})
        )
    return acts, pairs


def timed(ev: Evaluator, items: list[EvalItem], batch: int) -> tuple[float, float, int]:
    """Wall seconds and this process's CPU seconds to evaluate all items in batches of
    ``batch``, and the number of failures. CPU time is less disturbed by other load.

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


def forward_rates(model: Path, pairs: list[EvalItem], precision: str) -> str:
    """The NLI model's own throughput (pairs/s) at batch sizes 2 and 32: batching cannot
    beat the ratio of these two by much, since the model is compute-bound on CPU."""
    from evaluators.nli.transformers_backend import TransformersNLI

    texts = [(p.fields["gold"], p.fields["predicted"]) for p in pairs]
    rates = {}
    for size, n in ((2, 200), (32, 1000)):
        nli = TransformersNLI(str(model), batch_size=size, precision=precision)
        nli.predict_sync(texts[:64])
        start = time.perf_counter()
        nli.predict_sync(texts[:n])
        rates[size] = n / (time.perf_counter() - start)
    return (
        f"NLI model forward ({precision}): {rates[2]:.0f} pairs/s in batches of 2, "
        f"{rates[32]:.0f} in batches of 32 ({rates[32] / rates[2]:.2f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--single-items", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=64)
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
        f"{len(acts)} SGD items from {SGD_TEST}; batch size {args.batch_size}; "
        f"single mode on the first {args.single_items}; NLI precision {args.nli_precision}; "
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
        t_batch, c_batch, failed = timed(ev, items, args.batch_size)
        single = items[: args.single_items]
        t_single, c_single, _ = timed(ev, single, 1)
        batch_rate, single_rate = len(items) / t_batch, len(single) / t_single
        speedup = batch_rate / single_rate
        cpu_speedup = (len(items) / c_batch) / (len(single) / c_single)
        row = {
            "evaluator": name,
            "items": len(items),
            "batched_items_per_s": batch_rate,
            "single_items_per_s": single_rate,
            "speedup": speedup,
            "cpu_speedup": cpu_speedup,
            "failed": failed,
            "nli_precision": args.nli_precision if nli else None,
        }
        verdict = ""
        if name in MODEL_BASED:
            passed = speedup >= MIN_SPEEDUP
            ok &= passed
            verdict = "ok" if passed else f"below {MIN_SPEEDUP:.0f}x"
            row["meets_3x"] = passed
        row["load_average"] = os.getloadavg()[0]
        rows.append(row)
        print(
            f"{name:18s} batched {batch_rate:9.1f} items/s   single {single_rate:9.1f} "
            f"items/s   speedup {speedup:5.2f}x (CPU time {cpu_speedup:5.2f}x)  load {row['load_average']:.1f}  {verdict}",
            flush=True,
        )
    out = Path(__file__).parent / "output"
    out.mkdir(exist_ok=True)
    (out / "local_evaluators.json").write_text(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
