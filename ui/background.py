"""What the app starts once a page is drawn, not before it (issue #47: on 2 cores, work
started with the first run slowed down the first page)."""

from __future__ import annotations

from common.warmup import warm_up


def start_background_work() -> None:
    """The process's job worker (once, see ``ui.audit.jobs_view.get_worker``), then the
    background imports of the Agreement page's libraries (``common.warmup``)."""
    # Imported here: the jobs and evaluators packages are not needed to draw a page.
    from ui.audit.jobs_view import get_worker

    get_worker()
    warm_up()
