"""Benchmark: what an app server holds after the four analysis pages of a 10,000-item project.

Runs, in this process, Home and then the Agreement, Audit, Alignment and Estimates pages
once each (Streamlit's AppTest, as one browser session would, against the agreement
bench's project of ``bench/agreement.py``), waits for the side panels' background
computations, and prints:

- the process's resident memory (VmRSS) and its peak (VmHWM), in MB;
- what the known holders keep: the bootstrap's draw-count cache, the shared read of the
  project's inputs (``ui.shared_inputs``: each frame's ``memory_usage(deep=True)``), and
  Streamlit's ``st.cache_data`` / ``st.cache_resource`` entries per function
  (cache_data: the pickled bytes; cache_resource: the entry count);
- Arrow's allocated bytes (Arrow-backed string columns live there, not on Python's heap);
- with ``--trace``: tracemalloc's top allocation sites of what is still alive (the
  pages then run several times slower).

In-process figures, so they differ from ``bench/pages.py``'s ``server_rss_mb`` (a real
server with a browser, several sessions' widgets) by some tens of MB; use this one to see
what is held, that one for the number.

    .venv/bin/python bench/server_memory.py [--items 10000] [--db URL] [--trace]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.agreement import PROJECT, build  # noqa: E402

PAGES = ("agreement", "audit", "alignment", "estimates")


def status_mb(key: str) -> float:
    """``key`` (VmRSS, VmHWM) of this process in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def frame_mb(frame: object) -> float:
    """A frame's deep memory usage in MB (0 for anything else)."""
    import pandas as pd

    if isinstance(frame, pd.DataFrame):
        return float(frame.memory_usage(deep=True).sum()) / 2**20
    return 0.0


def visit_pages(url: str) -> None:
    """Home, then each analysis page once, in one AppTest session."""
    from streamlit.testing.v1 import AppTest

    os.environ["WORKBENCH_DB_URL"] = url
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.query_params["project"] = PROJECT
    at.run()
    print(f"  home: RSS {status_mb('VmRSS'):.0f} MB")
    for page in PAGES:
        start = time.process_time()
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        print(f"  {page}: {time.process_time() - start:.1f} s CPU, RSS {status_mb('VmRSS'):.0f} MB")
        at.switch_page("pages/home.py").run()


def held() -> dict[str, float]:
    """MB held by the bootstrap cache and the shared inputs' frames."""
    from agreement import bootstrap
    from ui.shared_inputs import SHARED

    out = {"draw cache": sum(d.nbytes for d in bootstrap._CACHE.values()) / 2**20}
    for n, inputs in enumerate(SHARED._values.values()):
        for name in ("items", "annotations", "scores", "everyone", "times", "reference"):
            value = getattr(inputs, name, None)
            if name == "everyone" and value is inputs.annotations:
                continue
            if frame_mb(value):
                out[f"shared read {n}: {name}"] = frame_mb(value)
    return out


def streamlit_caches() -> list[tuple[str, str, int, float]]:
    """(kind, function, entries, MB of pickled values for cache_data) per cache."""
    from streamlit.runtime.caching.cache_data_api import _data_caches
    from streamlit.runtime.caching.cache_resource_api import _resource_caches

    out = []
    for caches in _data_caches._function_caches.values():
        for cache in caches.values():
            stats = [s for group in cache.get_stats().values() for s in group]
            mb = sum(s.byte_length for s in stats) / 2**20
            out.append(("data", cache.display_name, len(stats), mb))
    for caches in _resource_caches._function_caches.values():
        for cache in caches.values():
            out.append(("resource", cache.display_name, len(cache._mem_cache), 0.0))
    return out


def main() -> None:
    """Visit the pages, print what is held."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--db", default=None, help="default: a cached SQLite file under /tmp")
    ap.add_argument("--trace", action="store_true", help="tracemalloc's top sites")
    ap.add_argument("--dump", default=None, help="with --trace: write the snapshot here")
    ap.add_argument("--trim", action="store_true", help="RSS after glibc's malloc_trim(0)")
    ap.add_argument("--settle", type=float, default=20.0, help="seconds for the panels")
    args = ap.parse_args()
    url = args.db or f"sqlite:////tmp/workbench-bench-pages-{args.items}.db"
    build(url, args.items)
    if args.trace:
        tracemalloc.start(8)
    visit_pages(url)
    time.sleep(args.settle)  # the side panels compute in background threads
    gc.collect()
    import pyarrow as pa

    print(f"RSS {status_mb('VmRSS'):.0f} MB, peak {status_mb('VmHWM'):.0f} MB")
    pool = pa.default_memory_pool()
    print(
        f"Arrow allocated: {pa.total_allocated_bytes() / 2**20:.0f} MB "
        f"({pool.backend_name} pool, peak {pool.max_memory() / 2**20:.0f} MB)"
    )
    for name, mb in held().items():
        print(f"  {name}: {mb:.1f} MB")
    for kind, fn, entries, mb in streamlit_caches():
        print(f"  cache_{kind} {fn}: {entries} entries" + (f", {mb:.1f} MB" if mb else ""))
    if args.trim:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        print(f"RSS after malloc_trim(0): {status_mb('VmRSS'):.0f} MB")
    if args.trace:
        snap = tracemalloc.take_snapshot()
        if args.dump:
            snap.dump(args.dump)
        print(f"traced alive: {sum(s.size for s in snap.statistics('filename')) / 2**20:.0f} MB")
        for where, size, count in by_project_line(snap)[:25]:
            print(f"  {size / 2**20:7.1f} MB {count:>8} blocks  {where}")
    print(f"load average {os.getloadavg()[0]:.2f}")


def by_project_line(snap: tracemalloc.Snapshot) -> list[tuple[str, int, int]]:
    """Alive bytes and blocks grouped by the innermost line of this project's code in
    each allocation's traceback (the library frames below it added up)."""
    groups: dict[str, list[int]] = {}
    root = str(ROOT)
    for stat in snap.statistics("traceback"):
        frames = [f for f in stat.traceback if f.filename.startswith(root)]
        frame = frames[-1] if frames else stat.traceback[-1]  # most recent call last
        key = f"{Path(frame.filename).name}:{frame.lineno}"
        entry = groups.setdefault(key, [0, 0])
        entry[0] += stat.size
        entry[1] += stat.count
    return sorted(((k, s, c) for k, (s, c) in groups.items()), key=lambda t: -t[1])


if __name__ == "__main__":
    main()
