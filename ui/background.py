"""What the app starts once a page is drawn, not before it (issue #47: on 2 cores, work
started with the first run slowed down the first page)."""

from __future__ import annotations

import logging
import sys
from functools import partial

from annotation_store import Store, StoreError
from common.heap import give_back_freed_memory
from common.package import own_module
from common.run_gate import in_background
from common.warmup import warm_up
from ui.context import get_store

JOBS_VIEW = own_module("ui.audit.jobs_view")


def _start_worker(store: Store) -> None:
    try:
        from ui.audit.jobs_view import start_worker

        start_worker(store)
    except Exception:  # the Evaluate page starts it again and shows what went wrong
        logging.getLogger(__name__).exception("the job worker did not start")


def _prefetch_draws(store: Store, project: str) -> None:
    from agreement.bootstrap import prefetch

    try:
        prefetch(store.item_count(project))
    except StoreError:  # the project went away meanwhile: nothing to draw for
        pass


def start_background_work(project: str | None = None) -> None:
    """In the background lane (``common.run_gate.in_background``), once the page is
    drawn: the job worker of this run's database (once a database, see
    ``ui.audit.jobs_view.worker_for``), the Agreement page's libraries
    (``common.warmup``) and the bootstrap's resamples of ``project``'s items, which every
    analysis page draws its intervals from."""
    store = get_store()
    if JOBS_VIEW in sys.modules:  # loaded: a look-up, nothing to wait for
        _start_worker(store)
    else:
        # The jobs and evaluators packages (about 0.2 s of CPU) load in the background
        # lane: the run that drew the page is over before they are.
        in_background(partial(_start_worker, store))
    warm_up()
    if project:
        in_background(partial(_prefetch_draws, store, project))


def release_idle_memory() -> None:
    """After a run: the bootstrap's cached draws one byte a count (80 MB -> 10 MB at 10,000
    items x 1,000 resamples; a later computation turns them back into floats once), then
    glibc's freed heap handed back once the process has grown by 32 MB since the last time
    (issue #47 point 4: the server after a 10,000-item project's pages)."""
    bootstrap = sys.modules.get("agreement.bootstrap")  # nothing cached if never imported
    if bootstrap is not None:
        bootstrap.compact_cache()
    give_back_freed_memory()
