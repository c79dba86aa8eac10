"""The agreement command's collector pause: off inside, back on after, survivors frozen."""

from __future__ import annotations

import gc

from commands.agreement import gc_paused


def test_collector_paused_then_restored_with_survivors_frozen() -> None:
    assert gc.isenabled()
    try:
        with gc_paused():
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]  # tracked containers alive at the end
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(kept)
        young = {id(o) for o in gc.get_objects(0)}
        assert not any(id(x) in young for x in kept)  # the next collection skips them
    finally:
        gc.unfreeze()


def test_collector_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
