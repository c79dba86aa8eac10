"""Benchmark: from starting the app server to Home drawn, on the demo projects.

What a newcomer waits for after ``make run`` once the environment is installed: loads the
demo projects into a fresh SQLite database once (as ``cli.py demo --if-empty`` does),
then ``--repeats`` times starts the app server as ``make run`` does (``streamlit run
serve.py``, single-user mode), opens Home in headless chromium and stops the clock when
Home's title is drawn and Streamlit is idle. Prints each start with the server's CPU
seconds (user + sys) and the load (issue #47: under 3 s on a quiet machine).

    .venv/bin/python bench/start.py [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.demo_db import demo_database
from bench.pages import _cpu_s


def one_start(url: str) -> tuple[float, float]:
    """Seconds and server CPU seconds from starting the server to Home drawn."""
    from tests.e2e.harness import browser_page, running_app, wait_for_streamlit

    with browser_page() as page:
        started = time.perf_counter()
        with running_app(url, timeout=300) as app:
            page.goto(app.url)
            page.wait_for_selector('h1:has-text("Metric-audit workbench")', timeout=300_000)
            wait_for_streamlit(page, 300_000)
            took = time.perf_counter() - started
            return took, _cpu_s(app.process.pid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with demo_database() as (url, _):
        runs = [one_start(url) for _ in range(args.repeats)]
    out = {
        "start_s": [round(s, 2) for s, _ in runs],
        "start_cpu_s": [round(c, 2) for _, c in runs],
        "median_s": round(statistics.median(s for s, _ in runs), 2),
        "load": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(out))
        return
    print(
        f"server start to Home drawn: median {out['median_s']} s of {out['start_s']} "
        f"(server CPU {out['start_cpu_s']} s) · load {out['load']} (target: under 3 s, quiet)"
    )


if __name__ == "__main__":
    main()
