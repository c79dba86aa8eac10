"""Benchmark: visits to the Agreement page of the demo intent-match project (6 items).

Loads the demo projects into a fresh SQLite file, then times

- AppTest: the page's script run (server side only), first visit and repeated visits;
- a real browser (headless Debian chromium, as the e2e tests drive it): clicking the
  sidebar's Agreement link until the page has finished drawing, first visit (which
  computes the agreement document) and repeated visits (which reuse it), alternating
  with Home.

In the browser it times repeated visits and first visits after a new label (one label
submitted again between two visits, so the data version changes), each to the first
number shown and to the drawn page; targets (issue #30): repeat visits under 2 s, first
visits after new labels under 3 s, numbers before the charts. Beside each wall time it
prints the CPU seconds the app server and chromium spent on the visit (less
load-sensitive than wall time; the server's includes the Home rerun's tail, if any). ``--page audit`` times the
Audit page the same way; ``--load N`` takes the browser visits under a CPU load of N
(bench/cpu_load.py). Skips the browser part (saying why) without chromium.

    .venv/bin/python bench/agreement_page.py [--visits 5] [--project demo-intent-match]
    .venv/bin/python bench/agreement_page.py --page audit --load 16 --browser-only
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation_store import Store  # noqa: E402
from bench.cpu_load import cpu_load, load_line  # noqa: E402
from bench.demo_db import demo_database  # noqa: E402


def _summary(label: str, times: list[float], all_visits: bool = False) -> None:
    if all_visits:
        print(
            f"{label}: median {statistics.median(times):.2f} s, worst {max(times):.2f} s · "
            f"all: {', '.join(f'{t:.2f}' for t in times)}"
        )
        return
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


PAGES = {"agreement": ("Agreement", "Agreement"), "audit": ("Audit", "Metric audit")}
# The first number on the page (a table, a data frame or a metric) is visible.
NUMBERS = """() => [...document.querySelectorAll(['stTable', 'stDataFrame', 'stMetric']
    .map(t => `[data-testid=stMain] [data-testid=${t}]`).join(', '))]
    .some(e => e.offsetParent !== null)"""


def new_label(url: str, project: str) -> None:
    """Submit one new label (a new rater copies the first stored label): the data version
    changes, so the next visit is a first visit after new labels."""
    store = Store(url)
    try:
        before = store.data_version(project)
        frame = store.annotations_frame(project, ("submitted",))
        row = frame.iloc[0]
        rater = f"bench-rater-{frame['annotator'].nunique() + 1}"
        store.save_label(
            project, row["item_id"], rater, row["field"], row["value"], status="submitted"
        )
        assert store.data_version(project) != before, "the data version did not change"
    finally:
        store.close()


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from /proc; empty where /proc is missing)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            try:
                kids = [int(k) for k in task.read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def _cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by ``pids`` (those still running)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def _browser_pids(server: int) -> list[int]:
    """This process's chromium processes (not the app server, not the load generator)."""
    skip = {server, *_children(server)}
    return [pid for pid in _children(os.getpid()) if pid not in skip and "chrom" in _comm(pid)]


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip().lower()
    except OSError:
        return ""


def browser_visits(
    url: str, project: str, visits: int, page_name: str = "agreement", load: float = 0
) -> dict[str, list[float]] | None:
    """Seconds from a click on the sidebar's link to the first number shown and to the
    drawn page (app idle): repeated visits, and first visits after a new label, taken
    in turn (Home in between). Under ``load`` once the app is warm."""
    from tests.e2e.harness import CHROMIUM, browser_page, open_page, running_app
    from tests.e2e.harness import wait_for_streamlit as wait

    if not CHROMIUM.exists():
        print(f"browser: skipped, {CHROMIUM} not found (apt-get install chromium)")
        return None
    link, title = PAGES[page_name]
    out: dict[str, list[float]] = {
        f"{kind}{what}": []
        for kind in ("repeat", "new")
        for what in ("", "_numbers", "_server_cpu", "_browser_cpu")
    }
    with running_app(url) as app, browser_page() as page:
        open_page(page, app, f"?project={project}")
        nav = page.locator('[data-testid="stSidebarNav"]')

        server = app.process.pid

        def visit(kind: str) -> None:
            server_pids = [server, *_children(server)]
            browser_pids = _browser_pids(server)
            server_cpu, browser_cpu = _cpu_s(server_pids), _cpu_s(browser_pids)
            start = time.perf_counter()
            nav.get_by_role("link", name=link).click()
            page.wait_for_url(f"**/{page_name}**")
            page.wait_for_function(NUMBERS, polling="raf", timeout=600_000)
            out[f"{kind}_numbers"].append(time.perf_counter() - start)
            wait(page, 600_000)
            page.wait_for_selector(f'h1:has-text("{title}")')
            out[kind].append(time.perf_counter() - start)
            out[f"{kind}_server_cpu"].append(_cpu_s(server_pids) - server_cpu)
            out[f"{kind}_browser_cpu"].append(_cpu_s(browser_pids) - browser_cpu)
            nav.get_by_role("link", name="Home").click()
            page.wait_for_url(lambda u: f"/{page_name}" not in u)
            wait(page, 600_000)

        visit("repeat")  # warm: the first visit of all (libraries, caches)
        for key in [k for k in out if k.startswith("repeat")]:
            out[key].clear()
        with cpu_load(load):
            for _ in range(visits):
                visit("repeat")
                new_label(url, project)
                visit("new")
            out["load"] = [os.getloadavg()[0]]
    return out


def main() -> None:
    """Print the page times."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--visits", type=int, default=5)
    ap.add_argument("--project", default="demo-intent-match")
    ap.add_argument("--page", choices=sorted(PAGES), default="agreement")
    ap.add_argument("--load", type=float, default=0, help="browser visits under this load")
    ap.add_argument("--browser-only", action="store_true", help="skip the AppTest runs")
    args = ap.parse_args()
    with demo_database() as (url, _):
        if not args.browser_only and args.page == "agreement":
            _summary("AppTest script run", apptest_visits(url, args.project, args.visits))
            print(f"  ({load_line()})")
        times = browser_visits(url, args.project, args.visits, args.page, args.load)
        if times:
            print(f"browser, {args.page} page of {args.project}, {load_line()}")
            print(f"  load average at the end of the visits: {times['load'][0]:.1f}")
            for kind, what in (
                ("repeat", "repeat visit"),
                ("new", "first visit after a new label"),
            ):
                _summary(f"  {what}: click to first number", times[f"{kind}_numbers"], True)
                _summary(f"  {what}: click to drawn page", times[kind], True)
                _summary(f"  {what}: CPU of the app server", times[f"{kind}_server_cpu"], True)
                _summary(f"  {what}: CPU of chromium", times[f"{kind}_browser_cpu"], True)


if __name__ == "__main__":
    main()
