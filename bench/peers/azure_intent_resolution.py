"""azure-ai-evaluation 1.18.10's IntentResolutionEvaluator on the bench's items.

One ``azure.ai.evaluation.evaluate`` call over a JSONL file of N query/response rows, the
evaluator built with an ``OpenAIModelConfiguration`` whose ``base_url`` is the
OpenAI-compatible endpoint, as its docs show. Its batch engine runs
``PF_WORKER_COUNT`` lines at once: set to the concurrency asked for.

    /work/venvs/peer-bench/bin/python bench/peers/azure_intent_resolution.py \
        --base-url http://127.0.0.1:PORT/v1 --items 200 --concurrency 16
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from _common import finish, items, parse_args


def main() -> int:
    """Evaluate the items; print the summary."""
    args = parse_args(__doc__.splitlines()[0])
    os.environ["PF_WORKER_COUNT"] = str(args.concurrency)
    from azure.ai.evaluation import (
        IntentResolutionEvaluator,
        OpenAIModelConfiguration,
        evaluate,
    )

    config = OpenAIModelConfiguration(
        type="openai", model=args.model, base_url=args.base_url, api_key="bench"
    )
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "items.jsonl"
        data.write_text("".join(json.dumps(x) + "\n" for x in items(args.items)))
        result = evaluate(
            data=str(data),
            evaluators={"intent_resolution": IntentResolutionEvaluator(model_config=config)},
        )
    scores = []
    for row in result["rows"]:
        value = row.get("outputs.intent_resolution.intent_resolution")
        scores.append(float(value) if value is not None else math.nan)
    return finish("azure-ai-evaluation IntentResolution", args.items, scores)


if __name__ == "__main__":
    raise SystemExit(main())
