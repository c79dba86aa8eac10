"""Benchmark: from starting the app server to Home drawn, on the demo projects.

What a newcomer waits for after ``make run`` once the environment is installed: loads the
demo projects into a fresh SQLite database once (as ``cli.py demo --if-empty`` does),
then ``--repeats`` times starts the app server as ``make run`` does (``streamlit run
serve.py``, single-user mode), opens Home in headless chromium and stops the clock when
Home's title is drawn and the run that drew it is over (checked every frame, no fixed
wait). Prints each start with the server's CPU
seconds (user + sys) and the load (issue #47: under 3 s on a quiet machine).

    .venv/bin/python bench/start.py [--repeats 3] [--json] [--python PATH]
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


def one_start(url: str, python: str | None = None) -> tuple[float, float]:
    """Seconds and server CPU seconds from starting the server (run by ``python``) to
    Home drawn."""
    from tests.e2e.harness import browser_page, running_app, wait_until_drawn

    with browser_page() as page:
        started = time.perf_counter()
        with running_app(url, timeout=300, python=python) as app:
            page.goto(app.url)
            page.wait_for_selector('h1:has-text("Metric-audit workbench")', timeout=300_000)
            wait_until_drawn(page, 300_000)
            took = time.perf_counter() - started
            return took, _cpu_s(app.process.pid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--python",
        help="the app server's interpreter: a venv made by make run (requirements.txt "
        "only) scans fewer installed packages at start than the test venv",
    )
    args = ap.parse_args()
    with demo_database() as (url, _):
        runs = [one_start(url, args.python) for _ in range(args.repeats)]
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
