"""deepeval 4.3.1's GEval on the bench's items, the way its docs run it.

One ``deepeval.evaluate`` call over N ``LLMTestCase`` objects, ``AsyncConfig(
max_concurrent=C)``, judged by ``OpenAIModel(base_url=...)`` (an OpenAI-compatible
endpoint). The criterion is the workbench's G-Eval intent-resolution one
(``evaluators/prompts/geval_intent_resolution.v1.md``), given as fixed evaluation steps
so that deepeval does not spend a call drafting them. As with a real OpenAI model, GEval
asks for log-probabilities and weights the score token by them.

    /work/venvs/peer-bench/bin/python bench/peers/deepeval_geval.py \
        --base-url http://127.0.0.1:PORT/v1 --items 200 --concurrency 16
"""

from __future__ import annotations

import os

# No telemetry, no prompts, no uploads: a local, offline run.
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_NO_INSPECT_PROMPT", "1")
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")

from _common import finish, items, parse_args
from deepeval import evaluate
from deepeval.evaluate.configs import (
    AsyncConfig,
    CacheConfig,
    DisplayConfig,
    ErrorConfig,
)
from deepeval.metrics import GEval
from deepeval.models import OpenAIModel
from deepeval.test_case import LLMTestCase, SingleTurnParams

STEPS = [
    "Read the input and state what the user really wants.",
    "Read the actual output and decide which intent it answers.",
    "Check whether that is the user's intent, how much of what the user needs the "
    "output delivers, and whether it is correct.",
    "Score from low (ignores or misreads the request) to high (fully and accurately resolves it).",
]


def main() -> int:
    """Evaluate the items; print the summary."""
    args = parse_args(__doc__.splitlines()[0])
    model = OpenAIModel(model=args.model, base_url=args.base_url, api_key="bench")
    metric = GEval(
        name="Intent resolution",
        evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT],
        evaluation_steps=STEPS,
        model=model,
    )
    cases = [LLMTestCase(input=x["query"], actual_output=x["response"]) for x in items(args.items)]
    result = evaluate(
        cases,
        [metric],
        async_config=AsyncConfig(max_concurrent=args.concurrency),
        display_config=DisplayConfig(
            show_indicator=False, print_results=False, inspect_after_run=False
        ),
        cache_config=CacheConfig(write_cache=False, use_cache=False),
        error_config=ErrorConfig(ignore_errors=True),
    )
    scores = [
        next((m.score for m in (t.metrics_data or []) if m.success is not None), None)
        for t in result.test_results
    ]
    return finish("deepeval GEval", args.items, scores)


if __name__ == "__main__":
    raise SystemExit(main())
