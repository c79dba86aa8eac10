"""The claim queue chooses exactly what the rules say (checked against a reference).

``claim_next`` applies the rules to plain rows under the project lock.
The reference below applies the rules from the module docstring of
``studies.assignments`` to every row of the project in Python; random sequences
of claims and saves (some in the past, so claims go stale), submits, skips and explicit
assignments must make both choose the same item every time, for every strategy.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from sqlalchemy import select

from annotation_store import Store
from annotation_store.models import Annotator, Assignment, Item, ItemProgress, Project, utcnow
from studies import assignments as asg
from studies.assignments import AssignmentError, annotation_settings


def _rows(store: Store, project: str, annotator: str) -> dict[str, Any]:
    with store.read() as s:
        proj = s.scalar(select(Project).where(Project.name == project))
        assert proj is not None
        return {
            "settings": dict(proj.settings or {}),
            "who": s.scalar(select(Annotator.id).where(Annotator.name == annotator)),
            "items": s.execute(
                select(Item.id, Item.item_id, Item.position)
                .where(Item.project_id == proj.id)
                .order_by(Item.position)
            ).all(),
            "claims": s.execute(
                select(
                    Assignment.id,
                    Assignment.item_pk,
                    Assignment.annotator_id,
                    Assignment.status,
                    Assignment.explicit,
                    Assignment.created_at,
                ).where(Assignment.project_id == proj.id)
            ).all(),
            "progress": {
                (r[0], r[1]): (r[2], r[3])
                for r in s.execute(
                    select(
                        ItemProgress.item_pk,
                        ItemProgress.annotator_id,
                        ItemProgress.status,
                        ItemProgress.updated_at,
                    ).where(ItemProgress.project_id == proj.id)
                )
            },
        }


def expected_claim(store: Store, project: str, annotator: str, now: datetime) -> str | None:
    """The rules applied in Python to every row (no gold items in these projects)."""
    rows = _rows(store, project, annotator)
    cfg = annotation_settings(rows["settings"])
    who, progress = rows["who"], rows["progress"]
    item_id = {i.id: i.item_id for i in rows["items"]}
    status = {c.id: c.status for c in rows["claims"]}
    mine = {c.item_pk: c for c in rows["claims"] if c.annotator_id == who}
    done_here = {pk: st for (pk, w), (st, _) in progress.items() if w == who}
    for c in sorted(mine.values(), key=lambda c: (not c.explicit, c.created_at, c.id)):
        if c.status != "open":
            continue
        if done_here.get(c.item_pk) in ("submitted", "skipped"):
            status[c.id] = "done" if done_here[c.item_pk] == "submitted" else "released"
            continue
        return item_id[c.item_pk]
    submitted = sum(1 for st in done_here.values() if st == "submitted")
    if cfg.quota is not None and submitted >= cfg.quota:
        return None
    cutoff = now - timedelta(minutes=cfg.claim_timeout_minutes)
    active: dict[int, set[int]] = {}
    for (pk, w), (st, _) in progress.items():
        if st == "submitted":
            active.setdefault(pk, set()).add(w)
    for c in rows["claims"]:
        if status[c.id] not in ("open", "done"):
            continue
        if status[c.id] == "open" and not c.explicit:
            prog = progress.get((c.item_pk, c.annotator_id))
            last = max(c.created_at, prog[1] if prog and prog[1] else c.created_at)
            if last < cutoff:
                continue
        active.setdefault(c.item_pk, set()).add(c.annotator_id)
    free = [
        i
        for i in rows["items"]
        if i.id not in mine and i.id not in done_here and len(active.get(i.id, ())) < cfg.k
    ]
    if not free:
        return None
    if cfg.assignment == "random":
        import hashlib

        def key(i: Any) -> tuple[Any, ...]:
            text = f"{cfg.seed}:{annotator}:{i.item_id}"
            return (hashlib.sha256(text.encode()).hexdigest(),)
    elif cfg.assignment == "least_annotated":

        def key(i: Any) -> tuple[Any, ...]:
            return (len(active.get(i.id, ())), i.position)
    else:

        def key(i: Any) -> tuple[Any, ...]:
            return (i.position,)

    return min(free, key=key).item_id


def _play(store: Store, strategy: str, k: int, seed: int, steps: int) -> int:
    """Random steps; every claim is compared with the reference. Returns claims checked."""
    rng = random.Random(seed)
    settings = {"k": k, "assignment": strategy, "seed": seed, "claim_timeout_minutes": 30}
    if seed % 3 == 0:
        settings["quota"] = 3
    store.create_project("p", "binary", settings)
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(9)])
    people = [store.ensure_annotator(f"a{j}").name for j in range(5)]
    held: dict[str, str | None] = {}
    checked = 0
    for _ in range(steps):
        who = rng.choice(people)
        op = rng.random()
        if op < 0.5 or held.get(who) is None:
            now = utcnow() - timedelta(minutes=rng.choice([0, 0, 45, 90]))
            want = expected_claim(store, "p", who, now)
            got = asg.claim_next(store, "p", who, now=now)
            assert got == want, (strategy, k, seed, who, now)
            held[who] = got
            checked += 1
        elif op < 0.8:
            # Some saves happen "long ago", so claims touched by them may go stale.
            then = utcnow() - timedelta(minutes=rng.choice([0, 0, 45, 90]))
            with mock.patch("annotation_store.store_labels.utcnow", return_value=then):
                store.save_label("p", held[who], who, "label", rng.randint(0, 1))
            if rng.random() < 0.8:
                try:
                    asg.submit(store, "p", held[who], who, seconds=1.0)
                except AssignmentError:
                    pass
                held[who] = None
        elif op < 0.9:
            asg.skip(store, "p", held[who], who)
            held[who] = None
        else:
            asg.assign(store, "p", [f"i{rng.randrange(9)}"], who)
    return checked


@pytest.mark.parametrize("strategy", ["in_order", "least_annotated", "random"])
def test_claims_match_the_reference_on_sqlite(tmp_path, strategy: str) -> None:
    checked = 0
    for seed in range(6):
        store = Store(f"sqlite:///{tmp_path / f'{strategy}{seed}.db'}")
        checked += _play(store, strategy, k=1 + seed % 3, seed=seed, steps=60)
        store.close()
    assert checked > 100


def test_claims_match_the_reference_on_both_backends(any_store: Store) -> None:
    assert _play(any_store, "least_annotated", k=2, seed=4, steps=80) > 30
