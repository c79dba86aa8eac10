"""Rebuild demo/sgd_excerpt/items.jsonl from a copy of the SGD test split.

    python scripts/make_sgd_excerpt.py ../shared/datasets/sgd/test

Picks one real system act per act type (and categorical / boolean variant) from the
first dialogues, keeping the utterance, the previous user turn and the slot description.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

WANTED = 14


def main(split_dir: str) -> None:
    """Write the excerpt next to the demo data."""
    root = Path(split_dir)
    schema = {s["service_name"]: s for s in json.loads((root / "schema.json").read_text())}
    dialogues = json.loads((root / "dialogues_001.json").read_text())
    picked: dict[tuple, dict] = {}
    for dialogue in dialogues[:60]:
        previous = None
        for turn_index, turn in enumerate(dialogue["turns"]):
            if turn["speaker"] == "USER":
                previous = turn["utterance"]
                continue
            for frame in turn["frames"]:
                slots = {s["name"]: s for s in schema[frame["service"]]["slots"]}
                for act_index, act in enumerate(frame["actions"]):
                    slot = slots.get(act["slot"])
                    categorical = bool(slot and slot["is_categorical"])
                    boolean = bool(
                        slot and set(slot.get("possible_values", [])) == {"True", "False"}
                    )
                    key = (act["act"], categorical, boolean)
                    if key in picked:
                        continue
                    picked[key] = {
                        "item_id": f"sgd:{dialogue['dialogue_id']}:{turn_index}:{act_index}",
                        "service": frame["service"],
                        "act": {"act": act["act"], "slot": act["slot"], "values": act["values"]},
                        "utterance": turn["utterance"],
                        "previous_turn": previous,
                        "slot_description": slot["description"] if slot else "",
                        "is_categorical": str(categorical).lower(),
                        "generator": "sgd-ground-truth",
                    }
    out = Path(__file__).resolve().parent.parent / "demo" / "sgd_excerpt" / "items.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = sorted(picked.values(), key=lambda r: r["item_id"])[:WANTED]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} acts to {out}")  # noqa: T201


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/datasets/sgd/test")
