"""Many annotators claiming, submitting and skipping at once (threads, one store).

``claim_next`` holds no project lock: each claim locks one item row at a time and passes
over rows another claim holds. Whatever the interleaving, no item may reach one
annotator twice nor hold more than k annotators, and the queue fills items to k in
position order (with 12 annotators and 40 items, k = 3: the first 12 items first).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from sqlalchemy import select

from annotation_store import Store
from annotation_store.models import Annotator, Assignment, Item
from studies import assignments as asg

K = 3
PEOPLE = 12
ROUNDS = 6


def _crowd(work: Callable[[str], None]) -> list[str]:
    """Run ``work(name)`` for every annotator in its own thread; returns their errors."""
    errors: list[str] = []
    start = threading.Barrier(PEOPLE)

    def run(name: str) -> None:
        start.wait()
        try:
            work(name)
        except Exception as exc:  # collected and asserted below
            errors.append(f"{name}: {exc!r}")

    threads = [threading.Thread(target=run, args=(f"a{j:02d}",)) for j in range(PEOPLE)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return errors


def _claims(store: Store) -> list[tuple[str, str, str]]:
    with store.read() as s:
        return [
            tuple(r)
            for r in s.execute(
                select(Item.item_id, Annotator.name, Assignment.status)
                .join(Item, Item.id == Assignment.item_pk)
                .join(Annotator, Annotator.id == Assignment.annotator_id)
            )
        ]


def test_concurrent_claims_never_duplicate_nor_exceed_k(any_store: Store) -> None:
    store = any_store
    store.create_project("c", "binary", {"k": K})
    store.upsert_items("c", [{"item_id": f"i{i:03d}", "fields": {"text": "t"}} for i in range(40)])
    for j in range(PEOPLE):
        store.ensure_annotator(f"a{j:02d}")
    handed: list[tuple[str, str]] = []
    lock = threading.Lock()

    def work(name: str) -> None:
        for n in range(ROUNDS):
            item = asg.claim_next(store, "c", name)
            assert item is not None
            with lock:
                handed.append((item, name))
            store.save_label("c", item, name, "label", n % 2)
            if n == 2 and name < "a04":  # a few skips free slots for others
                asg.skip(store, "c", item, name)
            else:
                asg.submit(store, "c", item, name, seconds=1.0)

    assert _crowd(work) == []
    assert len(handed) == PEOPLE * ROUNDS
    assert max(Counter(handed).values()) == 1  # nobody got one item twice
    rows = _claims(store)
    assert max(Counter((i, who) for i, who, _ in rows).values()) == 1
    holders = Counter(i for i, _, status in rows if status in ("open", "done"))
    assert max(holders.values()) <= K
    submitted = store.annotations_frame("c").groupby("item_id")["annotator"].nunique()
    assert int(submitted.max()) <= K
    # 72 claims, 4 released by skips: 68 done. Items fill to k in position order, so at
    # most one partly filled item per annotator lies beyond the full ones (a random
    # order would reach far into the 40 items).
    done = [i for i, _, status in rows if status == "done"]
    assert len(done) == PEOPLE * ROUNDS - 4
    touched = sorted({int(i[1:]) for i, _, status in rows if status != "released"})
    assert touched[-1] < len(done) // K + PEOPLE


def test_a_freed_slot_reopens_a_full_item(any_store: Store) -> None:
    """A skip frees a slot on an item the queue had marked full: the next claim takes it."""
    store = any_store
    store.create_project("f", "binary", {"k": 2})
    store.upsert_items("f", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(3)])
    for name in ("a", "b", "c"):
        store.ensure_annotator(name)
    assert asg.claim_next(store, "f", "a") == "i0"
    assert asg.claim_next(store, "f", "b") == "i0"  # i0 now holds k = 2: marked full
    with store.read() as s:
        assert s.scalar(select(Item.queue_full).where(Item.item_id == "i0")) is True
    asg.skip(store, "f", "i0", "b")
    assert asg.claim_next(store, "f", "c") == "i0"
    assert asg.claim_next(store, "f", "b") == "i1"  # b skipped i0: never handed it again
