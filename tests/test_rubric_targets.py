"""What the generic judges score for each kind comes from the kind's declarations."""

from __future__ import annotations

import pytest

from evaluators.llm.targets import target_of, template_for
from kinds import get_kind, kind_names


def test_builtin_targets_are_read_from_the_declarations() -> None:
    act = target_of(get_kind("actionability"))  # its one derived score
    assert act is not None
    assert (act.field, act.minimum, act.maximum) == ("actionability", 0.0, 5.0)
    assert act.inputs == ("claim", "evidence", "label", "explanation")  # never generator
    res = target_of(get_kind("intent_resolution"))  # its one ordinal human field
    assert res is not None
    assert (res.field, res.minimum, res.maximum) == ("resolution", 0.0, 1.0)
    assert res.inputs == ("query", "response")
    assert res.levels[1.0] == "fully and accurately resolves the intent"


@pytest.mark.parametrize("judge", ["geval", "prometheus"])
def test_only_kinds_with_a_target_and_a_template_or_hint_get_a_prompt(judge: str) -> None:
    prompts = {k: template_for(judge, get_kind(k)) for k in kind_names()}
    assert {k: p for k, p in prompts.items() if p} == {
        # the newest version of the kind's own template
        "actionability": f"{judge}_actionability.v{2 if judge == 'prometheus' else 1}",
        "intent_resolution": f"{judge}_intent_resolution.v1",
    }
    # likert has a target (1-5) but neither its own template nor a judge hint
    assert target_of(get_kind("likert")) is not None
    assert target_of(get_kind("intent_match")) is None  # three derived scores
    assert target_of(get_kind("dialogue_faithfulness")) is None  # binary only
