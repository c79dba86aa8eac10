"""FinGrAct: the paper's worked examples, sanity rules and three distinct runs."""

from __future__ import annotations

import pytest

from annotation_store import Store
from evaluators.base import EvalItem
from evaluators.builtin.fingract import ErrorCheck, LinkCheck, categorize, score
from jobs.runner import run_evaluator
from tests.support.scripted_llm import ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

EARTH = {
    "claim": "Earth is flat and green.",
    "evidence": "Nasa images show that Earth is a huge blue round planet.",
    "label": "FALSE",
    "explanation": "The NASA images show that the Earth is huge and not green. "
    "https://science.nasa.gov/gallery/jupiter",
}
EARTH_ERRORS = {
    "errors": [
        {
            "false_subclaim": "Earth is flat",
            "reason": "The evidence says Earth is round.",
            "correction": "Earth is round",
        },
        {
            "false_subclaim": "Earth is green",
            "reason": "The evidence says Earth is blue.",
            "correction": "Earth is blue",
        },
    ]
}
# flat: not mentioned, not corrected; green: mentioned ("not green") and, as the paper's
# annotators counted it, corrected; the Jupiter link works but is not relevant.
EARTH_JUDGE = {
    "errors": [
        {"error": 1, "mentioned": "No", "corrected": "No", "supported_by_link": "No"},
        {"error": 2, "mentioned": "Yes", "corrected": "Yes", "supported_by_link": "No"},
    ],
    "links": {"exists": "Yes", "relevant": "No"},
    "reasoning": "Points out green only; the link is about Jupiter.",
}

JUNUN = {
    "claim": "Junun is a book.",
    "evidence": "Junun is a 2015 documentary film directed by Paul Thomas Anderson.",
    "label": "FALSE",
    "explanation": "If we were to say 'Junun is a 2015 documentary film directed by Paul "
    "Thomas Anderson' instead of 'book', the claim would be correct. "
    "https://en.wikipedia.org/wiki/Junun_(film)",
}
JUNUN_ERRORS = {
    "errors": [
        {
            "sentence": "Junun is a book",
            "reason": "It is a film.",
            "correction": "Junun is a 2015 documentary film",
        }
    ]
}
JUNUN_JUDGE = [{"error": "1", "response": "Yes", "correction": "Yes", "supporting_links": "Yes"}]


def test_earth_flat_and_green(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(EARTH_ERRORS), dumps(EARTH_JUDGE))
    [res] = run_items("fingract", [EvalItem("earth", EARTH)])
    assert res.status == "ok", res.error
    # detection 1 (some) + correction 1 (some) + links 1 (exists only) = 3 -> 3 x 5/6
    assert res.scores == {
        "actionability": pytest.approx(2.5),
        "errors_detected": 1.0,
        "errors_corrected": 1.0,
        "sources": 1.0,
    }
    assert res.details["links"] == [{"url": "https://science.nasa.gov/gallery/jupiter"}]
    judge_prompt = fast_llm.requests[1]["messages"][-1]["content"]
    assert "Earth is blue" in judge_prompt and "jupiter" in judge_prompt


def test_junun_full_marks_from_paper_style_keys(fast_llm: ScriptedLLM) -> None:
    # the paper's own key names and a bare list, as its figures show them
    fast_llm.queue(
        dumps(JUNUN_ERRORS),
        dumps({"errors": JUNUN_JUDGE, "links": {"exists": "yes", "relevant": "yes"}}),
    )
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)])
    assert res.scores["actionability"] == pytest.approx(5.0)
    assert res.scores["sources"] == 3.0 and res.details["scoring"]["total"] == 6.0
    assert res.details["links"][0]["url"] == "https://en.wikipedia.org/wiki/Junun_(film)"


def test_sanity_rules() -> None:
    checks = [ErrorCheck(mentioned=True, corrected=True, supported_by_link=True)]
    # relevant without exists -> neither relevant nor supporting
    parts = score(checks, LinkCheck(exists=False, relevant=True), link_possible=True)
    assert (parts["exists"], parts["relevant"], parts["supports"], parts["links"]) == (
        False,
        False,
        False,
        0.0,
    )
    # the model claims a link exists but the explanation has none
    parts = score(checks, LinkCheck(exists=True, relevant=True), link_possible=False)
    assert parts["links"] == 0.0 and parts["actionability"] == pytest.approx(4 * 5 / 6)
    assert [categorize(h, 3) for h in range(4)] == [0, 1, 1, 2]


def test_no_error_found_is_no_score(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps({"errors": []}))
    [res] = run_items("fingract", [EvalItem("ok", EARTH)])
    assert res.status == "ok" and res.scores["actionability"] is None and fast_llm.calls == 1


def test_three_runs_are_distinct_and_rerun_is_cached(fast_llm: ScriptedLLM, store: Store) -> None:
    store.create_project("act", "actionability")
    store.upsert_items("act", [{"item_id": "earth", "fields": EARTH}])

    def handler(req: dict):
        from tests.support.scripted_llm import Reply

        text = req["messages"][-1]["content"]
        return Reply(content=dumps(EARTH_JUDGE if "Errors (numbered)" in text else EARTH_ERRORS))

    fast_llm.handler = handler
    progress = run_evaluator(store, "act", "fingract")
    assert len(progress.run_ids) == 3 and fast_llm.calls == 6  # 2 stages x 3 runs
    again = run_evaluator(store, "act", "fingract")
    assert fast_llm.calls == 6 and again.cached == 3
    scores = [r["scores"]["actionability"] for r in store.item_results("act", "earth")]
    assert scores == [pytest.approx(2.5)] * 6
