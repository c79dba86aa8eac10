"""Benchmark: visits to the Agreement page of the demo intent-match project (6 items).

Loads the demo projects into a fresh SQLite file, then times

- AppTest: the page's script run (server side only), first visit and repeated visits;
- a real browser (headless Debian chromium, as the e2e tests drive it): clicking the
  sidebar's Agreement link until the page has finished drawing, first visit (which
  computes the agreement document) and repeated visits (which reuse it), alternating
  with Home.

It prints each visit and the median and worst of the repeated ones; the target is every
visit under 3 s. Skips the browser part (saying why) without chromium.

    .venv/bin/python bench/agreement_page.py [--visits 5] [--project demo-intent-match]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation_store import Store  # noqa: E402
from annotation_store.demo import load_demo  # noqa: E402


def _summary(label: str, times: list[float]) -> None:
    rest = times[1:] or times
    print(
        f"{label}: first {times[0]:.2f} s · repeated median {statistics.median(rest):.2f} s, "
        f"worst {max(rest):.2f} s · all: {', '.join(f'{t:.2f}' for t in times)}"
    )


def apptest_visits(url: str, project: str, visits: int) -> list[float]:
    """Seconds per AppTest run of the Agreement page (Home in between)."""
    from streamlit.testing.v1 import AppTest

    os.environ["WORKBENCH_DB_URL"] = url
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["project"] = project
    at.run()
    times = []
    for _ in range(visits):
        start = time.perf_counter()
        at.switch_page("pages/agreement.py").run()
        times.append(time.perf_counter() - start)
        assert not at.exception, [e.value for e in at.exception]
        at.switch_page("pages/home.py").run()
    return times


def browser_visits(url: str, project: str, visits: int) -> list[float] | None:
    """Seconds from a click on the sidebar's Agreement link to the drawn page."""
    from tests.e2e.harness import CHROMIUM, browser_page, open_page, running_app
    from tests.e2e.harness import wait_for_streamlit as wait

    if not CHROMIUM.exists():
        print(f"browser: skipped, {CHROMIUM} not found (apt-get install chromium)")
        return None
    times = []
    with running_app(url) as app, browser_page() as page:
        open_page(page, app, f"?project={project}")
        nav = page.locator('[data-testid="stSidebarNav"]')
        for _ in range(visits):
            start = time.perf_counter()
            nav.get_by_role("link", name="Agreement").click()
            page.wait_for_url("**/agreement**")
            wait(page, 600_000)
            page.wait_for_selector('h1:has-text("Agreement")')
            times.append(time.perf_counter() - start)
            nav.get_by_role("link", name="Home").click()
            page.wait_for_url(lambda u: "/agreement" not in u)
            wait(page, 600_000)
    return times


def main() -> None:
    """Print the page times."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--visits", type=int, default=5)
    ap.add_argument("--project", default="demo-intent-match")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store = Store(url)
        load_demo(store)
        store.close()
        _summary("AppTest script run", apptest_visits(url, args.project, args.visits))
        times = browser_visits(url, args.project, args.visits)
        if times:
            _summary("browser click to drawn page", times)


if __name__ == "__main__":
    main()
