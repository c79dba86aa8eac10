"""CPU a whole ``cli.py evaluate`` process spends before its first model call.

Issue #31 (point 1) asks for < 0.5 s. Each sample is one fresh ``python cli.py evaluate
--limit 1`` process on intent-resolution items against the scripted server (in a child
process). When the server receives the first request it reads the client process's CPU
time (user + system) from ``/proc/PID/stat``: what the process spent on imports, opening
the store and building the request, without instrumenting the code under test, so any
checkout can be measured the same way. With ``--baseline DIR`` that checkout's
``cli.py`` alternates with this one. Linux only (``/proc``).

    .venv/bin/python bench/evaluate_startup.py [--runs 5] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.whole_process import prepare_db, scenario_env  # noqa: E402
from tests.support.replies import INTENT_RESOLUTION_REPLY  # noqa: E402

TARGET_S = 0.5


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a live process (fields 14 and 15 of its stat line)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve(client_pid: Any, first_cpu: Any, stop: Any, ready: Any) -> None:
    from tests.support import scripted_llm

    content = json.dumps(INTENT_RESOLUTION_REPLY)

    def handler(req: dict) -> scripted_llm.Reply:
        with first_cpu.get_lock():
            if first_cpu.value < 0 and client_pid.value > 0:
                first_cpu.value = cpu_of(client_pid.value)
        return scripted_llm.Reply(content=content)

    with scripted_llm.ScriptedLLM() as server:
        server.handler = handler
        ready.put((server.base_url, server.model))
        stop.wait()


def one_run(argv: list[str], cwd: Path, env: dict[str, str], pid: Any, first: Any) -> float:
    """CPU seconds of one process before its first request (-1 if it made none)."""
    with first.get_lock():
        first.value = -1.0
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pid.value = proc.pid
    _, err = proc.communicate()
    pid.value = 0
    if proc.returncode != 0:
        print(f"  exit {proc.returncode}: {err.decode().strip()[-300:]}", file=sys.stderr)
    return float(first.value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default=None, help="another checkout to alternate with")
    args = parser.parse_args()
    who = [("this", ROOT)] + (
        [("baseline", Path(args.baseline).resolve())] if args.baseline else []
    )
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)
    ctx = multiprocessing.get_context("fork")
    pid, first, stop, ready = ctx.Value("i", 0), ctx.Value("d", -1.0), ctx.Event(), ctx.Queue()
    server = ctx.Process(target=_serve, args=(pid, first, stop, ready), daemon=True)
    server.start()
    load_before = os.getloadavg()[0]
    samples: dict[str, list[float]] = {name: [] for name, _ in who}
    try:
        url, model = ready.get(timeout=30)
        env = scenario_env(base_env, url, model, 16)
        with tempfile.TemporaryDirectory() as tmp:
            seed, db = Path(tmp) / "seed.db", Path(tmp) / "run.db"
            prepare_db(seed, 10)
            for r in range(args.runs + 1):  # the first round warms the bytecode caches
                for name, cwd in who:
                    shutil.copy(seed, db)  # nothing cached: the run makes its call
                    argv = [sys.executable, "cli.py", "--db", f"sqlite:///{db}", "evaluate"]
                    argv += ["bench", "--evaluator", "intent_resolution", "--limit", "1"]
                    cpu = one_run(argv, cwd, env, pid, first)
                    if r:
                        samples[name].append(cpu)
    finally:
        stop.set()
        server.join(timeout=10)
    print(f"CPU before the first call (target < {TARGET_S} s), {args.runs} runs each:")
    for name, values in samples.items():
        shown = " / ".join(f"{v:.2f}" for v in values)
        print(f"  {name:>8}: median {statistics.median(values):.2f} s ({shown})")
    print(f"load average (1 min): {load_before:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
