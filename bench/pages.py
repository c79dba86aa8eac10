"""Benchmark: the analysis pages of a 10,000-item project in a real browser.

Builds (once, cached under /tmp) the agreement bench's project (``bench/agreement.py``:
10,000 items x 5 annotators x 3 rubric fields x 4 evaluators), starts the app server as
``make run`` does (``streamlit run serve.py``) and, in headless Debian chromium:

- ``start_s``: seconds from starting the server process to Home drawn in the browser;
- per page (Agreement, Audit, Alignment, Estimates): click on the sidebar link to the
  page drawn (Streamlit idle and the page's title shown; no fixed sleeps), the first visit
  (which computes and caches) and the median of ``--repeats`` later visits (Home between);
  each click once the app server is idle (under 0.05 s of CPU in half a second: its
  background work after the page before is done, as when an analyst reads that page),
  or with ``--at-once`` the moment the page before is drawn;
- ``cpu_s`` per page (first, repeat): CPU seconds (user+sys, from ``/proc/PID/stat``) the app
  server spent on the visit; unlike the wall-clock figures it hardly depends on the load;
- ``start_cpu_s``: the server's CPU seconds from its start to Home drawn;
- ``audit_row_click``: on Audit, a click on a row of the table to its drill-down drawn
  (the median of ``--repeats`` clicks on rows 2, 3, ...), with the server's CPU seconds;
- ``server_rss_mb``: the app server's resident memory after every page was visited;
- ``load``: the one-minute load average at the end.

    .venv/bin/python bench/pages.py [--items 10000] [--repeats 3] [--json] [--at-once]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.agreement import PROJECT, build  # noqa: E402

#: url path -> (sidebar link, words the page's title starts with)
PAGES = {
    "agreement": ("Agreement", "Agreement"),
    "audit": ("Audit", "Metric audit"),
    "alignment": ("Alignment", "Alignment"),
    "estimates": ("Estimates", "Estimates"),
}


def _rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MB (VmRSS), 0 where /proc is missing."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + sys) ``pid`` has used so far, 0 where /proc is missing."""
    try:
        # the command name (field 2) may hold spaces: split after its closing parenthesis
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime and stime are fields 14 and 15 of stat(5); fields[0] is field 3
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def until_idle(pid: int, window_s: float = 0.5, cpu_s: float = 0.05, timeout: float = 60) -> float:
    """Seconds until the server spent under ``cpu_s`` of CPU in ``window_s`` (its
    background work after the last page done: what an analyst reading that page gives it),
    ``timeout`` at most. Before a timer starts, never inside one."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        before = _cpu_s(pid)
        time.sleep(window_s)
        if _cpu_s(pid) - before < cpu_s:
            break
    return time.perf_counter() - started


def _row_clicks(page, nav, pid: int, repeats: int) -> dict:
    """Open Audit, click rows 2, 3, ... of its table: seconds and server CPU per click."""
    from tests.e2e.harness import wait_for_streamlit, wait_until_drawn

    nav.get_by_role("link", name="Audit", exact=True).click()
    page.wait_for_selector('h1:has-text("Metric audit")', timeout=600_000)
    wait_for_streamlit(page, 600_000)
    heading = page.locator("h3").filter(has_text="Item").first
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    times, cpus = [], []
    for row in range(1, repeats + 1):
        before = heading.inner_text()
        box = grid.bounding_box()
        cpu0 = _cpu_s(pid)
        t0 = time.perf_counter()
        # the row marker (selection) column is the grid's first; rows are 35 px high
        page.mouse.click(box["x"] + 12, box["y"] + 35 * (row + 1) + 17)
        page.wait_for_function(
            """(before) => {
                const h = [...document.querySelectorAll('h3')].find(e => e.innerText.includes('Item'));
                return h && h.innerText !== before;
            }""",
            arg=before,
            timeout=600_000,
        )
        wait_until_drawn(page, 600_000)
        times.append(time.perf_counter() - t0)
        cpus.append(_cpu_s(pid) - cpu0)
    return {
        "click_s": round(statistics.median(times), 2),
        "click_all_s": [round(t, 2) for t in times],
        "click_cpu_s": round(statistics.median(cpus), 2),
    }


def measure(url: str, repeats: int, at_once: bool = False) -> dict:
    """Start the server, visit each page; the figures described in the module docstring
    (``at_once``: click each link the moment the page before is drawn, not once the
    server is idle)."""
    from tests.e2e.harness import CHROMIUM, browser_page, running_app

    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} not found (apt-get install chromium)")
    with browser_page() as page:  # the browser is up before the clock starts
        started = time.perf_counter()
        with running_app(url, timeout=300) as app:
            return _visits(page, app, started, repeats, at_once)


def _visits(page, app, started: float, repeats: int, at_once: bool) -> dict:
    """The figures of :func:`measure` on a started server and an open browser."""
    from tests.e2e.harness import wait_for_streamlit, wait_until_drawn

    page.goto(f"{app.url}/?project={PROJECT}")
    page.wait_for_selector('h1:has-text("Metric-audit workbench")', timeout=300_000)
    wait_until_drawn(page, 300_000)
    start_s = time.perf_counter() - started
    pid = app.process.pid
    start_cpu_s = _cpu_s(pid)
    nav = page.locator('[data-testid="stSidebarNav"]')

    def visit(path: str) -> tuple[float, float]:
        link, title = PAGES[path]
        if not at_once:
            until_idle(pid)
        cpu0 = _cpu_s(pid)
        t0 = time.perf_counter()
        nav.get_by_role("link", name=link, exact=True).click()
        page.wait_for_url(f"**/{path}**")
        page.wait_for_selector(f'h1:has-text("{title}")', timeout=600_000)
        wait_until_drawn(page, 600_000)
        took = time.perf_counter() - t0
        cpu = _cpu_s(pid) - cpu0
        nav.get_by_role("link", name="Home", exact=True).click()
        page.wait_for_url(lambda u: f"/{path}" not in u)
        wait_for_streamlit(page, 600_000)
        return took, cpu

    pages = {}
    for path in PAGES:
        first, first_cpu = visit(path)
        again = [visit(path) for _ in range(repeats)]
        pages[path] = {
            "first_s": round(first, 2),
            "repeat_s": round(statistics.median(t for t, _ in again), 2),
            "repeat_all_s": [round(t, 2) for t, _ in again],
            "first_cpu_s": round(first_cpu, 2),
            "repeat_cpu_s": round(statistics.median(c for _, c in again), 2),
        }
    pages["audit_row_click"] = _row_clicks(page, nav, pid, repeats)
    rss = _rss_mb(pid)
    return {
        "pages": pages,
        "clicks": "the moment the page before is drawn" if at_once else "once the server is idle",
        "start_s": round(start_s, 2),
        "start_cpu_s": round(start_cpu_s, 2),
        "server_rss_mb": round(rss),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    """Print the figures (one JSON object with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--db", default=None, help="default: a cached SQLite file under /tmp")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--at-once",
        action="store_true",
        help="click each page the moment the page before is drawn (default: once the app "
        "server is idle, as after an analyst read the page)",
    )
    args = ap.parse_args()
    url = args.db or f"sqlite:////tmp/workbench-bench-pages-{args.items}.db"
    build(url, args.items)
    out = {"items": args.items, **measure(url, args.repeats, args.at_once)}
    if args.json:
        print(json.dumps(out))
        return
    print(
        f"{args.items} items · load {out['load']} · server start to Home {out['start_s']} s"
        f" ({out['start_cpu_s']} s server CPU) · clicks {out['clicks']}"
    )
    for name, fig in out["pages"].items():
        if "click_s" in fig:
            print(f"  {name:<10} {fig['click_s']:>6.2f} s ({fig['click_cpu_s']:.2f} s CPU)")
            continue
        print(
            f"  {name:<10} first {fig['first_s']:>6.2f} s ({fig['first_cpu_s']:.2f} s CPU)"
            f"   repeat {fig['repeat_s']:>6.2f} s ({fig['repeat_cpu_s']:.2f} s CPU)"
        )
    print(f"  app server memory after the pages: {out['server_rss_mb']} MB")


if __name__ == "__main__":
    main()
