"""Real browser: the Data page imports another tool's file (a Label Studio export of the
project itself) through its field-name pickers, with no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from tests.e2e.harness import (
    assert_no_tracebacks,
    browser_page,
    open_page,
    running_app,
    wait_for_streamlit,
)
from workbench_api import export_file

pytestmark = pytest.mark.e2e


def test_a_label_studio_export_imports_from_the_data_page(demo: str, tmp_path: Path) -> None:
    store = Store(demo)
    tasks = tmp_path / "tasks.json"
    export_file(store, "demo-intent-match", "annotations", tasks, "label-studio")
    store.close()
    with running_app(demo) as app, browser_page(1440, 1000) as page:
        open_page(page, app, "data?project=demo-intent-match")
        page.get_by_text("Another tool's file").click()
        uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]').last
        uploader.set_input_files(str(tasks))
        page.get_by_text("Their 'match' is").wait_for()
        wait_for_streamlit(page, timeout=60_000)  # the run that drew the pickers has ended
        page.get_by_role("button", name="Import the file").click()
        alerts = page.locator('[data-testid="stAlert"]')
        # Any message at all (a refusal is an alert too, and the assertion below names it).
        alerts.first.wait_for(timeout=60_000)
        wait_for_streamlit(page, timeout=60_000)
        shown = alerts.all_inner_texts()
        # Only the tasks file is uploaded, not <out>.users.json: the people come back as
        # Label Studio's user ids (ls-user-N), so their labels are new.
        assert shown == [
            "items: 0 created, 0 updated, 6 unchanged",
            "annotations: 54 created, 0 updated, 0 unchanged",
            "scores: 6 created, 0 updated, 0 unchanged",
        ]
        assert_no_tracebacks(app.log())
