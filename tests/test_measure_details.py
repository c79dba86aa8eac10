"""Issue 26, point 3: a measure's details (a note on which items it uses, values per
annotator pair) are declared on the measure, and the text report, the HTML / Markdown
field notes and the side panel show them from the declaration, not by key name."""

from __future__ import annotations

from itertools import combinations

from agreement.human import variable_agreement
from agreement.measures import NOTE, PAIRS, Detail, Measure, MeasureView
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.statistics import ALL, declared, field_details
from reports.panel import _items_note, choose_headline
from reports.render import field_notes
from reports.text import field_lines

# Krippendorff (2011), reliability data with missing values: 4 observers, 12 units.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
NAMES = ("o1", "o2", "o3", "o4")


def _exact_pairs(_ctx) -> Stat:
    """A toy measure: the share of exact matches of every observer pair on the units both
    rated, with a note saying which units it uses."""
    values, counts = {}, {}
    for (i, a), (j, b) in combinations(enumerate(NAMES), 2):
        shared = [(x, y) for x, y in zip(K2011[i], K2011[j], strict=True) if None not in (x, y)]
        values[f"{a}|{b}"] = sum(x == y for x, y in shared) / len(shared)
        counts[f"{a}|{b}"] = len(shared)
    extra = {
        "toy_pairs": values,
        "toy_pairs_n": counts,
        "toy_note": "Toy uses the 9 units o1 rated.",
    }
    return Stat(min(values.values()), 9, extra=extra)


TOY = Measure(
    "toy_exact",
    MeasureView(
        "Toy exact",
        "Toy share of exact matches",
        details=(
            Detail("toy_note", NOTE, label="Toy", in_notes=True),
            Detail(
                "toy_pairs",
                label="Toy per pair",
                long="Toy per observer pair",
                n_key="toy_pairs_n",
                in_notes=True,
            ),
        ),
    ),
    ALL,
    compute=_exact_pairs,
)


def _block() -> dict:
    return variable_agreement(
        "x",
        Ratings.from_matrix(K2011),
        type_="interval",
        levels=("interval",),
        level="interval",
        categorical=False,
        n_resamples=0,
        keep=lambda s: s.key == TOY.key,
    ).to_dict()


def test_a_declared_measure_with_details_reaches_the_text_report_and_the_notes() -> None:
    with declared(TOY):
        f = _block()
        lines = field_lines("x", f)
        notes = field_notes({"fields": {"x": f}})
        panel_note = _items_note(f)
    # o1 and o2 share units 1-9 and differ only on unit 6: 8/9; o1 and o3 share units
    # 2-9, equal on units 3, 4, 5, 7 and 9: 5/8
    assert "  Toy uses the 9 units o1 rated." in lines
    pairs = next(line for line in lines if line.startswith("  Toy per pair (n shared): "))
    assert "o1|o2 0.889 (9)" in pairs and "o1|o3 0.625 (8)" in pairs
    assert any("Toy uses the 9 units o1 rated." in n for n in notes)
    assert any("Toy per observer pair (n shared items): o1 & o2 0.889 (9)" in n for n in notes)
    assert panel_note == {
        "key": "toy_exact",
        "label": "Toy",
        "n": 9,
        "text": "Toy uses the 9 units o1 rated.",
    }


def test_details_are_read_in_declaration_order_and_skipped_when_absent() -> None:
    with declared(TOY):
        f = _block()
        assert [d.detail.kind for d in field_details(f) if d.measure.key == TOY.key] == [
            NOTE,
            PAIRS,
        ]
        del f["toy_note"]
        assert [d.detail.kind for d in field_details(f, NOTE) if d.measure.key == TOY.key] == []


def test_the_headline_is_unstable_when_its_measure_uses_few_of_the_items() -> None:
    f = {
        "level": "nominal",
        "n_pairable": 12,
        "n_items": 20,
        "fleiss_kappa": 0.4,
        "fleiss_n_items": 6,
        "fleiss_items_note": "Fleiss kappa (modal-count items) uses the 6 items with 3 ratings.",
    }
    stats = [{"key": "fleiss_kappa", "label": "Fleiss κ (modal)", "value": 0.4}]
    got = choose_headline(stats, f)
    assert got["unstable"] == (
        "Fleiss' kappa over the items with the modal number of ratings uses only 6 of 20 "
        "items: a lopsided design."
    )
    f["fleiss_n_items"] = 10
    assert choose_headline(stats, f)["unstable"] is None


def test_declared_chart_pairs_are_drawn_as_a_heatmap_with_the_few_greyed() -> None:
    from dataclasses import replace

    from reports.figures import kappa_heatmap, pair_note

    pairs = Detail(
        "toy_pairs",
        long="Toy per observer pair",
        n_key="toy_pairs_n",
        chart=True,
        few_key="toy_few",
        minimum_key="toy_minimum",
    )
    charted = replace(TOY, view=replace(TOY.view, details=(pairs,)))
    with declared(charted):
        f = _block()
        f["toy_few"], f["toy_minimum"] = ["o1|o3"], 9
        fig = kappa_heatmap(f, "x")
        note = pair_note(f)
    assert fig.layout.title.text.startswith("Toy per observer pair: x<br>")
    colour, grey = fig.data
    assert list(colour.x) == list(NAMES)
    assert colour.text[0][1] == "0.89<br>n=9" and grey.text[0][2] == "0.62<br>n=8 (few)"
    assert note == (
        "Greyed out: pairs sharing fewer than 9 items (project setting `min_pair_overlap`), "
        "left out of the pair mean: o1 & o3 (n=8)."
    )


def test_the_scatter_plot_shows_the_measure_declared_as_its_fit() -> None:
    import pandas as pd

    from agreement.measures import fit_measure
    from reports.figures import scatter

    assert fit_measure().key == "pearson"
    pairs = pd.DataFrame({"item_id": ["a", "b", "c"], "human": [1, 2, 3], "score": [1, 2, 4]})
    # r = 3 / sqrt(2 * 42/9) = 0.9820
    title = scatter(pairs, "ev", "x", 3 / (2 * 42 / 9) ** 0.5).layout.title.text
    assert "<sup>Pearson r = 0.982, n = 3 items</sup>" in title


def test_the_length_bias_headline_is_read_through_its_declaration() -> None:
    import numpy as np
    import pytest

    from agreement.judge_probes import LENGTH_BIAS, length_bias, length_bias_entry

    residual = np.array([0.1, 0.5, -0.2, 0.9, 0.3])
    length = np.array([10, 20, 5, 50, 30])
    # ranks 2 4 1 5 3 against 2 3 1 5 4: sum d^2 = 2, rho = 1 - 6 * 2 / (5 * 24) = 0.9
    e = length_bias_entry(length_bias(residual, length, n_resamples=0))
    assert e.value == pytest.approx(0.9) and e.n == 5
    assert (LENGTH_BIAS.view.header, e.text) == ("length ρ (residual)", "0.900")
    assert length_bias_entry({"n": 0, "reason": "no lengths"}).value is None


def test_the_declared_leading_statistic_leads_the_panel_while_defined() -> None:
    f = {"level": "ordinal", "n_pairable": 12, "n_items": 12}
    stats = [
        {"key": "krippendorff_alpha", "label": "α ordinal", "value": None},
        {"key": "fleiss_kappa", "label": "Fleiss κ (modal)", "value": 0.4},
    ]
    got = choose_headline(stats, f)
    assert (got["key"], got["why"]) == (
        "fleiss_kappa",
        "Fleiss κ (modal) leads: Krippendorff's alpha is not defined here.",
    )
    stats[0]["value"] = 0.7
    got = choose_headline(stats, f)
    assert got["key"] == "krippendorff_alpha"
    assert got["why"].startswith("Krippendorff's alpha (ordinal) leads: it fits")
