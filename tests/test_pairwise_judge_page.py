"""AppTest: the Alignment page of a declared pairwise question shows each judge version's
agreement with people and, after one click on the swap probe, its position consistency
with n and CI."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.support.apptest import assert_ok, open_app
from tests.support.kind_examples import EXAMPLES
from tests.support.scripted_llm import ScriptedLLM
from tests.test_llm_support import fast_llm_fixture
from tests.test_pairwise_judge import _judge, pref  # noqa: F401 (pref is a fixture)

_fast_llm = fast_llm_fixture()
NO_WORKER = {"WORKBENCH_JOBS_IN_APP": "0"}


def test_pairwise_section_and_swap_probe_click(
    monkeypatch: pytest.MonkeyPatch,
    pref: str,  # noqa: F811
    fast_llm: ScriptedLLM,
) -> None:
    from jobs.runner import run_evaluator
    from jobs.worker import execute_job
    from workbench_api.judges import save_judge

    fast_llm.handler = _judge
    store = Store(pref)
    save_judge(store, "pref-judge", (EXAMPLES / "pairwise_judge.toml").read_text())
    run_evaluator(store, "pref", "judge:pref-judge")
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, pref, page="pages/alignment.py", project="pref", env=NO_WORKER)
    assert_ok(at)
    row = at.table[0].value.loc["judge:pref-judge v1"]
    assert row["agreement with ties"] == "0.417 [0.193, 0.680] (n 12)"
    assert row["position consistency"].startswith("— (no swap probe run")
    at.button(key="alignment_probe_swap").click().run()
    assert_ok(at)
    [job] = store.jobs("pref")
    assert job.params["settings"] == {"judge:pref-judge@1": {"probe": "swap"}}
    assert execute_job(store, job.id).status == "done"

    at = open_app(monkeypatch, pref, page="pages/alignment.py", project="pref", env=NO_WORKER)
    assert_ok(at)
    table = at.table[0].value
    assert list(table.index) == ["judge:pref-judge v1"]  # the probe run is no row
    row = table.loc["judge:pref-judge v1"]
    assert row["position consistency"] == "0.500 [0.150, 0.850] (n 4)"
    assert row["first position both times"] == "0.250 [0.046, 0.699] (n 4)"
    assert row["agreement with ties"] == "0.250 [0.089, 0.532] (n 12)"
    assert row["agreement without ties"] == "1.000 [0.342, 1.000] (n 2)"
    store.close()
