"""Shared browser harness: start the app on a free port, drive it with headless chromium.

Usage::

    with running_app(db_url, env={"WORKBENCH_AUTH_MODE": "local"}) as app, \\
            browser_page() as page:
        page.goto(app.url)
        wait_for_streamlit(page)

Browser tests are marked ``@pytest.mark.e2e`` and skip (saying why) when Debian's
chromium is missing; see :func:`require_chromium`.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = ROOT / "test-output" / "screenshots"
#: App environment for local accounts (sign-in form, remember-me cookie).
LOCAL_AUTH = {"WORKBENCH_AUTH_MODE": "local"}
FIRST_RUN_TIMEOUT_MS = 120_000
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class AppServer:
    """A running ``streamlit run serve.py`` (app.py and its cookie routes): URL, process, log."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    warmed: bool = False

    def log(self) -> str:
        """The server's combined stdout/stderr so far (for failure messages)."""
        return self.log_path.read_text(errors="replace")


def require_chromium() -> None:
    """Skip the calling test with a clear reason when chromium is not installed."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y "
            "chromium) to run browser tests"
        )


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"streamlit did not answer {url}/_stcore/health within {timeout}s")


@contextmanager
def running_app(
    db_url: str,
    env: dict[str, str] | None = None,
    *,
    timeout: float = 60.0,
    log_dir: Path | None = None,
    python: str | None = None,
) -> Iterator[AppServer]:
    """Run the app against ``db_url`` on a free port until the block ends (``python``: the
    server's interpreter, this one by default)."""
    port = free_port()
    full_env = {**os.environ, "WORKBENCH_DB_URL": db_url, "PYTHONUNBUFFERED": "1", **(env or {})}
    log_dir = log_dir or ROOT / "test-output"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"streamlit-{port}.log"
    cmd = [
        python or sys.executable,
        "-m",
        "streamlit",
        "run",
        "serve.py",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    passed = False
    try:
        _wait_healthy(url, proc, timeout)
        yield AppServer(url, port, proc, log_path)
        passed = True
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    if passed:  # a test that failed already says why; do not bury it
        assert_no_tracebacks(log_path.read_text(errors="replace"), log_path)


TRACEBACK = "Traceback (most recent call last)"
#: Server-side noise that is no app error: Streamlit's websocket endpoint closing a socket
#: the browser already closed (a page navigation or the end of a test).
BENIGN = (("starlette_websocket.py", "WebSocketDisconnected"),)


def assert_no_tracebacks(log: str, where: Path | str = "the server log") -> None:
    """Fail when the server printed a traceback: an error the page may have hidden."""
    for block in log.split(TRACEBACK)[1:]:
        if any(all(mark in block for mark in marks) for marks in BENIGN):
            continue
        excerpt = "\n".join([TRACEBACK, *block.splitlines()[1:40]])
        raise AssertionError(f"the app server logged a traceback ({where}):\n{excerpt}")


@contextmanager
def browser_page(width: int = 1440, height: int = 900, **context_args: Any) -> Iterator[Any]:
    """A Playwright page in headless Debian chromium (skips when chromium is missing)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            context = browser.new_context(
                viewport={"width": width, "height": height}, **context_args
            )
            page = context.new_page()
            page.set_default_timeout(20_000)
            yield page
        finally:
            browser.close()


#: The app's script run is over and nothing is still loading (no fixed wait in it).
DRAWN = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute('data-test-script-state');
    const w = document.querySelector('[data-testid="stStatusWidget"]');
    const busy = w && /Running|Stop|Connecting/i.test(w.innerText);
    const skeleton = document.querySelector('[data-testid=stSkeleton],'
        + '[data-testid=stSkeletonElement], [data-testid=stAppSkeleton]');
    return !!app && state !== 'running' && state !== 'initial' && !busy && !skeleton;
}"""


def wait_until_drawn(page: Any, timeout: float = 20_000) -> None:
    """Wait, checking every frame, until the run that drew what the caller already saw
    (a page's title, a new row) is over: for timers, which must not hold a fixed wait.
    Call it only once something of the new run is on screen (before that, the last run's
    "not running" state would pass at once)."""
    page.wait_for_function(DRAWN, polling="raf", timeout=timeout)


def wait_for_streamlit(page: Any, timeout: float = 20_000) -> None:
    """Wait until the app has rendered and no script run is in progress."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    # While a script run is in flight the status widget shows "Running..." / a Stop
    # button; the app root carries data-test-script-state="running".
    page.wait_for_timeout(200)
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const state = app && app.getAttribute('data-test-script-state');
            const w = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = w && /Running|Stop|Connecting/i.test(w.innerText);
            return state !== 'running' && state !== 'initial' && !busy;
        }""",
        timeout=timeout,
    )
    try:  # lazily loaded widgets show skeletons for a moment; wait (briefly) for them
        page.wait_for_function(
            """() => !document.querySelector('[data-testid=stSkeleton],'
                + '[data-testid=stSkeletonElement], [data-testid=stAppSkeleton]')""",
            timeout=5000,
        )
    except Exception:  # a skeleton that never resolves is the test's business, not ours
        pass
    page.wait_for_timeout(200)


def open_page(page: Any, app: AppServer, path: str = "") -> None:
    """Go to ``app.url + path`` and wait for the run to finish.

    The first visit goes to the root: until one session has run ``app.py`` (and so
    ``st.navigation``), Streamlit serves ``pages/*.py`` as a legacy multipage app and a
    deep link would skip the entry point (and its sign-in).
    """
    if not app.warmed:
        page.goto(app.url)
        # A fresh server's first run imports everything: allow for a busy machine.
        wait_for_streamlit(page, timeout=FIRST_RUN_TIMEOUT_MS)
        app.warmed = True
    page.goto(f"{app.url}/{path.lstrip('/')}")
    wait_for_streamlit(page)


def sign_in(page: Any, name: str, password: str) -> None:
    """Sign in with a local account and wait for the remember-me cookie."""
    page.get_by_role("textbox", name="User name").focus()
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    wait_for_streamlit(page)
    page.wait_for_selector('[data-testid="stSidebar"] >> text=Signed in as')
    wait_for_session_cookie(page)


def wait_until(
    page: Any, check: Callable[[], Any], what: str | Callable[[], str], timeout_s: float = 20
) -> Any:
    """Poll ``check`` every 50 ms until it returns something truthy, and return that.

    Fails with ``what`` (or what ``what()`` says then) after ``timeout_s`` seconds.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        page.wait_for_timeout(50)
    raise AssertionError(what() if callable(what) else what)


def wait_for_session_cookie(page: Any, timeout_s: float = 20) -> None:
    """Wait until the browser holds the remember-me cookie (set by /auth/session)."""
    wait_until(
        page,
        lambda: any(c["name"] == "workbench_session" for c in page.context.cookies()),
        "the sign-in never set the workbench_session cookie",
        timeout_s,
    )


def wait_for_job_queued(page: Any, evaluator: str, timeout: float = 30_000) -> None:
    """Wait until a job of ``evaluator`` shows as queued.

    The "Job N queued." toast lasts a few seconds, and on a busy machine (or with a fast
    worker) it can come and go before a wait for it starts: the job's card naming the
    evaluator shows the same thing and stays.
    """
    main = page.locator('[data-testid="stMain"]')
    toast = page.get_by_text(re.compile(r"^Job \d+ queued\.$"))
    card = main.get_by_text(re.compile(rf"^Job \d+ .*{re.escape(evaluator)}"))
    toast.or_(card).first.wait_for(timeout=timeout)


def ordinary_annotate_page(page: Any) -> Any:
    """Keep the Annotate page's fast-lane panel closed on the item a page load shows, for
    tests of the ordinary page's own keys and views (call before the first ``goto``).

    The panel still takes over from a submit by Enter, as the page's script does then
    (ui/annotation/fast_lane_view.py)."""
    page.add_init_script("window.__wbNoLaneFirst = true;")
    return page


def press(page: Any, key: str) -> None:
    """Press a key and wait for the rerun it starts to finish drawing."""
    page.keyboard.press(key)
    wait_for_streamlit(page)


def screenshot(page: Any, name: str, full_page: bool = True) -> Path:
    """Save a PNG under test-output/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def no_horizontal_scroll(page: Any) -> bool:
    """True when the main area does not scroll sideways."""
    return bool(
        page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    )
