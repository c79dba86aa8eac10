"""n beside every figure of the alignment view: the CLI text, the probes table."""

from __future__ import annotations

import pytest

from alignment.frames import probes_frame, versions_frame
from alignment.table import alignment_table
from annotation_store import Store
from commands.alignment import table_text
from tests.alignment_fixtures import build_toy


@pytest.fixture
def toy(store: Store) -> Store:
    build_toy(store)
    return store


def test_cli_text_and_probes_table_give_each_figure_its_n(toy: Store) -> None:
    doc = alignment_table(toy, "toy", n_resamples=0)
    text = table_text(doc).splitlines()
    v2 = text.index(next(x for x in text if x.startswith("  judge:toy v2:")))
    # 40 items, two few-shot items out: 38 compared; kappa on the same 38
    assert "38 items compared; kappa 0.737" in text[v2] and "(n 38)" in text[v2]
    assert "(n 38 results)" in text[v2] and "excluded 2" in text[v2]
    probes = text[v2 + 1 : v2 + 7]
    assert probes[0].strip().startswith("calibration: ECE (P(yes) vs human majority) 0.076")
    assert probes[0].endswith("(n 38)")
    # the swapped run flips items 10, 20, 30: 3 of 38, Wilson 95% [0.027, 0.208]
    assert "position swap: 0.079 [0.027, 0.208] changed (n 38" in probes[3]
    assert probes[5].endswith("passes (3 annotators · 38 items)")
    frame = probes_frame(doc).set_index("version")
    row = frame.loc["judge:toy v2"]
    assert (row["calibration n"], row["swap n"], row["samples n"]) == (38, 38, 38)
    assert row["swap 95% CI"] == "[0.027, 0.208]"
    assert row["alt-test n"] == "3 annotators · 38 items"
    assert frame.loc["judge:toy v1", "alt-test n"] == "3 annotators · 39 items"
    versions = versions_frame(doc).set_index("version")
    assert list(versions["kappa n"]) == [39, 38, 38] and list(versions["n"]) == [39, 38, 38]
