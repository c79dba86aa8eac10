"""Benchmark: several annotators in a real browser (headless chromium) on one app server.

Starts the app (local accounts) on a fresh SQLite database with a binary project, opens
``--sessions`` signed-in sessions (one browser context each) on the Annotate page, and
``--rounds`` times has every session answer its item and submit, the sessions interleaved
so the server serves them at once. Prints p50 / p95 / max seconds from a submit (Enter) to
the next item drawn and idle, and checks that every click was stored. The figures depend
heavily on the machine's load: run it more than once.

    .venv/bin/python bench/annotators_browser.py [--sessions 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from annotation_store import Store
from tests.e2e.crowd import PROJECT, label_rounds, make_crowd, open_sessions
from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, LOCAL_AUTH, running_app


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    """Run the sessions and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'crowd.db'}"
        store = Store(url)
        names = make_crowd(store, args.sessions, items=args.sessions * args.rounds)
        env = {**LOCAL_AUTH, "WORKBENCH_JOBS_IN_APP": "0"}
        with running_app(url, env, log_dir=Path(tmp)) as app, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                pages = open_sessions(browser, app, names)
                clicked, waits = label_rounds(store, pages, names, args.rounds)
            finally:
                browser.close()
        frame = store.annotations_frame(PROJECT, ("submitted",))
        stored = len(frame)
        store.close()
    load = os.getloadavg()
    print(f"{args.sessions} sessions x {args.rounds} rounds on one app server (SQLite)")
    print(f"clicks {len(clicked)}, labels stored as submitted {stored}")
    print(
        f"submit -> next item drawn: p50 {_pct(waits, 0.5):.2f} s, p95 {_pct(waits, 0.95):.2f} s, "
        f"max {max(waits):.2f} s"
    )
    print(f"load average: {load[0]:.1f} / {load[1]:.1f} ({os.cpu_count()} CPUs); noisy figures")


if __name__ == "__main__":
    main()
