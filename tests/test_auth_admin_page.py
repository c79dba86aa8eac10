"""The Users & settings page: add a user, save annotation settings, assign explicitly."""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import make_project
from tests.support.apptest import open_app


def test_admin_adds_user_and_saves_settings(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(store, "likert")
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="likert")
    form_inputs = {t.label: t for t in at.text_input}
    form_inputs["Name"].input("zoe")
    form_inputs["Password (local sign-in, 8+ characters)"].input("zoe-password")
    next(s for s in at.selectbox if s.label == "Role").select("reviewer")
    next(b for b in at.button if b.label == "Add user").click().run()
    assert accounts.authenticate_local(store, "zoe", "zoe-password").role == "reviewer"
    # at once in the user list and the "Change a user" picker, without a reload
    assert "zoe" in at.dataframe[0].value["name"].tolist()
    assert "zoe" in next(s for s in at.selectbox if s.label == "User").options
    assert [s.value for s in at.success] == ["Added zoe."]
    # settings read as words, not as their stored names
    order = next(s for s in at.selectbox if s.label == "Order items are handed out")
    assert order.options[:3] == ["In file order", "Random order", "Least-annotated first"]

    number = {n.label: n for n in at.number_input}
    number["Annotators per item (k)"].set_value(4)
    number["Quota per annotator (0 = none)"].set_value(7)
    next(s for s in at.selectbox if s.label.startswith("Annotators see")).select("always")
    next(b for b in at.button if b.label == "Save settings").click().run()
    cfg = asg.annotation_settings(store.project("likert").settings)
    assert (cfg.k, cfg.quota, cfg.show_evaluators) == (4, 7, "always")
