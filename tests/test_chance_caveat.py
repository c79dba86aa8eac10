"""Where Gwet's AC and alpha part ways, one line says why (skewed category shares).

Pure-noise ratings piled on 4 and 5 (as in real crowd Likert batches): alpha is near 0
while AC2 reads high, because AC's chance term shrinks as the shares grow uneven. With
even shares the same noise gives both near 0 and no line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agreement.human import variable_agreement
from agreement.ratings import Ratings
from reports.text import field_lines

LEVELS = ("nominal", "ordinal", "interval")


def _noise(p: list[float]) -> dict:
    rng = np.random.default_rng(1)
    rows = [
        (f"i{i}", f"w{a}", int(rng.choice([1, 2, 3, 4, 5], p=p)))
        for i in range(400)
        for a in rng.choice(40, 5, replace=False)
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "value"])
    ratings = Ratings.from_long(frame, numeric=True, domain=(1, 2, 3, 4, 5))
    return variable_agreement(
        "q",
        ratings,
        type_="ordinal",
        levels=LEVELS,
        level="ordinal",
        ordinal=True,
        categorical=True,
        n_resamples=0,
    ).to_dict()


def test_skewed_noise_gets_the_line_with_both_figures() -> None:
    f = _noise([0.02, 0.03, 0.05, 0.4, 0.5])
    ac2, alpha = f["gwet_ac2_quadratic"], f["krippendorff_alpha"]["interval"]
    assert ac2 > 0.6 and abs(alpha) < 0.05
    line = f["gwet_ac2_caveat"]
    assert line.startswith(f"AC2 (quadratic) {ac2:.2f} and alpha (interval) {alpha:.2f} differ:")
    assert "90% of the ratings are 5 and 4" in line
    assert f"  {line}" in field_lines("q", f)


def test_even_noise_gets_no_line() -> None:
    f = _noise([0.2] * 5)
    assert abs(f["gwet_ac2_quadratic"] - f["krippendorff_alpha"]["interval"]) < 0.25
    assert "gwet_ac2_caveat" not in f and "gwet_ac1_caveat" not in f
