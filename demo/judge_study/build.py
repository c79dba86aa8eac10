"""Build the synthetic judge-study demo (seeded; rerun to get the same files).

    python demo/judge_study/build.py

Writes items.jsonl, annotations.csv, scores.csv, judge_runs.jsonl and metaeval_scores.csv
next to this file.
Everything here is synthetic: made-up support questions, answers assembled from templates
at six levels of how well they resolve the question, human labels and judge grades drawn
around that level. The recipe is in demo/README.md.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261126
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: (system, mean level): three systems of different quality.
SYSTEMS = (("assistant-a", 0.75), ("assistant-b", 0.55), ("assistant-c", 0.35))
PEOPLE = ("demo-annotator-1", "demo-annotator-2", "demo-annotator-3", "demo-annotator-4")
#: How far each person's grade strays from the true level (annotator 4 is careless).
PERSON_NOISE = (0.08, 0.1, 0.1, 0.25)
N_ITEMS = 300
HUMAN_SHARE = 0.5  # people labelled half of the items; the judges all of them

TASKS = [
    (
        "reset my router",
        "unplug it for thirty seconds",
        "plug it back in",
        "wait for the lights to settle",
    ),
    ("export my contacts", "open Settings", "choose Contacts > Export", "pick the vCard format"),
    (
        "change my billing address",
        "sign in to your account",
        "open Billing",
        "edit the address and save",
    ),
    ("cancel my subscription", "open Account", "choose Subscription", "press Cancel and confirm"),
    (
        "turn on two-factor sign-in",
        "open Security",
        "choose Two-step verification",
        "scan the code with your app",
    ),
    ("clear the app cache", "open the app's settings", "choose Storage", "press Clear cache"),
    (
        "share a folder with a colleague",
        "right-click the folder",
        "choose Share",
        "enter their e-mail and pick Can edit",
    ),
    ("recover a deleted file", "open the Bin", "find the file", "choose Restore"),
    (
        "update my card details",
        "open Payments",
        "choose the card",
        "enter the new number and expiry date",
    ),
    (
        "move my photos to a new phone",
        "install the app on the new phone",
        "sign in with the same account",
        "turn on photo sync",
    ),
    (
        "set an out-of-office reply",
        "open mail settings",
        "choose Automatic replies",
        "write the message and set the dates",
    ),
    (
        "change the language of the app",
        "open Settings",
        "choose Language",
        "pick the language and restart",
    ),
    (
        "download my invoices",
        "open Billing",
        "choose Invoices",
        "press Download next to each month",
    ),
    (
        "add a user to our team plan",
        "open Team",
        "press Invite",
        "enter their e-mail and choose a role",
    ),
    ("stop e-mail notifications", "open Notifications", "untick E-mail", "save the page"),
    ("book a repair", "open Support", "choose Book a repair", "pick a date and the nearest shop"),
    (
        "change my password",
        "open Security",
        "choose Change password",
        "enter the old and the new password",
    ),
    ("connect a printer", "turn the printer on", "open Devices", "choose Add printer and pick it"),
    (
        "merge two accounts",
        "sign in to the account you keep",
        "open Account > Merge",
        "confirm with the other account's code",
    ),
    ("set a spending limit", "open Budget", "choose Limits", "enter the monthly amount"),
    (
        "get a refund for a late order",
        "open Orders",
        "choose the order",
        "press Request refund and give the reason",
    ),
    ("rename a project", "open the project", "choose Settings", "edit the name and save"),
    ("back up my messages", "open Chats", "choose Backup", "press Back up now"),
    (
        "delete my account",
        "open Privacy",
        "choose Delete account",
        "confirm by e-mail within a week",
    ),
    ("schedule a post", "write the post", "press the clock icon", "pick the day and time"),
]
OFF_TOPIC = [
    "Our service keeps your data safe with modern encryption.",
    "Thank you for being a loyal customer since the early days.",
    "Many users enjoy our new dark theme, available in every plan.",
    "You can find more tips on our blog, updated every week.",
]
FILLER = (
    " Let us know if there is anything else we can help with; our team is available "
    "around the clock and we value your feedback on every interaction."
)


def response(rng: random.Random, task: tuple[str, ...], level: float) -> str:
    """An answer that resolves the question to ``level`` (0.0 off topic ... 1.0 fully)."""
    goal, a, b, c = task
    goal = goal.replace("my ", "your ")
    if level == 1.0:
        return f"To {goal}: {a}, then {b}, and finally {c}. That is all it takes."
    if level == 0.8:
        return f"To {goal}, {a} and then {b}; the last step is on the same screen."
    if level == 0.6:
        return f"You can {goal} from the app: start with this step, {a}, and follow the prompts."
    if level == 0.4:
        return f"It is possible to {goal}, but the steps depend on your plan. Check the app's help pages."
    if level == 0.2:
        return f"Sorry to hear you need to {goal}. {rng.choice(OFF_TOPIC)}"
    return rng.choice(OFF_TOPIC)


def near_level(rng: random.Random, value: float) -> float:
    """``value`` clipped to 0-1 and rounded to the scale's nearest level."""
    return min(LEVELS, key=lambda lv: abs(lv - max(0.0, min(1.0, value))))


def build(out: Path = HERE) -> None:
    """Write the five demo files into ``out``."""
    rng = random.Random(SEED)
    items, truth, lengths = [], {}, {}
    for n in range(N_ITEMS):
        task = TASKS[n % len(TASKS)]
        system, mean = SYSTEMS[n % len(SYSTEMS)]
        level = near_level(rng, rng.gauss(mean, 0.28))
        text = response(rng, task, level)
        if rng.random() < 0.3:  # padding makes answers longer, not better
            text += FILLER
        item_id = f"q{n:03d}"
        items.append(
            {
                "item_id": item_id,
                "query": f"How do I {task[0]}?",
                "response": text,
                "generator": system,
                "split": "dev" if n % 5 == 0 else "test",
            }
        )
        truth[item_id], lengths[item_id] = level, len(text)

    labelled = [it["item_id"] for it in items if rng.random() < HUMAN_SHARE]
    labels = []
    for item_id in labelled:
        for person in rng.sample(range(len(PEOPLE)), 3):
            value = near_level(rng, rng.gauss(truth[item_id], PERSON_NOISE[person]))
            labels.append((item_id, PEOPLE[person], "resolution", value))

    runs, scores = [], []
    for item in items:
        item_id, level = item["item_id"], truth[item["item_id"]]
        long_bonus = 0.25 if lengths[item_id] > 160 else 0.0
        v1 = near_level(rng, level + 0.15 + long_bonus + rng.gauss(0, 0.25))
        v2 = near_level(rng, level + rng.gauss(0, 0.06))
        runs.append({"item_id": item_id, "version": 1, "resolution": v1})
        runs.append({"item_id": item_id, "version": 2, "resolution": v2})
        overlap = max(0.0, min(1.0, 0.3 + 0.4 * level + rng.gauss(0, 0.15)))
        scores.append((item_id, "word-overlap (demo)", "resolution", round(overlap, 3)))

    _metaeval_columns(items, truth)
    metaeval_scores = _metaeval_scores(items, truth)

    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    with (out / "annotations.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["item_id", "annotator", "field", "value"])
        w.writerows(labels)
    with (out / "scores.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["item_id", "evaluator", "field", "value"])
        w.writerows(scores)
    with (out / "judge_runs.jsonl").open("w", encoding="utf-8") as f:
        for row in runs:
            f.write(json.dumps(row) + "\n")
    with (out / "metaeval_scores.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["item_id", "evaluator", "field", "value"])
        w.writerows(metaeval_scores)


#: Each assistant answered in four checkpoints: twelve systems, one answer per question.
CHECKPOINTS = 4


def _metaeval_columns(items: list[dict], truth: dict[str, float]) -> None:
    """Name the input (the question) and the system (assistant and checkpoint) of every
    item, for the meta-evaluation (docs/metaeval.md). Every (input, system) pair has
    exactly one item. Added after everything else is drawn, so no other figure moves."""
    for n, it in enumerate(items):
        it["input"] = f"task-{n % len(TASKS):02d}"
        it["model"] = f"{it['generator']}-ckpt{(n // len(TASKS)) // 3 % CHECKPOINTS + 1}"


def _metaeval_scores(items: list[dict], truth: dict[str, float]) -> list[tuple]:
    """Two metrics that disagree about what matters, from a random stream of their own:
    ``system-prior`` knows each system's average quality and little about single answers
    (good at the system level, poor item by item); ``style-match`` follows each answer's
    quality closely but adds every system's own style bias (far better than system-prior
    item by item, worse at ranking the systems)."""
    rng = random.Random(SEED + 41)
    by_model: dict[str, list[float]] = {}
    for it in items:
        by_model.setdefault(it["model"], []).append(truth[it["item_id"]])
    mean = {m: sum(v) / len(v) for m, v in by_model.items()}
    style = {m: rng.gauss(0, 0.4) for m in sorted(by_model)}
    out = []
    for it in items:
        item_id, model = it["item_id"], it["model"]
        prior = mean[model] + rng.gauss(0, 0.3)
        match = truth[item_id] + style[model] + rng.gauss(0, 0.05)
        out.append((item_id, "system-prior (demo)", "resolution", round(prior, 3)))
        out.append((item_id, "style-match (demo)", "resolution", round(match, 3)))
    return out


if __name__ == "__main__":
    build()
