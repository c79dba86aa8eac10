"""Measures register through the registry's public API, under one name, one module each."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from types import ModuleType

import pytest

import agreement.statistics as statistics_module
from agreement.measures import AMONG_PEOPLE, BIAS, MEASURES, Measure, MeasureView
from agreement.results import Stat
from agreement.statistics import ALL, declared, statistics

#: The built-in measures among people, in the order the document and the reports show them.
BUILTIN_ORDER = [
    "krippendorff_alpha",
    "fleiss_kappa",
    "fleiss_kappa_all_items",
    "percent_agreement",
    "gwet_ac1",
    "gwet_ac2_linear",
    "gwet_ac2_quadratic",
    "cohen_kappa_mean",
    "icc_1_1",
    "icc_a_1",
    "icc_c_1",
    "icc_1_k",
    "icc_a_k",
    "icc_c_k",
    "pearson_pairs_mean",
]

TOY = Measure(
    "toy_registration",
    MeasureView(
        "Toy",
        "Toy measure of the registration tests",
    ),
    ALL,
    compute=lambda ctx: Stat(0.5, 2),
)


def _module(name: str = "") -> ModuleType:
    """A module of the measures among people, imported after the registry discovered its
    built-ins (importing one first would register the other sections' built-ins first)."""
    statistics()
    package = "agreement.builtin_measures.among_people"
    return importlib.import_module(f"{package}.{name}" if name else package)


def test_the_builtins_among_people_come_first_in_display_order() -> None:
    keys = [m.key for m in statistics()]
    assert keys[: len(BUILTIN_ORDER)] == BUILTIN_ORDER
    assert keys[len(BUILTIN_ORDER)] == "text_answers"  # the question types' come after


def test_each_module_declares_its_own_measures_and_every_module_is_in_the_order() -> None:
    among_people = _module()
    alpha, cohen, fleiss, gwet, icc, pearson = (
        _module(n) for n in ("alpha", "cohen", "fleiss", "gwet", "icc", "pearson")
    )
    modules = {m.name for m in pkgutil.iter_modules(among_people.__path__)}
    assert modules == set(among_people.DISPLAY_ORDER)
    assert alpha.ALPHA.key == "krippendorff_alpha" and alpha.ALPHA.per_level
    assert (fleiss.FLEISS_MODAL.key, fleiss.FLEISS_ALL.key) == (
        "fleiss_kappa",
        "fleiss_kappa_all_items",
    )
    assert [m.key for m in (gwet.AC1, gwet.AC2_LINEAR, gwet.AC2_QUADRATIC)] == BUILTIN_ORDER[4:7]
    assert [d.key for d in gwet.AC2_QUADRATIC.view.details] == ["gwet_ac2_caveat"]
    assert gwet.AC2_LINEAR.view.details == () and gwet.AC2_LINEAR.view.method.startswith("AC1 with")
    assert cohen.COHEN_MEAN.layout[-2:] == cohen.WEIGHTED
    assert [m.key for m in icc.ICC] == BUILTIN_ORDER[8:14]
    assert pearson.PEARSON_MEAN.key == "pearson_pairs_mean"
    for m in (alpha.ALPHA, cohen.COHEN_MEAN, pearson.PEARSON_MEAN, *icc.ICC):
        assert MEASURES.get(f"{AMONG_PEOPLE}:{m.key}") is m


def test_a_key_declared_twice_is_refused_and_the_first_stays() -> None:
    with declared(TOY):
        with pytest.raises(ValueError, match=r"^measure 'toy_registration' is declared twice$"):
            statistics_module.declare(replace(TOY, view=replace(TOY.view, header="Other")))
        assert MEASURES.get(f"{AMONG_PEOPLE}:toy_registration").view.header == "Toy"
    assert "toy_registration" not in [m.key for m in statistics()]


def test_the_registry_refuses_what_is_not_a_measure_or_sits_under_another_name() -> None:
    with pytest.raises(TypeError, match=r"^measure 'among_people:x': 'x' is not a Measure$"):
        MEASURES.add("among_people:x", "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"it is declared as among_people:toy_registration$"):
        MEASURES.add(f"{BIAS}:toy_registration", TOY)
    assert f"{BIAS}:toy_registration" not in MEASURES.names()


def test_statistic_is_a_deprecated_name_of_measure() -> None:
    with pytest.warns(DeprecationWarning, match="use agreement.measures.Measure"):
        assert statistics_module.Statistic is Measure
    with pytest.raises(AttributeError, match="no attribute 'Statistics'"):
        _ = statistics_module.Statistics


def test_an_old_style_declaration_puts_its_display_keywords_in_the_view() -> None:
    new = Measure(
        "toy_legacy",
        MeasureView("Toy", "A toy", digits=1, panel=True, method="toy method"),
        frozenset({"ordinal"}),
        compute=len,
        n_key="toy_legacy_n",
    )
    positional = Measure(
        "toy_legacy",
        "Toy",
        "A toy",
        frozenset({"ordinal"}),
        compute=len,
        digits=1,
        panel=True,
        method="toy method",
        n_key="toy_legacy_n",
    )
    keywords = Measure(
        key="toy_legacy",
        header="Toy",
        name="A toy",
        applies_to=frozenset({"ordinal"}),
        digits=1,
        panel=True,
        method="toy method",
        compute=len,
        n_key="toy_legacy_n",
    )
    assert positional == keywords == new
    assert (positional.view.digits, positional.n_key, positional.ci_key) == (
        1,
        "toy_legacy_n",
        "toy_legacy_ci",
    )
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Measure("toy_legacy", "Toy", "A toy", colour="red")
