"""Import the Schema-Guided Dialogue dataset (SGD) into a dialogue faithfulness project.

One item per system act: the act, the system utterance (the dataset's ground truth), the
user turn before it, the slot's schema description and categorical flag, the service.
Item ids are ``{dialogue_id}:{turn_index}:{act_index}`` (``act_index`` counts across the
turn's frames); a root holding several splits prefixes ``{split}/``, since dialogue ids
repeat across splits. Extra item fields: ``possible_values`` (categorical slots),
``substitute_values`` (other values of a non-categorical slot seen elsewhere in the data,
for SGSAcc's negative references), ``canonical_values``, ``dialogue_id``, ``turn_index``
and ``utterance_id`` (``{split/}{dialogue_id}:{turn_index}``): the keys that group a
turn's acts into its utterance, for SGSAcc's per-utterance figure.

With ``negatives=True`` every act with a schema slot and values also gets a tampered copy
(the SGSAcc paper's negative examples): its first value is replaced by another possible
value (categorical; booleans flip) or by a value of the same slot from elsewhere in the
data that does not occur in the utterance (non-categorical). Tampered copies have the id
suffix ``:neg``, generator ``sgd-tampered`` and the real values in ``original_values``.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from annotation_store.records import ImportReport

KIND = "dialogue_faithfulness"
SPLITS = ("train", "dev", "test")
GENERATOR = "sgd-ground-truth"
TAMPERED = "sgd-tampered"
ATTRIBUTION = (
    "Schema-Guided Dialogue dataset (Rastogi et al., 2020; "
    "google-research-datasets/dstc8-schema-guided-dialogue), CC BY-SA 4.0"
)
MAX_SUBSTITUTES = 3
BATCH = 500


def shared_sgd_root() -> Path:
    """The SGD subset beside the repository (``../shared/datasets/sgd``), or
    ``WORKBENCH_SGD_DIR``; for tests and benchmarks."""
    env = os.environ.get("WORKBENCH_SGD_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "datasets" / "sgd"


def split_dirs(directory: str | Path) -> list[Path]:
    """The split directories: DIR itself, or its train/dev/test subdirectories."""
    root = Path(directory)
    if not root.is_dir():
        raise FileNotFoundError(f"SGD directory not found: {root}")
    if (root / "schema.json").is_file() and any(root.glob("dialogues_*.json")):
        return [root]
    found = [
        root / s
        for s in SPLITS
        if (root / s / "schema.json").is_file() and any((root / s).glob("dialogues_*.json"))
    ]
    if not found:
        raise FileNotFoundError(
            f"no SGD split in {root}: expected schema.json and "
            "dialogues_*.json, or train/dev/test subdirectories with them"
        )
    return found


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def _slots(schema: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (svc["service_name"], slot["name"]): slot for svc in schema for slot in svc.get("slots", [])
    }


def _system_acts(dialogue: dict[str, Any]) -> Iterator[tuple[int, int, str, dict, str, str]]:
    """(turn index, act index, service, action, utterance, previous user turn)."""
    previous = ""
    for turn_index, turn in enumerate(dialogue["turns"]):
        if turn["speaker"] != "SYSTEM":
            previous = turn["utterance"]
            continue
        act_index = 0
        for frame in turn["frames"]:
            for action in frame.get("actions", []):
                yield turn_index, act_index, frame["service"], action, turn["utterance"], previous
                act_index += 1


def _value_pool(dialogues: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
    """Values seen for each (service, slot) in any turn, in first-seen order."""
    pool: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for frame in turn["frames"]:
                for action in frame.get("actions", []):
                    for value in action.get("values") or []:
                        pool[(frame["service"], action.get("slot", ""))][value] = None
    return {k: list(v) for k, v in pool.items()}


def read_sgd(
    directory: str | Path, *, negatives: bool = False, limit: int | None = None, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """Items as ``{"item_id", "fields", "split", "generator"}`` (``limit`` counts real acts)."""
    dirs = split_dirs(directory)
    count = 0
    for split_dir in dirs:
        prefix = f"{split_dir.name}/" if len(dirs) > 1 else ""
        slots = _slots(_load(split_dir / "schema.json"))
        dialogues = [d for f in sorted(split_dir.glob("dialogues_*.json")) for d in _load(f)]
        pool = _value_pool(dialogues)
        for dialogue in dialogues:
            for turn_i, act_i, service, action, utterance, previous in _system_acts(dialogue):
                if not utterance.strip():
                    continue  # one test turn has an empty utterance: nothing to judge
                if limit is not None and count >= limit:
                    return
                count += 1
                item_id = f"{prefix}{dialogue['dialogue_id']}:{turn_i}:{act_i}"
                item = _item(
                    item_id,
                    split_dir.name,
                    service,
                    action,
                    utterance,
                    previous,
                    slots.get((service, action.get("slot", ""))),
                    pool,
                )
                item["fields"].update(
                    dialogue_id=dialogue["dialogue_id"],
                    turn_index=turn_i,
                    utterance_id=f"{prefix}{dialogue['dialogue_id']}:{turn_i}",
                )
                yield item
                if negatives:
                    tampered = _tampered(item, random.Random(f"{seed}:{item_id}"))
                    if tampered is not None:
                        yield tampered


def _item(
    item_id: str,
    split: str,
    service: str,
    action: dict[str, Any],
    utterance: str,
    previous: str,
    slot: dict[str, Any] | None,
    pool: dict[tuple[str, str], list[str]],
) -> dict[str, Any]:
    values = list(action.get("values") or [])
    fields: dict[str, Any] = {
        "service": service,
        "act": {"act": action["act"], "slot": action.get("slot", ""), "values": values},
        "utterance": utterance,
        "canonical_values": list(action.get("canonical_values") or []),
    }
    if previous:
        fields["previous_turn"] = previous
    if slot is not None:
        fields["slot_description"] = slot.get("description", "")
        fields["is_categorical"] = bool(slot.get("is_categorical"))
        if slot.get("is_categorical"):
            fields["possible_values"] = list(slot.get("possible_values") or [])
        elif values:
            text = utterance.lower()
            others = [
                v
                for v in pool.get((service, slot["name"]), [])
                if v.lower() not in text and v not in values
            ]
            fields["substitute_values"] = others[:MAX_SUBSTITUTES]
    return {"item_id": item_id, "fields": fields, "split": split, "generator": GENERATOR}


def _tampered(item: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A copy with the first value replaced, or None when there is nothing to swap in."""
    fields = item["fields"]
    act = fields["act"]
    if not act["values"] or act["act"] == "REQUEST" or "is_categorical" not in fields:
        return None
    current = {v.lower() for v in act["values"]}
    if fields["is_categorical"]:
        choices = [v for v in fields.get("possible_values", []) if v.lower() not in current]
    else:
        choices = list(fields.get("substitute_values", []))
    if not choices:
        return None
    values = [rng.choice(choices), *act["values"][1:]]
    new_fields = {
        **fields,
        "act": {**act, "values": values},
        "original_values": list(act["values"]),
    }
    return {
        "item_id": item["item_id"] + ":neg",
        "fields": new_fields,
        "split": item["split"],
        "generator": TAMPERED,
    }


def import_sgd(
    store: Any,
    project: str,
    directory: str | Path,
    *,
    negatives: bool = False,
    limit: int | None = None,
    seed: int = 0,
) -> ImportReport:
    """Read SGD from ``directory`` into ``project`` (created as dialogue_faithfulness if
    missing); re-importing the same data leaves items unchanged."""
    from annotation_store import StoreError
    from kinds import get_kind

    split_dirs(directory)  # a wrong directory fails here, before the project is created
    try:
        info = store.project(project)
    except StoreError:
        info = None
    if info is None:
        store.create_project(project, KIND, {"source": ATTRIBUTION})
    elif info.kind != KIND:
        raise StoreError(f"project {project!r} is of kind {info.kind!r}, not {KIND!r}")
    report = ImportReport()
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        part = store.upsert_items(project, batch)
        report.created += part.created
        report.updated += part.updated
        report.unchanged += part.unchanged
        batch.clear()

    kind = get_kind(KIND)
    for item in read_sgd(directory, negatives=negatives, limit=limit, seed=seed):
        batch.append({**item, "fields": kind.validate_item(item["fields"])})
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    report.notes.append(f"data: {ATTRIBUTION}")
    return report
