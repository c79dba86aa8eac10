"""One project's study inputs read once per data version and shared by every reader.

The app's analysis pages and side panels all start from ``load_inputs`` (every item,
submitted label and score of the project): at 10,000 items a read costs 2-4 s of CPU,
and the Agreement, Alignment and Estimates pages and both panels each made their own.
:class:`SharedInputs` keeps the last few reads, keyed by the store, the project, its
data version, its settings and the reference method, so a new data version (or a settings
change) reads again and everything else reuses the one read. A read under way is waited
for, not repeated, when a second thread (a panel's background computation) asks for it.

The inputs are shared objects: readers must not change their frames (none does; the
domain functions make new frames).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotation_store import Store
    from study_inputs.load import StudyInputs


class SharedInputs:
    """``load_inputs`` results for up to ``max_entries`` keys (least recently used out)."""

    def __init__(self, max_entries: int = 2) -> None:
        self._max_entries = max_entries
        self._lock = threading.Lock()
        self._values: OrderedDict[tuple[str, ...], StudyInputs] = OrderedDict()
        self._loading: dict[tuple[str, ...], threading.Lock] = {}

    def get(
        self, store: Store, project: str, version: str, reference_method: str = "majority"
    ) -> StudyInputs:
        """The inputs of ``project`` at data ``version`` (``store.data_version``), as
        ``load_inputs(store, project, reference_method=...)`` returns them."""
        from study_inputs.load import load_inputs

        settings = json.dumps(store.project(project).settings, sort_keys=True, default=str)
        key = (store.url, project, version, settings, reference_method)
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:  # one read per key; a second asker waits for it
            with self._lock:
                if key in self._values:
                    return self._values[key]
            inputs = load_inputs(store, project, reference_method=reference_method)
            with self._lock:
                self._values[key] = inputs
                while len(self._values) > self._max_entries:
                    self._values.popitem(last=False)
                self._loading.pop(key, None)
            return inputs

    def clear(self) -> None:
        """Forget every kept read."""
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)
