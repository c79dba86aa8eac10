"""No page shows a Python traceback (issue 24 point 4): a short reason on screen, the
detail in the log."""

from __future__ import annotations

import logging

import pytest

from annotation_store import Store
from tests.support.apptest import open_app
from ui.failures import short_reason


def _import_script(url: str) -> None:
    from annotation_store import Store
    from ui.data_import import import_upload

    import_upload(Store(url), "p", "annotations", "evil.csv", b"item_id\n")


def test_a_hostile_file_the_importer_did_not_foresee_is_one_line(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    from interop import importing

    Store(sqlite_url).create_project("p", "binary", {"k": 2})

    def explode(*_args: object) -> None:
        raise RecursionError("maximum recursion depth exceeded in /srv/wb/annotation_store/x.py")

    monkeypatch.setitem(importing.IMPORTERS, "annotations", explode)
    with caplog.at_level(logging.ERROR, logger="ui.failures"):
        at = open_app(monkeypatch, sqlite_url, script=_import_script, args=(sqlite_url,))
    (error,) = at.error
    assert error.value == (
        "Importing 'evil.csv' failed: maximum recursion depth exceeded in x.py. Nothing was "
        "changed; the details are in the server log."
    )
    assert "/srv/wb" not in error.value and "Traceback" not in error.value
    (record,) = [r for r in caplog.records if r.name == "ui.failures"]
    assert record.exc_info is not None and record.exc_info[0] is RecursionError


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (ValueError("bad value\nsecond line"), "bad value"),
        (OSError("cannot open /home/u/data/x.parquet now"), "cannot open x.parquet now"),
        (KeyError(), "KeyError"),
        (ValueError("x" * 500), "x" * 199 + "…"),
    ],
)
def test_the_short_reason_has_one_line_no_paths_and_a_bound(exc: Exception, reason: str) -> None:
    assert short_reason(exc) == reason
