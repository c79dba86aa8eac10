"""Prometheus: [RESULT] parsed from the end only; bad replies re-asked, then failed."""

from __future__ import annotations

import pytest

from evaluators.base import EvalItem
from evaluators.builtin.prometheus import GradeParseError, parse_grade
from evaluators.llm.prompts import load_prompt
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

ACT = EvalItem(
    "a",
    {
        "claim": "Earth is flat and green.",
        "evidence": "Earth is blue and round.",
        "label": "FALSE",
        "explanation": "Earth is not green.",
    },
    kind="actionability",
)


def test_last_marker_wins() -> None:
    text = "Feedback: Level 5 would need a [RESULT] 5 style source; here none. [RESULT] 2"
    assert parse_grade(text) == ("Level 5 would need a [RESULT] 5 style source; here none.", 2)
    assert parse_grade("Feedback: ok [RESULT] (4).")[1] == 4


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Feedback: good. Score 4",
        "Feedback: [RESULT] 4 but then more",
        "Feedback: x [RESULT] 7",
        "[RESULT] 3 [RESULT] high",
    ],
)
def test_bad_formats_raise(text: str) -> None:
    with pytest.raises(GradeParseError):
        parse_grade(text)


def test_grade_mapped_to_kind_scale(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue("Feedback: Names the colour error only, no source. [RESULT] 2")
    [res] = run_items("prometheus", [ACT])
    assert res.scores == {"actionability": pytest.approx(1.25)}  # (2 - 1) / 4 x 5
    assert res.reasoning.startswith("Names the colour") and res.details["grade_1_5"] == 2
    assert "Score 5:" in fast_llm.requests[0]["messages"][-1]["content"]
    values = {k: str(v) for k, v in ACT.fields.items()}  # the kind's own prompt, unchanged
    assert fast_llm.requests[0]["messages"] == load_prompt("prometheus_actionability.v2").render(
        values
    )


@pytest.mark.parametrize("name", ["prometheus", "prometheus_ucr"])
def test_level_one_covers_an_error_pointed_out_but_not_corrected(
    fast_llm: ScriptedLLM, name: str
) -> None:
    # The paper's level 1: the error is detected, nothing is corrected, no source. An
    # explanation that plainly points the error out must still fit level 1.
    fast_llm.queue("Feedback: Says green is wrong, fixes nothing, no link. [RESULT] 1")
    [res] = run_items(name, [ACT])
    assert res.scores == {"actionability": 0.0} and res.details["grade_1_5"] == 1
    prompt = fast_llm.requests[0]["messages"][-1]["content"]
    level_1 = next(line for line in prompt.splitlines() if line.startswith("Score 1:"))
    assert "corrects nothing and cites no source" in level_1
    assert "points out where the claim is wrong (plainly" in level_1
    assert "at most vaguely" not in level_1


def test_reask_then_failure_keeps_raw(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue("Feedback: fine. Score: 4", "Feedback: fine [RESULT] 4")
    [ok] = run_items("prometheus", [ACT])
    assert ok.scores["actionability"] == pytest.approx(3.75) and ok.details["attempts"] == 2
    assert "no [RESULT] marker" in fast_llm.requests[1]["messages"][-1]["content"]
    fast_llm.reset()
    fast_llm.handler = lambda req: Reply(content="I rate it highly.")
    [bad] = run_items(
        "prometheus", [EvalItem("b", dict(ACT.fields, explanation="other"), kind="actionability")]
    )
    assert bad.status == "failed" and not bad.scores and bad.raw_reply == "I rate it highly."
    assert fast_llm.calls == 3


def test_paper_decoding_by_default_and_temperature_zero_as_a_setting(
    fast_llm: ScriptedLLM,
) -> None:
    fast_llm.queue("Feedback: ok [RESULT] 3")
    [res] = run_items("prometheus", [ACT])
    body = fast_llm.requests[0]
    assert body["temperature"] == 1.0 and body["top_p"] == 0.9  # FinGrAct's baseline
    assert res.details["decoding"] == {"temperature": 1.0, "top_p": 0.9}
    assert res.signature.settings["temperature"] == 1.0
    fast_llm.reset()
    fast_llm.queue("Feedback: ok [RESULT] 3")
    [res] = run_items("prometheus", [ACT], settings={"temperature": 0})
    assert fast_llm.requests[0]["temperature"] == 0.0


def test_scale_mapping_is_a_stated_setting(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue("Feedback: weak [RESULT] 1")
    [res] = run_items("prometheus", [ACT])
    assert res.scores["actionability"] == 0.0 and res.details["scale_mapping"] == "stretch"
    fast_llm.reset()
    fast_llm.queue("Feedback: weak [RESULT] 1")
    [res] = run_items("prometheus", [ACT], settings={"scale_mapping": "keep"})
    assert res.scores["actionability"] == 1.0


@pytest.mark.parametrize("mapping", ["stretch", "keep"])
def test_bias_counts_say_which_scale_mapping_they_used(
    fast_llm: ScriptedLLM, store, mapping: str
) -> None:
    """Issue #13 point 6: the bias counts in the document and the report name the mapping."""
    from jobs.runner import run_evaluator
    from reports.data import agreement_document
    from reports.render import build_report, render_markdown

    store.create_project("act", "actionability")
    store.upsert_items("act", [{"item_id": f"c{i}", "fields": dict(ACT.fields)} for i in range(3)])
    for i in range(3):
        for who in ("ann", "bob"):
            for name, value in (("errors_detected", 2), ("errors_corrected", 2), ("sources", 0)):
                store.save_label("act", f"c{i}", who, name, value, status="submitted")
    fast_llm.handler = lambda request: Reply(content="Feedback: fine. [RESULT] 1")
    run_evaluator(store, "act", "prometheus", runs=1, settings={"scale_mapping": mapping})
    doc = agreement_document(store, "act", n_resamples=0).to_dict()
    [entry] = [e["actionability"] for e in doc["evaluators"].values()]
    # human actionability (2 + 2 + 0) x 5/7 = 2.86; grade 1 is 0 (stretch) or 1 (keep)
    assert entry["bias"]["scale_mapping"] == mapping and entry["bias"]["n"] == 3
    md = render_markdown(build_report(store, "act", n_resamples=0))
    assert f"actionability / bias: 1-5 grades {mapping}" in md
