"""The HTML report embeds the vendored partial plotly.js once and stays under 1 MB."""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from pathlib import Path

from annotation_store import Store
from commands import main
from reports.plotly_embed import BUNDLE, plotly_loader

VENDOR = BUNDLE.parent
ONE_MB = 1_000_000


def test_vendored_bundle_matches_its_recorded_sha256() -> None:
    sums = {
        name: digest
        for digest, name in (
            line.split() for line in (VENDOR / "SHA256SUMS").read_text().splitlines()
            if line and not line.startswith("#")
        )
    }  # fmt: skip
    assert set(sums) == {"plotly-cartesian.min.js", "LICENSE"}
    for name, digest in sums.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest
    assert "plotly.js (cartesian - minified) v4.1.1" in BUNDLE.read_text()[:200]


def test_packed_bundle_inflates_to_the_vendored_file() -> None:
    packed = re.search(r'id="plotly-bundle">([^<]+)</script>', plotly_loader())
    assert packed is not None
    assert gzip.decompress(base64.b64decode(packed.group(1))) == BUNDLE.read_bytes()


def test_demo_reports_load_plotly_once_and_stay_under_one_megabyte(
    demo: str, tmp_path: Path
) -> None:
    names = [p.name for p in Store(demo).projects()]
    assert "demo-judge-study" in names
    for name in names:
        out = tmp_path / f"{name}.html"
        assert main(["--db", demo, "report", name, "--out", str(out), "--resamples", "20"]) == 0
        text = out.read_text()
        assert out.stat().st_size < ONE_MB, (name, out.stat().st_size)
        assert text.count('id="plotly-bundle"') == 1
        assert text.count("<script") == text.count("data-figure=") + 2  # bundle + loader
        assert "cdn.plot.ly" not in text and "<script src=" not in text
        assert text.count("data-figure=") >= 2  # every demo report has figures to draw
