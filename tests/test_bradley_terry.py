"""Bradley-Terry: when a finite maximum-likelihood fit exists, the groups named when it
does not, and the strengths under the named prior; against ``choix`` (an independent
implementation: scipy's Newton-CG on its own likelihood, pinned in requirements-dev)."""

from __future__ import annotations

import json
from pathlib import Path

import choix
import pytest

from agreement.bradley_terry import PRIOR_SD, fit, fit_prior, tallies, why_no_fit
from annotation_store import Store
from reports.data import agreement_document
from tests.support.kind_examples import EXAMPLES
from workbench_api.kinds import save_kind

ABCD = ["A", "B", "C", "D"]
#: A and B split their games, so do C and D; A and B never lose to C or D (issue 42's
#: design: connected, and the old check passed it).
SEPARATED = [(0, 1, 1.0), (1, 0, 1.0), (2, 3, 1.0), (3, 2, 1.0)] + [
    (i, j, 1.0) for i in (0, 1) for j in (2, 3) for _ in range(2)
]
#: A and B split their games; B beats C and D once each and never loses to them; A met
#: neither; C and D split theirs: only part of the cross pairs were compared.
QUASI = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (3, 1, 0.0), (2, 3, 1.0), (3, 2, 0.5)]
#: Every system both wins and loses, with ties.
CONNECTED = [
    (0, 1, 1.0),
    (0, 1, 1.0),
    (1, 0, 1.0),
    (1, 2, 1.0),
    (2, 1, 0.5),
    (2, 3, 1.0),
    (3, 2, 1.0),
    (3, 0, 1.0),
    (0, 2, 1.0),
    (2, 0, 0.0),
]


def _choix_data(outcomes: list[tuple[int, int, float]]) -> list[tuple[int, int]]:
    """(winner, loser) pairs with every game counted twice, so a tie is one win each
    way (choix has no ties); doubling the data leaves the likelihood's maximum alone."""
    out = []
    for i, j, s in outcomes:
        wins_i = int(round(2 * s))
        out += [(i, j)] * wins_i + [(j, i)] * (2 - wins_i)
    return out


def test_the_design_of_issue_42_has_no_finite_fit_and_the_groups_are_named() -> None:
    beats = tallies(SEPARATED, 4)
    assert why_no_fit(beats, ABCD) == (
        "no finite maximum-likelihood strengths (separation): A, B never lost to C, D"
    )
    assert why_no_fit(tallies(QUASI, 4), ABCD) == (
        "no finite maximum-likelihood strengths (separation): A, B never lost to C, D"
    )
    assert why_no_fit(tallies(CONNECTED, 4), ABCD) is None
    chain = [(0, 1, 1.0), (1, 2, 1.0), (2, 1, 1.0)]
    assert why_no_fit(tallies(chain, 3), ["x", "y", "z"]).endswith("x never lost to y")
    apart = [(0, 1, 1.0), (1, 0, 1.0), (2, 3, 1.0), (3, 2, 1.0)]
    assert why_no_fit(tallies(apart, 4), ABCD) == (
        "the comparisons do not connect every system: A, B never met C, D"
    )
    assert why_no_fit(tallies([(0, 1, 1.0)], 3), ["x", "y", "z"]) == "never compared: z"


@pytest.mark.parametrize("design", [SEPARATED, QUASI, CONNECTED], ids=["sep", "quasi", "conn"])
def test_the_prior_fit_equals_choix_map_estimate(design: list) -> None:
    beats = tallies(design, 4)
    # choix's penalty is alpha * sum(theta^2): a N(0, sd^2) prior is alpha = 1 / (2 sd^2).
    # Doubled data doubles the likelihood, so the penalty doubles with it.
    want = choix.opt_pairwise(4, _choix_data(design), alpha=2 / (2 * PRIOR_SD**2), tol=1e-12)
    assert fit_prior(beats) == pytest.approx(want - want.mean(), abs=1e-7)


def test_the_maximum_likelihood_fit_equals_choix_on_a_connected_design() -> None:
    beats = tallies(CONNECTED, 4)
    want = choix.opt_pairwise(4, _choix_data(CONNECTED), alpha=0.0, tol=1e-12)
    assert fit(beats.sum(axis=1), beats + beats.T) == pytest.approx(want - want.mean(), abs=1e-7)


def _four_systems(store: Store, outcomes: list[tuple[int, int, float]]) -> None:
    """A pairwise project with one item per outcome, answered by three people alike."""
    save_kind(store, "pref", (EXAMPLES / "pairwise_preference.toml").read_text())
    store.create_project("pref", "decl:pref")
    items = [
        {
            "item_id": f"q{t}",
            "fields": {
                "request": f"request {t}",
                "answer_a": "one",
                "answer_b": "other",
                "system_a": ABCD[i],
                "system_b": ABCD[j],
            },
        }
        for t, (i, j, _) in enumerate(outcomes)
    ]
    store.upsert_items("pref", items)
    for t, (_, _, s) in enumerate(outcomes):
        choice = "tie" if s == 0.5 else ("answer_a" if s == 1 else "answer_b")
        for who in ("ann1", "ann2", "ann3"):
            store.save_label(
                "pref",
                f"q{t}",
                who,
                "preference",
                {"choice": choice, "shown": ["answer_a", "answer_b"]},
                status="submitted",
            )


def test_a_separated_study_says_why_and_labels_the_prior_strengths(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _four_systems(store, SEPARATED)
    doc = agreement_document(store, "pref", n_resamples=50)
    pref = doc.to_dict()["fields"]["preference"]
    assert pref["bradley_terry_top"] is None
    reason = pref["reasons"]["bradley_terry_top"]
    assert "A, B never lost to C, D" in reason and "N(0, 1) prior" in reason
    # no maximum-likelihood strengths: the prior's, under their own measure
    assert "bradley_terry_strength" not in pref
    prior = pref["bradley_terry_strength_prior"]
    want = fit_prior(tallies(SEPARATED, 4) * 3)  # three people gave each outcome
    assert list(prior)[:2] == ["A", "B"] and prior["A"] == pytest.approx(want[0], abs=1e-9)
    assert pref["bradley_terry_strength_prior_n"] == {"A": 18, "B": 18, "C": 18, "D": 18}
    rows = [r for r in doc.rows() if r.measure == "bradley_terry_strength_prior"]
    assert [r.level for r in rows[:2]] == ["A", "B"] and rows[0].n == 18
    assert rows[0].ci is not None and rows[0].ci[0] <= rows[0].value <= rows[0].ci[1]
    rates = pref["bradley_terry_win_rate"]
    assert rates["A"] == pytest.approx(15 / 18) and rates["D"] == pytest.approx(3 / 18)


def test_the_ranking_reaches_text_reports_bundle_and_page(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import pandas as pd

    from commands import main
    from tests.support.apptest import assert_ok, open_app

    store = Store(sqlite_url)
    _four_systems(store, CONNECTED)
    store.close()
    beats = tallies(CONNECTED, 4) * 3
    theta = dict(zip(ABCD, fit(beats.sum(axis=1), beats + beats.T), strict=True))
    order = sorted(ABCD, key=lambda s: -theta[s])
    played = {s: int((beats + beats.T)[i].sum()) for i, s in enumerate(ABCD)}
    base = ["--db", sqlite_url]
    assert main([*base, "agreement", "pref", "--resamples", "0"]) == 0
    text = capsys.readouterr().out
    lines = [ln.split() for ln in text.splitlines() if ln.strip().startswith("BT strength ")]
    assert [ln[2] for ln in lines] == order
    assert [float(ln[3]) for ln in lines] == [round(theta[s], 3) for s in order]
    assert [ln[-1] for ln in lines] == [str(played[s]) for s in order]
    assert "BT strength (prior)" not in text and text.count("BT win rate ") == 4
    for suffix in ("md", "html", "json"):
        out = tmp_path / f"r.{suffix}"
        assert main([*base, "report", "pref", "--resamples", "0", "--out", str(out)]) == 0
        got = out.read_text()
        if suffix == "md":
            top = order[0]
            row = f"| preference | BT strength {top} | {theta[top]:.3f} | — | {played[top]} |"
            assert row in got
        elif suffix == "html":
            assert "preference: Bradley-Terry log-strength of each system" in got
        else:
            block = json.loads(got)["agreement"]["fields"]["preference"]
            assert list(block["bradley_terry_strength"]) == order
    bundle = tmp_path / "bundle"
    assert (
        main([*base, "export", "agreement", "pref", "--resamples", "0", "--out", str(bundle)]) == 0
    )
    frame = pd.read_parquet(bundle / "agreement.parquet")
    ranked = frame.query("field == 'preference' and statistic == 'bradley_terry_strength'")
    assert ranked["level"].tolist() == order
    assert ranked["value"].round(9).tolist() == [round(theta[s], 9) for s in order]
    assert ranked["n"].tolist() == [played[s] for s in order]
    prior = frame.query("field == 'preference' and statistic == 'bradley_terry_strength_prior'")
    assert prior["reason"].tolist() == ["a finite fit exists: see BT strength"]
    at = open_app(monkeypatch, sqlite_url, page="pages/agreement.py", project="pref")
    assert_ok(at)
    assert "Ranking of the compared systems" in [h.value for h in at.header]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    ranking = next(
        c for c in charts if c["layout"]["title"]["text"].startswith("preference: Bradley-Terry")
    )
    assert ranking["data"][0]["y"] == order
