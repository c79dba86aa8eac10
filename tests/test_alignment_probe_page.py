"""AppTest: one click on the Alignment page queues a swap probe run of a judge version;
once the job ran, the probes table shows the share changed with its n."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from tests.support.apptest import assert_ok, open_app
from tests.support.scripted_llm import ScriptedLLM
from tests.test_judge_probe_runs import _yes_for_two_gold_texts
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"
NO_WORKER = {"WORKBENCH_JOBS_IN_APP": "0"}


def test_swap_probe_button_queues_a_probe_run_of_the_version(
    monkeypatch: pytest.MonkeyPatch, demo: str, fast_llm: ScriptedLLM
) -> None:
    from jobs.runner import run_evaluator
    from jobs.worker import execute_job
    from workbench_api.judges import save_judge

    fast_llm.handler = _yes_for_two_gold_texts
    store = Store(demo)
    save_judge(store, "same-task", TOML.read_text())
    run_evaluator(store, PROJECT, "judge:same-task")
    store.ensure_annotator("admin", role="admin")
    at = open_app(
        monkeypatch, demo, page="pages/alignment.py", project=PROJECT, env=NO_WORKER, timeout=120
    )
    at.selectbox(key="alignment_probe_version").set_value("judge:same-task v1").run()
    assert [b.label for b in at.button if b.key.startswith("alignment_probe_")] == [
        "Run swap probe"
    ]  # a binary judge has no options to reverse
    at.button(key="alignment_probe_swap").click().run()
    assert_ok(at)
    [job] = store.jobs(PROJECT)
    assert job.params["settings"] == {"judge:same-task@1": {"probe": "swap"}}
    assert "queued as job" in at.success[0].value
    assert execute_job(store, job.id).status == "done"

    at = open_app(
        monkeypatch, demo, page="pages/alignment.py", project=PROJECT, env=NO_WORKER, timeout=120
    )
    probes = at.dataframe[1].value.set_index("version")
    assert "judge:same-task v1 (probe: swap)" not in probes.index
    row = probes.loc["judge:same-task v1"]
    assert row["swap: share changed"] == f"{2 / 6:.3f}"  # three decimals, like every figure
    assert int(row["swap n"]) == 6 and row["swap 95% CI"] == "[0.097, 0.700]"
    store.close()
