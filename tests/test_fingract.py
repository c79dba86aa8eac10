"""FinGrAct: the paper's worked examples, sanity rules and three distinct runs."""

from __future__ import annotations

import pytest

from annotation_store import Store
from evaluators.base import EvalItem
from evaluators.builtin.fingract import ErrorCheck, LinkCheck, categorize, score
from jobs.runner import run_evaluator
from tests.support.scripted_llm import Reply, ScriptedLLM
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
# The paper's stage-2 format without UCR: a bare list, one entry per error, keyed
# "error" (the error's text), "response" (mentioned), "correction" (corrected) and
# "supporting_links"; nothing else about the links.
JUNUN_JUDGE = [
    {
        "error": "Junun is a documentary film, not a book.",
        "response": "Yes",
        "correction": "Yes",
        "supporting_links": "Yes",
    }
]


KNOWLEDGE = {"link_judgement": "from_knowledge"}


def test_without_retriever_a_link_that_supports_nothing_earns_nothing(
    fast_llm: ScriptedLLM,
) -> None:
    # the judge even volunteers "exists": it is not asked, so it is not scored
    fast_llm.queue(dumps(EARTH_ERRORS), dumps(EARTH_JUDGE))
    [res] = run_items("fingract", [EvalItem("earth", EARTH)])
    assert res.status == "ok", res.error
    # detection 1 + correction 1 + no link points = 2 -> 2 x 5/6
    assert res.scores == {
        "actionability": pytest.approx(2 * 5 / 6),
        "errors_detected": 1.0,
        "errors_corrected": 1.0,
        "sources": 0.0,
    }
    judge_prompt = fast_llm.requests[1]["messages"][-1]["content"]
    assert '"exists"' not in judge_prompt and '"relevant"' not in judge_prompt
    assert "supported_by_link" in judge_prompt
    assert res.details["judge_prompt"] == "fingract_judge_paper.v1"
    assert res.signature.settings["link_judgement"] == "paper"


def test_earth_flat_and_green(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(EARTH_ERRORS), dumps(EARTH_JUDGE))
    [res] = run_items("fingract", [EvalItem("earth", EARTH)], settings=KNOWLEDGE)
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
    # the paper's own key names and a bare list, exactly as its figures show them
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps(JUNUN_JUDGE))
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)])
    assert res.status == "ok", res.error
    assert fast_llm.calls == 2  # understood as sent: no re-ask
    assert res.scores["actionability"] == pytest.approx(5.0)
    assert res.scores["sources"] == 3.0 and res.details["scoring"]["total"] == 6.0
    # a supporting link must exist and be relevant (the paper's sanity rule)
    assert res.details["scoring"]["links_from"] == "implied_by_support"
    assert res.details["links"][0]["url"] == "https://en.wikipedia.org/wiki/Junun_(film)"


def test_paper_ucr_style_per_error_link_keys(fast_llm: ScriptedLLM) -> None:
    # the paper's format with UCR: existing/related/supporting links per error
    judge = [
        {
            "error": "flat",
            "response": "No",
            "correction": "No",
            "existing_links": "Yes",
            "related_links": "No",
            "supporting_links": "No",
        },
        {
            "error": "green",
            "response": "Yes",
            "correction": "Yes",
            "existing_links": "Yes",
            "related_links": "No",
            "supporting_links": "No",
        },
    ]
    fast_llm.queue(dumps(EARTH_ERRORS), dumps(judge))
    [res] = run_items("fingract", [EvalItem("earth", EARTH)], settings=KNOWLEDGE)
    assert res.status == "ok", res.error
    assert fast_llm.calls == 2
    assert res.scores["sources"] == 1.0 and res.scores["actionability"] == pytest.approx(2.5)
    assert res.details["scoring"]["links_from"] == "per_error"


def test_missing_link_judgement_is_reasked_not_scored_as_no(fast_llm: ScriptedLLM) -> None:
    # paper format without any link answer that says something: "supporting_links": "No"
    # tells nothing about whether the link works or is relevant
    silent = [dict(JUNUN_JUDGE[0], supporting_links="No")]
    answered = {
        "errors": [{"error": 1, "mentioned": "Yes", "corrected": "Yes", "supported_by_link": "No"}],
        "links": {"exists": "Yes", "relevant": "Yes"},
    }
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps(silent), dumps(answered))
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)], settings=KNOWLEDGE)
    assert res.status == "ok", res.error
    assert fast_llm.calls == 3
    reask = fast_llm.requests[2]["messages"][-1]["content"]
    assert "does not judge the links" in reask
    # exists 1 + relevant 0.5, no support: (2 + 2 + 1.5) x 5/6
    assert res.scores["sources"] == 2.0
    assert res.scores["actionability"] == pytest.approx(5.5 * 5 / 6)


def test_missing_link_judgement_never_becomes_a_score(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(JUNUN_ERRORS))
    fast_llm.handler = lambda req: Reply(
        content=dumps([dict(JUNUN_JUDGE[0], supporting_links="No")])
    )
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)], settings=KNOWLEDGE)
    assert res.status == "failed" and not any(res.scores.values())
    assert "does not judge the links" in res.error


def test_per_error_link_answer_without_relevance_is_reasked(fast_llm: ScriptedLLM) -> None:
    # "existing_links" given, "related_links" left out: relevance is asked, not assumed "No"
    partial = [dict(JUNUN_JUDGE[0], supporting_links="No", existing_links="Yes")]
    full = [dict(partial[0], related_links="Yes")]
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps(partial), dumps(full))
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)], settings=KNOWLEDGE)
    assert fast_llm.calls == 3 and res.scores["sources"] == 2.0
    assert "relevant" in fast_llm.requests[2]["messages"][-1]["content"]


def test_missing_support_answer_is_reasked_when_links_count(fast_llm: ScriptedLLM) -> None:
    partial = {
        "errors": [{"error": 1, "mentioned": "Yes", "corrected": "Yes"}],
        "links": {"exists": "Yes", "relevant": "Yes"},
    }
    full = {**partial, "errors": [{**partial["errors"][0], "supported_by_link": "Yes"}]}
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps(partial), dumps(full))
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)], settings=KNOWLEDGE)
    assert fast_llm.calls == 3 and res.scores["actionability"] == pytest.approx(5.0)
    assert "supported_by_link" in fast_llm.requests[2]["messages"][-1]["content"]


def test_link_answers_are_not_needed_without_a_link(fast_llm: ScriptedLLM) -> None:
    no_link = dict(JUNUN, explanation="Junun is a 2015 documentary film, not a book.")
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps([dict(JUNUN_JUDGE[0], supporting_links="No")]))
    [res] = run_items("fingract", [EvalItem("junun", no_link)])
    assert res.status == "ok" and fast_llm.calls == 2
    assert res.scores["sources"] == 0.0 and res.scores["actionability"] == pytest.approx(4 * 5 / 6)


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
        text = req["messages"][-1]["content"]
        return Reply(content=dumps(EARTH_JUDGE if "Errors (numbered)" in text else EARTH_ERRORS))

    fast_llm.handler = handler
    progress = run_evaluator(store, "act", "fingract")
    assert len(progress.run_ids) == 3 and fast_llm.calls == 6  # 2 stages x 3 runs
    again = run_evaluator(store, "act", "fingract")
    assert fast_llm.calls == 6 and again.cached == 3
    scores = [r["scores"]["actionability"] for r in store.item_results("act", "earth")]
    assert scores == [pytest.approx(2 * 5 / 6)] * 6  # no link points without UCR


def test_without_retriever_a_missing_support_answer_is_reasked(fast_llm: ScriptedLLM) -> None:
    partial = [{"error": "book", "response": "Yes", "correction": "Yes"}]
    fast_llm.queue(dumps(JUNUN_ERRORS), dumps(partial), dumps(JUNUN_JUDGE))
    [res] = run_items("fingract", [EvalItem("junun", JUNUN)])
    assert fast_llm.calls == 3 and res.scores["actionability"] == pytest.approx(5.0)
    assert "supported_by_link" in fast_llm.requests[2]["messages"][-1]["content"]


# two errors; A: both named and corrected (4 points -> 3.33), B: one of them (2 -> 1.67)
_BOTH = {
    "errors": [
        {"error": 1, "mentioned": "Yes", "corrected": "Yes", "supported_by_link": "No"},
        {"error": 2, "mentioned": "Yes", "corrected": "Yes", "supported_by_link": "No"},
    ]
}
_ONE = {
    "errors": [
        {"error": 1, "mentioned": "No", "corrected": "No", "supported_by_link": "No"},
        {"error": 2, "mentioned": "Yes", "corrected": "Yes", "supported_by_link": "No"},
    ]
}
_RUNS = {"0": (_BOTH, _BOTH, _ONE), "1": (_BOTH, _ONE, _ONE), "2": (_BOTH, _BOTH, _BOTH)}


def _three_runs_project(store: Store, fast_llm: ScriptedLLM, name: str, settings: dict) -> None:
    """Three items, three runs each with the replies in ``_RUNS`` (by item, in order)."""
    store.create_project(name, "actionability")
    items = [
        {"item_id": f"i{k}", "fields": {**EARTH, "explanation": f"Not green. (item {k})"}}
        for k in _RUNS
    ]
    store.upsert_items(name, items)
    for k, human in zip(_RUNS, (0, 1, 2), strict=True):
        for who in ("ann", "bob"):
            for field in ("errors_detected", "errors_corrected", "sources"):
                store.save_label(name, f"i{k}", who, field, human, status="submitted")
    seen: dict[str, int] = {}

    def handler(req: dict):
        text = req["messages"][-1]["content"]
        if "Errors (numbered)" not in text:
            return Reply(content=dumps(EARTH_ERRORS))
        k = text.split("(item ", 1)[1][0]
        seen[k] = seen.get(k, 0) + 1
        return Reply(content=dumps(_RUNS[k][seen[k] - 1]))

    fast_llm.handler = handler
    run_evaluator(store, name, "fingract", settings=settings)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        # the paper: the rounded average of three runs
        ({}, [3.0, 2.0, 3.0]),
        ({"run_average": "rounded"}, [3.0, 2.0, 3.0]),
        # the plain mean: (10/3 + 10/3 + 5/3) / 3, (10/3 + 5/3 + 5/3) / 3, 10/3
        ({"run_average": "mean"}, [25 / 9, 20 / 9, 10 / 3]),
    ],
)
def test_three_runs_rounded_as_in_the_paper_or_the_plain_mean(
    fast_llm: ScriptedLLM, store: Store, setting: dict, expected: list[float]
) -> None:
    from reports.data import agreement_document
    from reports.run_notes import run_notes

    _three_runs_project(store, fast_llm, "act", setting)
    doc = agreement_document(store, "act", n_resamples=0)
    [entry] = [e["actionability"] for e in doc.evaluators.values()]
    assert entry.n_runs == 3
    assert list(entry.pairs.sort_values("item_id")["score"]) == pytest.approx(expected)
    named = setting.get("run_average", "rounded")
    assert ("run_average" in entry.notes) == (named == "rounded")
    notes = " ".join(str(n) for n in run_notes(store, "act"))
    assert f"run_average='{named}'" in notes
