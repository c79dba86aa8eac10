"""``cli.py metaeval`` on a small project: every level against an independent computation
(scipy.stats on the same cells), bad input left out with its reason, and the rows in the
agreement document, its bundle and its report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from annotation_store import Store
from cli import main
from interop.importing import import_annotations, import_items, import_scores

SYSTEMS = ("s1", "s2", "s3", "s4", "s5")
GROUPS = ("g1", "g2", "g3", "g4")
#: people's two labels per (system, group); g4 gets one value from everybody (constant)
P1 = np.array(
    [
        [0.8, 0.6, 1.0, 0.4],
        [0.6, 0.4, 0.8, 0.4],
        [0.4, 0.6, 0.2, 0.4],
        [0.2, 0.0, 0.4, 0.4],
        [1.0, 0.8, 0.6, 0.4],
    ]
)
P2 = np.array(
    [
        [0.6, 0.6, 0.8, 0.4],
        [0.8, 0.2, 0.8, 0.4],
        [0.4, 0.4, 0.4, 0.4],
        [0.2, 0.2, 0.2, 0.4],
        [0.8, 1.0, 0.6, 0.4],
    ]
)
PEOPLE = (P1 + P2) / 2
#: a metric that knows the systems (their mean quality, plus item noise)...
RANKER = PEOPLE.mean(1, keepdims=True) + np.array(
    [
        [0.3, -0.2, 0.1, -0.3],
        [-0.1, 0.25, -0.2, 0.1],
        [0.2, -0.1, 0.3, -0.2],
        [-0.3, 0.1, -0.1, 0.3],
        [0.1, 0.2, -0.3, 0.0],
    ]
)
#: ...and one that follows the items but likes two systems' style
STYLE = PEOPLE + np.array([[0.0], [0.0], [0.25], [0.45], [0.0]]) + 0.01 * np.arange(4)


def _project(
    store: Store, tmp: Path, name: str = "me", systems=SYSTEMS, partial: bool = True
) -> None:
    store.create_project(name, "intent_resolution", {"k": 2})
    items, labels, scores = [], ["item_id,annotator,field,value"], ["item_id,evaluator,field,value"]
    for s, sys_name in enumerate(systems):
        for g, grp in enumerate(GROUPS):
            iid = f"{sys_name}-{grp}"
            items.append(
                {
                    "item_id": iid,
                    "query": f"q {grp}",
                    "response": f"r {iid}",
                    "generator": sys_name,
                    "input": grp,
                }
            )
            labels += [f"{iid},p1,resolution,{P1[s, g]}", f"{iid},p2,resolution,{P2[s, g]}"]
            scores += [
                f"{iid},ranker,resolution,{float(RANKER[s, g])!r}",
                f"{iid},style,resolution,{float(STYLE[s, g])!r}",
            ]
            if partial and g < 3:
                scores.append(f"{iid},partial,resolution,{float(PEOPLE[s, g])!r}")
    (tmp / f"{name}.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (tmp / f"{name}-labels.csv").write_text("\n".join(labels) + "\n")
    (tmp / f"{name}-scores.csv").write_text("\n".join(scores) + "\n")
    import_items(store, name, tmp / f"{name}.jsonl")
    import_annotations(store, name, tmp / f"{name}-labels.csv")
    import_scores(store, name, tmp / f"{name}-scores.csv")


@pytest.fixture
def project(store: Store, tmp_path: Path) -> Store:
    _project(store, tmp_path)
    return store


def _run(sqlite_url: str, capsys, *args: str) -> dict:
    code = main(["--db", sqlite_url, "metaeval", "me", "--field", "resolution", "--json", *args])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def _row(data: dict, ev: str, level: str, stat: str) -> dict:
    return next(
        r for r in data["rows"] if (r["evaluator"], r["level"], r["statistic"]) == (ev, level, stat)
    )


def test_levels_match_scipy_on_the_same_cells(project: Store, sqlite_url: str, capsys) -> None:
    data = _run(sqlite_url, capsys, "--group", "input", "--resamples", "200")
    for name, m in (("ranker", RANKER), ("style", STYLE)):
        seg = _row(data, name, "segment", "pearson")
        assert seg["value"] == pytest.approx(sps.pearsonr(PEOPLE.ravel(), m.ravel())[0], abs=1e-9)
        assert seg["n"] == 20 and seg["resampled"] == "groups"
        assert seg["ci"][0] < seg["value"] < seg["ci"][1]
        tau = _row(data, name, "segment", "kendall_b")["value"]
        assert tau == pytest.approx(sps.kendalltau(PEOPLE.ravel(), m.ravel())[0], abs=1e-9)
        # group level: per input across the five systems, the constant input g4 left out
        grp = _row(data, name, "group", "spearman")
        per = [sps.spearmanr(PEOPLE[:, g], m[:, g])[0] for g in range(3)]
        assert grp["value"] == pytest.approx(np.mean(per), abs=1e-9)
        assert (grp["n"], grp["n_constant"]) == (3, 1)
        # system level: the per-system means
        sysr = _row(data, name, "system", "pearson")
        assert sysr["value"] == pytest.approx(sps.pearsonr(PEOPLE.mean(1), m.mean(1))[0], abs=1e-9)
        assert sysr["n"] == 5 and sysr["resampled"] == "systems and groups"
    # the ranker orders the systems as people do, the style metric does not ...
    assert _row(data, "ranker", "system", "pairwise_accuracy")["value"] == 1.0
    acc = _row(data, "style", "system", "pairwise_accuracy")
    h, m = PEOPLE.mean(1), STYLE.mean(1)
    agree = sum(
        np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]) for i in range(5) for j in range(i + 1, 5)
    )
    assert acc["value"] == agree / 10 and acc["n_pairs"] == 10
    # ... and the reverse item by item
    assert (
        _row(data, "style", "segment", "pearson")["value"]
        > _row(data, "ranker", "segment", "pearson")["value"]
    )
    spa = _row(data, "ranker", "system", "soft_pairwise_accuracy")
    assert spa["resampled"] == "systems" and 0 <= spa["value"] <= 1
    acc_eq = _row(data, "style", "segment", "acc_eq")
    assert "threshold" in acc_eq and acc_eq["value"] is not None
    # the people's own ceiling: each annotator against the other
    ceiling = _row(data, "annotator p1", "segment", "pearson")
    assert ceiling["role"] == "annotator"
    assert ceiling["value"] == pytest.approx(sps.pearsonr(P1.ravel(), P2.ravel())[0], abs=1e-9)


def test_comparisons_and_clusters(project: Store, sqlite_url: str, capsys) -> None:
    data = _run(sqlite_url, capsys, "--group", "input", "--resamples", "300")
    tests = {
        (c["a"], c["b"], c["level"], c["statistic"], c["test"]): c for c in data["comparisons"]
    }
    w = tests[("ranker", "style", "system", "pearson", "williams")]
    r1 = sps.pearsonr(PEOPLE.mean(1), RANKER.mean(1))[0]
    r2 = sps.pearsonr(PEOPLE.mean(1), STYLE.mean(1))[0]
    assert w["delta"] == pytest.approx(r1 - r2, abs=1e-9) and w["sided"] == "one"
    assert 0 <= w["p"] <= 1
    perm = tests[("style", "ranker", "group", "pearson", "permutation")]
    assert perm["delta"] > 0 and 0 <= perm["p"] <= 1
    # the partial metric scored other items: no paired test, with the reason
    partial = [c for c in data["comparisons"] if "partial" in (c["a"], c["b"])]
    assert partial and all(c["p"] is None and "different items" in c["reason"] for c in partial)
    seg = next(
        c for c in data["clusters"] if (c["level"], c["statistic"]) == ("segment", "pearson")
    )
    assert seg["ranking"][0]["cluster"] == 1
    assert [x["evaluator"] for x in seg["left_out"]] == ["partial"] or seg["ranking"][0][
        "evaluator"
    ] == "partial"


def test_without_groups_the_group_level_is_left_out_and_said(
    project: Store, sqlite_url: str, capsys
) -> None:
    data = _run(sqlite_url, capsys, "--resamples", "0")
    assert not [r for r in data["rows"] if r["level"] == "group"]
    assert any("group level left out" in n for n in data["notes"])
    seg = _row(data, "ranker", "segment", "pearson")
    assert seg["ci"] is None and seg["value"] is not None


def test_too_few_systems_are_left_out_with_n(
    store: Store, tmp_path: Path, sqlite_url: str, capsys
) -> None:
    _project(store, tmp_path, systems=("s1", "s2"), partial=False)
    data = _run(sqlite_url, capsys, "--group", "input", "--resamples", "0")
    row = _row(data, "ranker", "system", "pearson")
    assert row["value"] is None and row["n"] == 2 and "fewer than 3 systems" in row["reason"]
    grp = _row(data, "ranker", "group", "pearson")
    assert grp["value"] is None and "fewer than 3 groups" in grp["reason"]


def test_bad_requests_are_one_line(project: Store, sqlite_url: str, capsys) -> None:
    assert main(["--db", sqlite_url, "metaeval", "me", "--field", "nope"]) != 0
    err = capsys.readouterr().err
    assert "not a numeric human field" in err and len(err.strip().splitlines()) == 1
    assert (
        main(["--db", sqlite_url, "metaeval", "me", "--field", "resolution", "--group", "missing"])
        != 0
    )
    assert "no item has a value in the group column 'missing'" in capsys.readouterr().err
    code = main(
        ["--db", sqlite_url, "metaeval", "me", "--field", "resolution", "--evaluator", "ghost"]
    )
    assert code != 0 and "ghost" in capsys.readouterr().err


def test_text_output(project: Store, sqlite_url: str, capsys) -> None:
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "metaeval",
                "me",
                "--field",
                "resolution",
                "--group",
                "input",
                "--resamples",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Meta-evaluation of resolution (systems: generator, groups: input)" in out
    assert "Significance clusters:" in out and "| ranker |" in out


def test_rows_reach_the_bundle_and_the_report(project: Store, tmp_path: Path) -> None:
    from agreement.metaeval.rows import NOT_COMPUTED
    from interop.agreement_bundle import agreement_frame
    from reports.data import agreement_document
    from reports.render import build_report, render_report

    plain = agreement_frame(agreement_document(project, "me", n_resamples=0).rows())
    meta = plain[plain["section"] == "meta_evaluation"]
    assert len(meta) == 7 and (meta["reason"] == NOT_COMPUTED).all()
    project.update_settings("me", {"metaeval": {"field": "resolution", "group": "input"}})
    # named in the settings, still computed only when asked (the report asks)
    lazy = agreement_frame(agreement_document(project, "me", n_resamples=0).rows())
    assert lazy[lazy["section"] == "meta_evaluation"]["value"].isna().all()
    doc = agreement_document(project, "me", n_resamples=0, metaeval=True)
    frame = agreement_frame(doc.rows())
    rows = frame[frame["section"] == "meta_evaluation"]
    seg = rows.query("subject == 'style' and statistic == 'pearson' and level == 'segment'")
    assert seg["value"].iloc[0] == pytest.approx(
        sps.pearsonr(PEOPLE.ravel(), STYLE.ravel())[0], abs=1e-9
    )
    assert set(rows["level"]) == {"segment", "group", "system"}
    md = render_report(build_report(project, "me"), "md")
    assert "## Meta-evaluation of resolution (systems: generator, groups: input)" in md
    assert "### System level (per-system means)" in md


def test_undefined_is_never_a_number() -> None:
    from agreement.metaeval.document import meta_evaluate
    from agreement.metaeval.grid import Grid

    people = np.full((3, 4), 0.5)  # people give every item one value
    grid = Grid("f", "generator", "input", ("a", "b", "c"), GROUPS, people, {"m": PEOPLE[:3]}, {})
    doc = meta_evaluate(grid, n_resamples=50)
    for f in doc.figures:
        if f.statistic not in ("acc_eq", "pairwise_accuracy", "soft_pairwise_accuracy"):
            assert f.value is None and f.reason, f
    assert all(not (isinstance(f.value, float) and math.isnan(f.value)) for f in doc.figures)
