"""``cli.py estimate`` and ``workbench_api.estimates`` on a synthetic project."""

from __future__ import annotations

import json

import numpy as np
import pytest

from commands import main
from estimates.ppi import classical_mean, ppi_mean
from estimates.rogan_gladen import corrected_rate
from tests.support.estimates_project import build
from workbench_api.estimates import estimate


def run(db: str, *args: str, capsys) -> tuple[int, str, str]:
    code = main(["--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


def _expected(truth, mask):
    t = truth[mask]
    lab = t["labelled"].to_numpy()
    y, f = t["truth"].to_numpy(), t["judge"].to_numpy()
    return y, f, lab


def test_estimate_json_matches_the_maths(store, sqlite_url, capsys) -> None:
    truth = build(store, "est", kind="binary", n_items=300, n_labelled=80)
    code, out, err = run(
        sqlite_url,
        "estimate",
        "est",
        "--field",
        "label",
        "--evaluator",
        "toyjudge",
        "--by",
        "generator",
        "--json",
        capsys=capsys,
    )
    assert code == 0, err
    doc = json.loads(out)
    groups = {g["group"]: g for g in doc["groups"]}
    assert list(groups) == ["overall", "alpha", "beta"]
    for name, mask in (
        ("overall", truth["item_id"].notna()),
        ("alpha", truth["generator"] == "alpha"),
    ):
        y, f, lab = _expected(truth, mask)
        g = groups[name]
        assert (g["n_human"], g["n_judge"]) == (int(lab.sum()), len(f))
        ppi = ppi_mean(y[lab], f[lab], f[~lab])
        assert g["ppi"]["estimate"] == pytest.approx(ppi.estimate, abs=1e-12)
        assert g["ppi"]["ci"] == pytest.approx(list(ppi.ci), abs=1e-12)
        assert g["ppi"]["lambda"] == pytest.approx(ppi.extra["lambda"], abs=1e-12)
        assert g["human"]["estimate"] == pytest.approx(y[lab].mean())
        assert g["human"]["ci"] == pytest.approx(list(classical_mean(y[lab]).ci))
        assert g["judge"]["estimate"] == pytest.approx(f.mean()) and g["judge"]["biased"]
        rg = corrected_rate(f, y[lab], f[lab])
        assert g["corrected"]["estimate"] == pytest.approx(rg.estimate)
    assert doc["differences"][0]["a"] == "alpha" and not doc["differences"][0]["paired"]


def test_estimate_text_pairs_and_plans(store, sqlite_url, capsys) -> None:
    build(store, "num", kind="score", n_items=400, n_labelled=200)
    code, out, err = run(
        sqlite_url,
        "estimate",
        "num",
        "--field",
        "label",
        "--evaluator",
        "toyjudge",
        "--by",
        "generator",
        "--pair-by",
        "query",
        "--target",
        "0.01",
        capsys=capsys,
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "num · label (interval) · judge toyjudge imported"
    assert any(line.startswith("  PPI++") and "lambda" in line for line in lines)
    assert not any("Rogan-Gladen" in line for line in lines)  # numeric field
    assert any("paired over 200 inputs" in line for line in lines)
    assert any(line.startswith("plan overall · PPI++ mean to ±0.01: ") for line in lines)
    assert "plan beta · judge-human Pearson r to ±0.01: " in out
    # one annotator per item: no pairable units, so alpha has no interval to plan from
    assert "plan overall · Krippendorff's alpha (people) to ±0.01: no interval yet" in out


def test_plans_in_json_follow_the_formula(store, sqlite_url, capsys) -> None:
    build(store, "est", kind="score", n_items=400, n_labelled=100, annotators=2)
    args = ["estimate", "est", "--field", "label", "--evaluator", "toyjudge", "--json"]
    code, out, err = run(sqlite_url, *args, "--target", "0.02", capsys=capsys)
    assert code == 0, err
    doc = json.loads(out)
    ppi_plan, r_plan, alpha_plan = doc["plans"]["overall"]
    g = doc["groups"][0]["ppi"]
    z = 1.959963984540054
    need = z**2 * g["var_rectifier"] / (0.02**2 - z**2 * g["var_imputed_term"])
    assert ppi_plan["n_needed"] == int(np.ceil(need)) and ppi_plan["n_now"] == 100
    assert ppi_plan["more"] == ppi_plan["n_needed"] - 100
    hw = r_plan["half_width_now"]
    assert r_plan["n_now"] == 100 and r_plan["n_needed"] == int(np.ceil(100 * (hw / 0.02) ** 2))
    assert alpha_plan["figure"] == "Krippendorff's alpha (people)" and alpha_plan["n_now"] == 100


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--evaluator", "nope"], "no evaluator 'nope' scored 'label' (choose from"),
        (["--field", "text"], "'text' is not a numeric human field"),
        (["--target", "0"], "--target must be a number > 0"),
        (["--pair-by", "missing"], "no item has the field 'missing'"),
    ],
)
def test_estimate_bad_input_is_one_line(store, sqlite_url, capsys, args, message) -> None:
    build(store, "est", n_items=40, n_labelled=20)
    base = {"--field": "label", "--evaluator": "toyjudge"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    flat = [x for kv in base.items() for x in kv]
    code, out, err = run(sqlite_url, "estimate", "est", *flat, capsys=capsys)
    assert code != 0 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_few_labels_say_why(store, sqlite_url, capsys) -> None:
    build(store, "est", n_items=50, n_labelled=5)
    code, out, _ = run(
        sqlite_url,
        "estimate",
        "est",
        "--field",
        "label",
        "--evaluator",
        "toyjudge",
        "--json",
        capsys=capsys,
    )
    g = json.loads(out)["groups"][0]
    assert code == 0 and g["ppi"]["estimate"] is None
    assert "at least 10" in g["ppi"]["reason"] and np.isfinite(g["judge"]["estimate"])


def test_report_has_the_estimates_and_plans(store, sqlite_url, tmp_path, capsys) -> None:
    build(store, "est", kind="score", n_items=200, n_labelled=60, annotators=2)
    expected = estimate(store, "est", "label", "toyjudge", by_generator=True)
    for suffix in ("md", "json", "html"):
        out = tmp_path / f"r.{suffix}"
        code = main(
            [
                "--db",
                sqlite_url,
                "report",
                "est",
                "--out",
                str(out),
                "--resamples",
                "100",
                "--plan-target",
                "0.02",
            ]
        )
        assert code == 0, capsys.readouterr().err
        text = out.read_text()
        if suffix == "json":
            (table,) = json.loads(text)["estimates"]
            overall = table["groups"][0]
            assert overall["ppi"]["estimate"] == pytest.approx(expected.groups[0].ppi.estimate)
            figures = [p["figure"] for p in table["plans"]["overall"]]
            assert figures == [
                "PPI++ mean",
                "judge-human Pearson r",
                "Krippendorff's alpha (people)",
            ]
            assert table["plans"]["overall"][0]["target"] == 0.02
        elif suffix == "md":
            ppi = expected.groups[0].ppi
            row = (
                f"| overall | PPI++ (λ {ppi.extra['lambda']:.2f}) | {ppi.estimate:.3f} | "
                f"[{ppi.ci[0]:.3f}, {ppi.ci[1]:.3f}] | 60 | 200 |"
            )
            assert "## Estimates: what people would say, per system" in text and row in text
        else:
            assert "<h2>Estimates: what people would say, per system</h2>" in text
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "report",
                "est",
                "--out",
                str(tmp_path / "x.md"),
                "--plan-target",
                "-1",
            ]
        )
        != 0
    )
    assert "--plan-target must be a number > 0" in capsys.readouterr().err
