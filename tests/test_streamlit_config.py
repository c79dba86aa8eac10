"""The server settings the labelling loop's speed depends on (.streamlit/config.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from streamlit import config

ROOT = Path(__file__).resolve().parents[1]


def test_no_forced_garbage_collection_after_each_run() -> None:
    """Issue #14 point 4: Streamlit's post-run ``gc.collect(2)`` held the GIL for
    150-300 ms after every label key, and the run's deltas waited behind it."""
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["runner"]["postScriptGC"] is False
    # the option still exists under this name (a renamed option would be ignored silently)
    assert "runner.postScriptGC" in config._config_options_template
