"""Every built-in judge's parser on replies recorded from a real model.

tests/data/llm_replies/replies.json holds what SmolLM2-135M-Instruct on llama.cpp's
server answered to the workbench's judges, constrained (``json_object`` with the schema)
and unconstrained (plain text), recorded by bench/record_llm_replies.py (the header names
the model file, its sha256, the server's version and command line). Each reply read by
its evaluator's parser must give a score in range or a failure with a reason, never a
made-up score: a score read from a reply is written in the reply as a complete token.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pydantic
import pytest

from evaluators.builtin.geval import parse_sample
from evaluators.builtin.prometheus import GradeParseError, parse_grade
from evaluators.judges.output import JudgeReply, parse_answer, reply_problem
from evaluators.judges.spec import OutputSpec
from evaluators.llm.client import validate_reply

DOC = json.loads((Path(__file__).parent / "data/llm_replies/replies.json").read_text())
REPLIES: list[dict[str, Any]] = DOC["replies"]
#: The bench's judges (bench/local_llm.py JUDGES): their output specs.
JUDGE_OUTPUTS = {
    "judge:bench-decimal": OutputSpec(type="decimal", min=1, max=5),
    "judge:bench-facts": OutputSpec(type="fact_labels", facts_field="gold_facts"),
}


def _schema(path: str) -> type[pydantic.BaseModel]:
    module, name = path.rsplit(".", 1)
    return getattr(__import__(module, fromlist=[name]), name)


def _number_written(text: str, key: str, value: float) -> bool:
    """``"key": value`` is in the reply, the number complete (a delimiter after it)."""
    for match in re.finditer(rf'"{key}"\s*:\s*"?(-?\d+(?:\.\d+)?)"?\s*[,}}\n]', text):
        if abs(float(match.group(1)) - value) < 1e-9:
            return True
    return False


def read(entry: dict[str, Any]) -> tuple[Any, str]:
    """(what the evaluator reads from the reply, "") or (None, why it cannot)."""
    text, evaluator = entry["text"], entry["evaluator"]
    if evaluator == "geval":
        value = parse_sample(text)
        return (value, "") if value is not None else (None, "not a score from 1 to 5")
    if evaluator == "prometheus":
        try:
            return parse_grade(text)[1], ""
        except GradeParseError as exc:
            return None, str(exc)
    if evaluator in JUDGE_OUTPUTS:
        out = JUDGE_OUTPUTS[evaluator]
        n_facts = int(entry.get("facts") or 0)
        reply, error = validate_reply(text, JudgeReply, reply_problem(out, n_facts))
        return (parse_answer(out, reply.answer, n_facts), "") if reply else (None, error)
    return validate_reply(text, _schema(entry["schema"]))


def test_the_fixture_names_the_model_and_the_server() -> None:
    assert DOC["model"] == "SmolLM2-135M-Instruct"
    assert re.fullmatch(r"[0-9a-f]{64}", DOC["model_sha256"])
    assert DOC["server"].startswith("llama-cpp-python 0.3.")
    assert "--n_ctx" in DOC["server_command"]
    assert REPLIES
    known = {"intent_resolution", "bifact", "fingract", "geval", "prometheus", *JUDGE_OUTPUTS}
    for entry in REPLIES:
        assert entry["evaluator"] in known and entry["mode"] in ("json_object", "text")
        assert entry["schema"] or entry["evaluator"] in ("geval", "prometheus")


@pytest.mark.parametrize("entry", REPLIES, ids=lambda e: f"{e['evaluator']}-{e['mode']}")
def test_every_recorded_reply_reads_as_a_value_in_range_or_a_reason(
    entry: dict[str, Any],
) -> None:
    value, reason = read(entry)
    if value is None:
        assert reason and len(reason) < 400, reason
        return
    assert reason == ""
    text, evaluator = entry["text"], entry["evaluator"]
    if evaluator in ("geval", "prometheus"):
        assert 1 <= value <= 5 and str(int(value)) in text
    elif evaluator == "judge:bench-decimal":
        assert 1 <= value <= 5 and _number_written(text, "answer", value), text
    elif evaluator == "judge:bench-facts":
        assert len(value) == entry["facts"] and set(value) <= {"C", "M"}
    elif entry["schema"].endswith("IntentRecord"):
        score = value.resolution_score
        assert 0 <= score <= 1
        assert _number_written(text, "resolution_score", score) or _number_written(
            text, "score", score
        ), text
    else:
        assert isinstance(value, pydantic.BaseModel)


def test_the_constrained_server_holds_json_replies_to_json() -> None:
    """json_object with the schema: every complete reply is one strict JSON object."""
    constrained = [e for e in REPLIES if e["mode"] == "json_object"]
    assert constrained
    for entry in constrained:
        if entry["finish_reason"] == "stop":
            assert isinstance(json.loads(entry["text"]), dict), entry["text"]


def test_a_judge_reply_cut_inside_its_answer_fails_with_the_reason() -> None:
    out = OutputSpec(type="integer", min=1, max=10)
    reply, error = validate_reply('{"explanation": "ok", "answer": 1', JudgeReply)
    assert reply is not None and reply.answer is None  # the cut "1" (of "10"?) dropped
    with pytest.raises(ValueError, match="no 'answer'"):
        parse_answer(out, reply.answer)
