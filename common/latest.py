"""The newest value per key, recomputed in a background thread when its version moves on.

For figures that follow the data (the side panel): a request reads the cheap data version
and gets the value computed for it if there is one, else the last value with a mark that
a newer one is on its way; the computation runs off the request path, one at a time per
key, and a request may wait a short while for it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

from common.heap import give_back_freed_memory

T = TypeVar("T")


@dataclass(frozen=True)
class Snapshot(Generic[T]):
    """What a request gets: the newest value (None before the first one is ready), the
    version it was computed for, and whether a value for a newer version is on its way."""

    value: T | None
    version: str | None
    updating: bool


class Latest(Generic[T]):
    """Keeps the newest value of up to ``max_keys`` keys (least recently asked dropped);
    ``submit`` runs a computation off the request path (default: a thread of its own; the
    panels hand theirs to the background lane, ``common.run_gate.in_background``)."""

    def __init__(
        self, max_keys: int = 64, submit: Callable[[Callable[[], None]], object] | None = None
    ) -> None:
        self._max_keys = max_keys
        self._submit = submit or _own_thread
        self._lock = threading.Lock()
        self._values: OrderedDict[Hashable, tuple[str, T]] = OrderedDict()
        self._errors: dict[Hashable, tuple[str, BaseException]] = {}
        self._running: dict[Hashable, threading.Event] = {}

    def get(
        self, key: Hashable, version: str, compute: Callable[[], T], wait: float = 0.0
    ) -> Snapshot[T]:
        """The value of ``key`` for ``version``; starts ``compute`` in a thread when there is
        none yet (unless one is running for the key) and waits up to ``wait`` seconds for it.
        An exception ``compute`` raised for this version is raised here."""
        with self._lock:
            done = self._running.get(key)
            if done is None and not self._is_current(key, version):
                done = threading.Event()
                self._running[key] = done
                self._submit(partial(self._run, key, version, compute, done))
        if done is not None and wait > 0:
            done.wait(wait)
        with self._lock:
            error = self._errors.get(key)
            if error is not None and error[0] == version:
                del self._errors[key]
                raise error[1]
            held = self._values.get(key)
            if held is not None:
                self._values.move_to_end(key)
            value_version, value = held if held is not None else (None, None)
            return Snapshot(value, value_version, value_version != version)

    def has(self, key: Hashable) -> bool:
        """Whether ``key`` holds a value (of any version)."""
        with self._lock:
            return key in self._values

    def clear(self) -> None:
        """Forget every value (running computations still store theirs)."""
        with self._lock:
            self._values.clear()
            self._errors.clear()

    def _is_current(self, key: Hashable, version: str) -> bool:
        held = self._values.get(key)
        return held is not None and held[0] == version

    def _run(
        self, key: Hashable, version: str, compute: Callable[[], T], done: threading.Event
    ) -> None:
        try:
            value = compute()
        except BaseException as exc:  # handed to the request that asks for this version
            with self._lock:
                self._errors[key] = (version, exc)
        else:
            with self._lock:
                self._errors.pop(key, None)
                self._values[key] = (version, value)
                self._values.move_to_end(key)
                while len(self._values) > self._max_keys:
                    self._values.popitem(last=False)
        finally:
            with self._lock:
                self._running.pop(key, None)
            done.set()
            give_back_freed_memory()  # the computation's temporaries, off the request path


def _own_thread(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="workbench-latest", daemon=True).start()
