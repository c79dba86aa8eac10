"""A run's counters, shared by the online runner and batch mode (neither imports the other
for them: ``jobs.runner`` starts batch mode, and batch mode counts with these)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunProgress:
    """Counters reported after every batch."""

    total: int = 0
    done: int = 0
    failed: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    run_ids: list[int] = field(default_factory=list)
    mode: str = "online"
    #: Batch mode: batch ids, requests, failed lines, usage and a summary line.
    batch: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready counters (stored as a job's progress)."""
        return dict(self.__dict__)


def count_results(progress: RunProgress, results: Sequence[Any]) -> None:
    """Add stored results to the counters."""
    for res in results:
        progress.done += 1
        progress.failed += res.status == "failed"
        progress.cached += bool(res.cached)
        progress.tokens_in += res.tokens_in
        progress.tokens_out += res.tokens_out
        progress.cost += res.cost
