"""What both peer runners share: their command line, the items, the summary they print.

These scripts run with the peer venv's python (``scripts/build_peer_bench_venv.sh``),
never with the workbench's: they import the peers, and the workbench never imports them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable


def items(n: int) -> list[dict[str, str]]:
    """The bench's items: the same query/response pairs ``bench/whole_process.py`` stores."""
    return [{"query": f"question {i}", "response": f"answer {i}"} for i in range(n)]


def parse_args(description: str) -> argparse.Namespace:
    """``--base-url``, ``--model``, ``--items``, ``--concurrency``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    return parser.parse_args()


def finish(peer: str, n: int, scores: Iterable[float | None]) -> int:
    """Print a one-line JSON summary; exit status 1 unless every item got a score."""
    got = [s for s in scores if s is not None and not math.isnan(s)]
    mean = sum(got) / len(got) if got else None
    print(json.dumps({"peer": peer, "items": n, "scored": len(got), "mean_score": mean}))
    sys.stdout.flush()
    return 0 if len(got) == n else 1
