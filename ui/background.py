"""What the app starts once a page is drawn, not before it (issue #47: on 2 cores, work
started with the first run slowed down the first page)."""

from __future__ import annotations

import sys

from common.heap import give_back_freed_memory
from common.warmup import warm_up


def start_background_work() -> None:
    """The process's job worker (once, see ``ui.audit.jobs_view.get_worker``), then the
    background imports of the Agreement page's libraries (``common.warmup``)."""
    # Imported here: the jobs and evaluators packages are not needed to draw a page.
    from ui.audit.jobs_view import get_worker

    get_worker()
    warm_up()


def release_idle_memory() -> None:
    """After a run: the bootstrap's cached draws one byte a count (80 MB -> 10 MB at 10,000
    items x 1,000 resamples; a later computation turns them back into floats once), then
    glibc's freed heap handed back once the process has grown by 32 MB since the last time
    (issue #47 point 4: the server after a 10,000-item project's pages)."""
    bootstrap = sys.modules.get("agreement.bootstrap")  # nothing cached if never imported
    if bootstrap is not None:
        bootstrap.compact_cache()
    give_back_freed_memory()
