"""Claim-next with overlap k: strategies, quota, explicit assignment, stale claims, races."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from annotation_store import Store
from annotation_store.models import utcnow
from studies import assignments as asg


def _project(store: Store, n: int = 6, k: int = 2, **settings) -> str:
    store.create_project("p", "binary", {"k": k, **settings})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(n)])
    return "p"


def _people(store: Store, n: int) -> list[str]:
    return [store.ensure_annotator(f"a{i:02d}").name for i in range(n)]


def _label_and_submit(store: Store, item: str, who: str) -> None:
    store.save_label("p", item, who, "label", 1)
    asg.submit(store, "p", item, who, seconds=1.0)


def _submitted_per_item(store: Store) -> dict[str, int]:
    frame = store.annotations_frame("p")
    return frame.groupby("item_id")["annotator"].nunique().to_dict()


def test_in_order_resumes_open_claim_until_submitted(store: Store) -> None:
    _project(store)
    (a,) = _people(store, 1)
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.claim_next(store, "p", a) == "i0"  # resume, not a second claim
    _label_and_submit(store, "i0", a)
    assert asg.claim_next(store, "p", a) == "i1"
    assert asg.queue(store, "p", a) == ["i0", "i1"]


def test_k_claims_block_a_third_annotator(store: Store) -> None:
    _project(store, n=1, k=2)
    a, b, c = _people(store, 3)
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.claim_next(store, "p", b) == "i0"
    assert asg.claim_next(store, "p", c) is None


def test_skip_releases_the_slot(store: Store) -> None:
    _project(store, n=1, k=1)
    a, b = _people(store, 2)
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.claim_next(store, "p", b) is None
    asg.skip(store, "p", "i0", a)
    assert asg.claim_next(store, "p", b) == "i0"
    assert asg.claim_next(store, "p", a) is None  # a skipped it: never offered again


def test_stale_claim_is_reclaimed_and_late_submit_refused(store: Store) -> None:
    _project(store, n=1, k=1, claim_timeout_minutes=30)
    a, b = _people(store, 2)
    assert asg.claim_next(store, "p", a, now=utcnow() - timedelta(hours=2)) == "i0"
    store.save_label("p", "i0", a, "label", 0)  # activity now: claim is fresh again
    assert asg.claim_next(store, "p", b) is None
    later = utcnow() + timedelta(minutes=31)
    assert asg.claim_next(store, "p", b, now=later) == "i0"
    with pytest.raises(asg.AssignmentError, match="already has its 1 annotators"):
        asg.submit(store, "p", "i0", a)
    _label_and_submit(store, "i0", b)
    assert _submitted_per_item(store) == {"i0": 1}
    assert store.item_state("p", "i0", a)["labels"] == {"label": 0}  # drafts are kept


def test_random_strategy_is_deterministic_per_annotator(store: Store) -> None:
    _project(store, n=20, k=5, assignment="random", seed=7)
    a, b = _people(store, 2)
    first_a = asg.claim_next(store, "p", a)
    first_b = asg.claim_next(store, "p", b)
    other = Store(store.url)
    try:
        other.delete_project("p")
        _project(other, n=20, k=5, assignment="random", seed=7)
        assert asg.claim_next(other, "p", a) == first_a
        assert asg.claim_next(other, "p", b) == first_b
    finally:
        other.close()
    orders = set()
    for seed in range(5):
        store.update_settings("p", {"k": 5, "assignment": "random", "seed": seed})
        orders.add(
            asg.claim_next(store, "p", f"x{seed}") if store.ensure_annotator(f"x{seed}") else None
        )
    assert len(orders) > 1  # the seed changes the order


def test_least_annotated_first(store: Store) -> None:
    _project(store, n=3, k=3, assignment="least_annotated")
    a, b, c = _people(store, 3)
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.claim_next(store, "p", b) == "i1"  # i0 has one claim, i1 none
    assert asg.claim_next(store, "p", c) == "i2"


def test_quota_stops_the_queue(store: Store) -> None:
    _project(store, n=5, k=1, quota=2)
    (a,) = _people(store, 1)
    for expected in ("i0", "i1"):
        item = asg.claim_next(store, "p", a)
        assert item == expected
        _label_and_submit(store, item, a)
    assert asg.claim_next(store, "p", a) is None


def test_explicit_assignment_comes_first_and_may_exceed_k(store: Store) -> None:
    _project(store, n=4, k=1)
    a, b = _people(store, 2)
    assert asg.claim_next(store, "p", a) == "i0"
    assert asg.assign(store, "p", ["i3", "i0"], b) == 2
    assert asg.claim_next(store, "p", b) == "i3"
    _label_and_submit(store, "i3", b)
    assert asg.claim_next(store, "p", b) == "i0"
    assert asg.may_open(store, "p", "i0", b, "annotator")
    assert not asg.may_open(store, "p", "i2", b, "annotator")
    assert asg.may_open(store, "p", "i2", b, "reviewer")


@pytest.mark.slow
def test_twenty_concurrent_annotators_never_exceed_k(any_store: Store) -> None:
    store = any_store
    n_items, k = 12, 3
    store.create_project("p", "binary", {"k": k, "assignment": "least_annotated"})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "x"}} for i in range(n_items)])
    people = _people(store, 20)
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(people))

    def work(who: str) -> None:
        try:
            barrier.wait()
            while True:
                item = asg.claim_next(store, "p", who)
                if item is None:
                    return
                _label_and_submit(store, item, who)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not errors, errors
    counts = _submitted_per_item(store)
    assert counts == {f"i{i}": k for i in range(n_items)}
    frame = store.annotations_frame("p")
    assert not frame.duplicated(["item_id", "annotator"]).any()
