"""study_inputs.load.all_scores: the Audit page's scores, the shared read's own frame
when that read left nothing out, else the store's whole read (probe runs included)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from annotation_store import Store
from study_inputs.load import all_scores, load_inputs
from tests.support.scripted_llm import ScriptedLLM
from tests.test_judge_probe_runs import _yes_for_two_gold_texts
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"


def test_the_shared_frame_itself_when_nothing_was_left_out(demo: str) -> None:
    store = Store(demo)
    inputs = load_inputs(store, PROJECT)
    scores = all_scores(store, PROJECT, inputs)
    assert scores is inputs.scores  # one frame kept, not two
    pd.testing.assert_frame_equal(scores, store.scores_frame(PROJECT))
    store.close()


def test_probe_runs_included_as_the_store_reads_them(demo: str, fast_llm: ScriptedLLM) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    fast_llm.handler = _yes_for_two_gold_texts
    store = Store(demo)
    save_judge(store, "same-task", TOML.read_text())
    run_evaluator(store, PROJECT, "judge:same-task")
    run_evaluator(store, PROJECT, "judge:same-task", settings={"probe": "swap"})
    inputs = load_inputs(store, PROJECT)
    scores = all_scores(store, PROJECT, inputs)
    whole = store.scores_frame(PROJECT)
    pd.testing.assert_frame_equal(scores, whole)
    assert len(scores) == len(inputs.scores) + 6  # the swap probe's six scores
    store.close()
