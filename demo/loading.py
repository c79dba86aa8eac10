"""Load the demo projects from ``demo/`` (once; existing projects are left alone)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from annotation_store import StoreError
from annotation_store.store import Store
from common.records import EvalResult, Signature
from interop.importing import import_annotations, import_items, import_scores
from kinds.base import f1, share_implied

DEMO_DIR = Path(__file__).resolve().parent
DEMO_NOTE = "\n\n> Demo project: every annotation and score in it is demo data.\n"


@dataclass(frozen=True)
class DemoProject:
    """One demo project: its name, kind and the files that fill it."""

    name: str
    kind: str
    items: tuple[str, ...]
    annotations: str
    scores: str | None = None


DEMO_PROJECTS = (
    DemoProject(
        "demo-intent-match",
        "intent_match",
        ("intent_match/items.jsonl",),
        "intent_match/annotations.csv",
        "intent_match/scores.csv",
    ),
    DemoProject(
        "demo-actionability",
        "actionability",
        ("actionability/items.jsonl",),
        "actionability/annotations.csv",
        "actionability/scores.csv",
    ),
    DemoProject(
        "demo-dialogue",
        "dialogue_faithfulness",
        ("sgd_excerpt/items.jsonl", "dialogue_faithfulness/tampered.jsonl"),
        "dialogue_faithfulness/annotations.csv",
    ),
    DemoProject(
        "demo-intent-resolution",
        "intent_resolution",
        ("intent_resolution/items.jsonl",),
        "intent_resolution/annotations.csv",
        "intent_resolution/scores.csv",
    ),
    # Synthetic, a few hundred items: two judge versions (workbench_api.demo records
    # their runs), a word-overlap metric and four people, so alignment, the alternative
    # annotator test and the estimates have something to find.
    DemoProject(
        "demo-judge-study",
        "intent_resolution",
        ("judge_study/items.jsonl",),
        "judge_study/annotations.csv",
        "judge_study/scores.csv",
    ),
)


def load_demo(store: Store, demo_dir: Path = DEMO_DIR) -> list[str]:
    """Create every demo project that does not exist yet; returns the names created."""
    existing = {p.name for p in store.projects()}
    created = []
    for spec in DEMO_PROJECTS:
        if spec.name in existing:
            continue
        _load_one(store, spec, demo_dir)
        created.append(spec.name)
    return created


def _load_one(store: Store, spec: DemoProject, demo_dir: Path) -> None:
    from kinds import get_kind

    # Three demo annotators label every item; k=4 leaves a slot for whoever tries the demo.
    info = store.create_project(
        spec.name, spec.kind, {"k": 4}, guideline=get_kind(spec.kind).guideline + DEMO_NOTE
    )
    try:
        for path in spec.items:
            import_items(store, info.name, demo_dir / path)
        import_annotations(store, info.name, demo_dir / spec.annotations)
        if spec.scores:
            import_scores(store, info.name, demo_dir / spec.scores)
        recorded = demo_dir / "intent_match" / "bifact_recorded.jsonl"
        if spec.kind == "intent_match" and recorded.is_file():
            _load_recorded_bifact(store, info.name, recorded)
    except Exception:
        store.delete_project(info.name)  # a half-loaded demo is worse than none
        raise


def _load_recorded_bifact(store: Store, project: str, path: Path) -> None:
    """Store a recorded Bi-Fact run (per-fact labels written for the demo) as one run."""
    signature = Signature("bifact (demo)", "recorded", "recorded-demo-replies", None, {})
    run_id = store.create_run(project, signature, 0, source="import")
    results = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        details = row["details"]
        recall = share_implied([f["label"] for f in details["gold_facts"]])
        precision = share_implied([f["label"] for f in details["predicted_facts"]])
        results.append(
            EvalResult(
                item_id=row["item_id"],
                signature=signature,
                scores={"recall": recall, "precision": precision, "f1": f1(precision, recall)},
                details=details,
                reasoning="Recorded demo reply (not a live model call).",
            )
        )
    store.save_results(project, run_id, results)
    store.finish_run(run_id)


def ensure_demo(store: Store) -> list[str]:
    """Load the demo unless any project exists (``make run`` calls this on start)."""
    try:
        if store.projects():
            return []
    except StoreError:
        return []
    return load_demo(store)
