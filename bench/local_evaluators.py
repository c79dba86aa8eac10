"""Throughput of the local evaluators on SGD items: batched vs one item at a time.

    .venv/bin/python bench/local_evaluators.py [--items 2000] [--single-items 200] [--threads N] [--only a,b]

Items are the first N system acts of the SGD test subset. Pair evaluators (lexical,
embedding, bidirectional NLI) compare each act's ground-truth utterance with the act's first
SGSAcc candidate reference, a realistic short sentence pair. The NLI evaluators use a
randomly initialised BERT of MiniLM size (6 layers, hidden 384, 12 heads) that this script
builds: its verdicts are meaningless, its speed is that of a real model of that size.

"Batched" runs the evaluator on batches of --batch-size items (as `cli.py evaluate` does);
"single" calls it once per item on the first --single-items items (fewer, to keep the run
short; items per second is what is compared). Models are loaded before timing.
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
    ``batch``, and the number of failures. CPU time is less disturbed by other load."""
    failed = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(items), batch):
        failed += sum(r.status == "failed" for r in asyncio.run(ev.evaluate(items[i : i + batch])))
    return time.perf_counter() - wall, time.process_time() - cpu, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--single-items", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--only", default=None, help="comma-separated evaluator names")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
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
        f"single mode on the first {args.single_items}; "
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
    rows, ok = [], True
    for name in names:
        ev = create_evaluator(name)
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
        }
        verdict = ""
        if name in MODEL_BASED:
            passed = speedup >= MIN_SPEEDUP
            ok &= passed or name == "sgsacc"
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
