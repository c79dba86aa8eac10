"""Evaluator versions of a project: stored runs grouped by evaluator, version and signature.

A *version row* is every run of one evaluator with one signature: the evaluator's
version, and when one version ran with several signatures (another prompt, model or
settings) each signature is its own row, keyed by the signature text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from annotation_store import Store

RESULT_COLUMNS = [
    "item_id",
    "run_id",
    "status",
    "scores",
    "details",
    "reasoning",
    "error",
    "tokens_in",
    "tokens_out",
    "cost",
]
FEW_SHOT_KEY = "few_shot_item_ids"
SWAP_KEY = "swap_texts"
#: A probe run of a version (``evaluators/judges/probes.py``): not a row of its own.
PROBE_KEY = "probe"
#: An injection probe run's attack text (``evaluators/judges/injection.py``).
ATTACK_KEY = "attack"


@dataclass
class Version:
    """One evaluator version (one signature) and its runs."""

    evaluator: str
    version: str
    signature: str
    model: str | None
    settings: dict[str, Any]
    run_ids: list[int] = field(default_factory=list)
    created_at: datetime | None = None
    label: str = ""
    #: item_id -> why it is left out of this version's figures (the leakage guard)
    excluded: dict[str, str] = field(default_factory=dict)

    @property
    def few_shot_ids(self) -> tuple[str, ...]:
        """Items shown to the judge as worked examples (excluded from its figures)."""
        ids = self.settings.get(FEW_SHOT_KEY) or ()
        return tuple(str(i) for i in ids) if isinstance(ids, list | tuple) else ()

    @property
    def probe(self) -> str | None:
        """The probe these runs are (``swap``, ``reverse_options``), None for plain runs."""
        value = self.settings.get(PROBE_KEY)
        return str(value) if value else None

    @property
    def swapped(self) -> bool:
        """True when the run exchanged the kind's two texts (the position-swap probe, or
        an older version saved with ``swap_texts``)."""
        return self.probe == "swap" or bool(self.settings.get(SWAP_KEY))

    def plain_settings(self) -> dict[str, Any]:
        """The settings without the swap flag, the probe and its attack text (to pair a
        probe run with the runs it probes)."""
        drop = (SWAP_KEY, PROBE_KEY, ATTACK_KEY)
        return {k: v for k, v in self.settings.items() if k not in drop}


def _labels(versions: list[Version]) -> None:
    """``name v2`` (``name v2 (texts swapped)`` for a swap run, ``name v2 (probe: X)``
    for a probe run), with the signature when one version ran with several signatures
    otherwise alike."""
    count: dict[tuple[str, str, bool, str | None], int] = {}
    for v in versions:
        key = (v.evaluator, v.version, v.swapped, v.probe)
        count[key] = count.get(key, 0) + 1
    for v in versions:
        tag = f"v{v.version}" if v.version[:1].isdigit() else v.version
        if v.probe:
            suffix = f" (probe: {v.probe})"
        else:
            suffix = " (texts swapped)" if v.swapped else ""
        v.label = f"{v.evaluator} {tag}{suffix}"
        if count[(v.evaluator, v.version, v.swapped, v.probe)] > 1:
            v.label += f" [{v.signature.split('|', 1)[-1]}]"


def load_versions(store: Store, project: str) -> list[Version]:
    """Every version row of the project's evaluator runs, oldest first."""
    by_sig: dict[str, Version] = {}
    for run in sorted(store.runs(project), key=lambda r: r.id):
        sig = run.signature or {}
        key = run.signature_text or f"{run.evaluator}:{run.version}"
        v = by_sig.get(key)
        if v is None:
            v = by_sig[key] = Version(
                run.evaluator,
                str(run.version),
                key,
                run.model,
                dict(sig.get("settings") or {}),
                created_at=run.created_at,
            )
        v.run_ids.append(run.id)
    versions = sorted(
        by_sig.values(), key=lambda v: (v.evaluator, _version_order(v.version), v.signature)
    )
    _labels(versions)
    return versions


def _version_order(version: str) -> tuple[int, float, str]:
    """Numeric versions in numeric order, then the rest by text."""
    try:
        return (0, float(version), "")
    except ValueError:
        return (1, 0.0, version)


def version_results(store: Store, version: Version) -> pd.DataFrame:
    """Every stored result of the version's runs (ok and failed), RESULT_COLUMNS."""
    stored = RESULT_COLUMNS[2:]  # after item_id and run_id
    rows = [
        (row[0], run_id, *row[1:])
        for run_id in version.run_ids
        for row in store.run_result_rows(run_id, stored)
    ]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)
