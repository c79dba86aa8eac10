"""Bi-Fact against the scripted server: the paper's alarm example and the store round trip."""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from evaluators.base import EvalItem
from jobs.runner import run_evaluator
from tests.support.cli import run_cli_script
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

GOLD = "Set an alarm for today at 7 AM, with a 5-minute snooze duration."
PRED = "Wake me up at 7 in the morning tomorrow."
GOLD_FACTS = [
    "Create an alarm",
    "Alarm time is 7 AM",
    "Alarm date is today",
    "Snooze duration is 5 minutes",
]
PRED_FACTS = ["Wake me up", "Time is 7 in the morning", "Date is tomorrow"]


def _labels(facts: list[str], labels: str) -> list[dict]:
    return [
        {"fact": f, "reasoning": f"why {f}", "label": lab}
        for f, lab in zip(facts, labels, strict=True)
    ]


ASSESSMENT = {
    "predicted_facts": PRED_FACTS,
    "gold_fact_coverage": _labels(GOLD_FACTS, "CCMM"),
    "predicted_fact_accuracy": _labels(PRED_FACTS, "CCM"),
}


def test_alarm_example_recall_half_precision_two_thirds(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps({"facts": GOLD_FACTS}), "```json\n" + dumps(ASSESSMENT) + "\n```")
    [res] = run_items("bifact", [EvalItem("alarm", {"gold": GOLD, "predicted": PRED})])
    assert res.status == "ok", res.error
    assert res.scores["recall"] == pytest.approx(2 / 4)
    assert res.scores["precision"] == pytest.approx(2 / 3)
    assert res.scores["f1"] == pytest.approx(2 * (0.5 * 2 / 3) / (0.5 + 2 / 3))
    # the gold facts are frozen on the item; the prediction's split is this run's own
    assert res.item_updates == {"gold_facts": GOLD_FACTS}
    assert res.details["predicted_facts_frozen"] is False
    assert res.signature.settings["freeze_predicted_facts"] is False
    assert [r["label"] for r in res.details["gold_facts"]] == ["C", "C", "M", "M"]
    assert res.details["predicted_facts"][2] == {
        "fact": "Date is tomorrow",
        "label": "M",
        "reasoning": "why Date is tomorrow",
    }
    assert fast_llm.calls == 2
    assert GOLD in fast_llm.requests[0]["messages"][-1]["content"]
    assessed = fast_llm.requests[1]["messages"][-1]["content"]
    assert json.dumps(GOLD_FACTS) in assessed and PRED in assessed


def _paper_entry(fact: str, reasoning: str, label: str) -> dict[str, str]:
    return {"fact": fact, "reasoning": reasoning, "label": label}


# The reply of the paper's one-shot alarm example (Figure 5), in its structure: the keys
# "expert_fact_coverage" and "predicted_fact_accuracy", no separate list of predicted
# facts (they are only the "fact" entries of the second list), quotes inside the
# reasoning escaped with a backslash. Facts and labels are the paper's; the reasoning
# sentences are ours.
PAPER_REPLY = json.dumps(
    {
        "expert_fact_coverage": [
            _paper_entry("Create an alarm", '"Wake me up" asks for an alarm here.', "C"),
            _paper_entry("Alarm time is 7 AM", '"7 in the morning" is the same as "7 AM".', "C"),
            _paper_entry("Alarm date is today", 'The prediction says "tomorrow".', "M"),
            _paper_entry("Snooze duration is 5 minutes", "No snooze is given.", "M"),
        ],
        "predicted_fact_accuracy": [
            _paper_entry("Wake me up", 'Matches "Set an alarm" in the reference.', "C"),
            _paper_entry("Time is 7 in the morning", 'Matches "7 AM" in the reference.', "C"),
            _paper_entry("Date is tomorrow", 'The reference says "today".', "M"),
        ],
    },
    indent=1,
)


def test_paper_reply_with_expert_fact_coverage_key_is_accepted(fast_llm: ScriptedLLM) -> None:
    assert '\\"tomorrow\\"' in PAPER_REPLY  # escaped inner quotes, as the paper writes them
    fast_llm.queue(dumps({"facts": GOLD_FACTS}), PAPER_REPLY)
    [res] = run_items("bifact", [EvalItem("alarm", {"gold": GOLD, "predicted": PRED})])
    assert res.status == "ok", res.error
    assert fast_llm.calls == 2  # accepted as it is: no re-ask
    assert res.scores["recall"] == pytest.approx(2 / 4)
    assert res.scores["precision"] == pytest.approx(2 / 3)
    assert [r["label"] for r in res.details["gold_facts"]] == ["C", "C", "M", "M"]
    assert [r["fact"] for r in res.details["predicted_facts"]] == PRED_FACTS
    # without a "predicted_facts" key the split is read from the labelled entries
    assert [r["fact"] for r in res.details["predicted_facts"]] == PRED_FACTS
    assert res.details["predicted_facts"][2]["reasoning"] == 'The reference says "today".'


def test_existing_facts_are_reused_and_given_predicted_facts_labelled(
    fast_llm: ScriptedLLM,
) -> None:
    given = {k: v for k, v in ASSESSMENT.items() if k != "predicted_facts"}
    fast_llm.queue(dumps(given))
    item = EvalItem(
        "alarm",
        {"gold": GOLD, "predicted": PRED, "gold_facts": GOLD_FACTS, "predicted_facts": PRED_FACTS},
    )
    [res] = run_items("bifact", [item], settings={"freeze_predicted_facts": True})
    assert fast_llm.calls == 1  # no decomposition: both fact lists were on the item
    assert res.item_updates == {} and res.details["predicted_facts_source"] == "item"
    assert (res.scores["recall"], res.scores["precision"]) == (0.5, pytest.approx(2 / 3))
    assert json.dumps(PRED_FACTS) in fast_llm.requests[0]["messages"][-1]["content"]


def test_wrong_label_count_is_reasked(fast_llm: ScriptedLLM) -> None:
    short = dict(ASSESSMENT, gold_fact_coverage=_labels(GOLD_FACTS[:3], "CCM"))
    fast_llm.queue(dumps(short), dumps(ASSESSMENT))
    item = EvalItem("alarm", {"gold": GOLD, "predicted": PRED, "gold_facts": GOLD_FACTS})
    [res] = run_items("bifact", [item])
    assert res.scores["recall"] == 0.5 and fast_llm.calls == 2
    assert "3 entries but there are 4" in fast_llm.requests[1]["messages"][-1]["content"]


def _project(store: Store) -> None:
    store.create_project("im", "intent_match")
    store.upsert_items("im", [{"item_id": "alarm", "fields": {"gold": GOLD, "predicted": PRED}}])


def test_a_second_run_with_another_model_splits_the_prediction_again(
    fast_llm: ScriptedLLM, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(store)
    fast_llm.queue(dumps({"facts": GOLD_FACTS}), dumps(ASSESSMENT))
    progress = run_evaluator(store, "im", "bifact")
    assert (progress.done, progress.failed, fast_llm.calls) == (1, 0, 2)
    fields = store.item("im", "alarm").fields
    assert fields["gold_facts"] == GOLD_FACTS and "predicted_facts" not in fields
    # another judge model: the frozen gold facts are reused, the prediction is split anew
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "other-judge")
    other = ["Wake the user", "At 7 in the morning", "On the next day"]
    fast_llm.queue(
        dumps(
            {
                "predicted_facts": other,
                "gold_fact_coverage": _labels(GOLD_FACTS, "CCMM"),
                "predicted_fact_accuracy": _labels(other, "CMM"),
            }
        )
    )
    second = run_evaluator(store, "im", "bifact")
    assert (second.done, second.failed, fast_llm.calls) == (1, 0, 3)
    assert fast_llm.requests[2]["model"] == "other-judge"
    # the same split-and-label request as the first run's (not the "given facts" one)
    assert fast_llm.requests[2]["messages"] == fast_llm.requests[1]["messages"]
    latest = store.item_results("im", "alarm")[-1]
    assert latest["details"]["predicted_facts_source"] == "model"
    assert [r["fact"] for r in latest["details"]["predicted_facts"]] == other
    assert latest["scores"]["precision"] == pytest.approx(1 / 3)
    assert "predicted_facts" not in store.item("im", "alarm").fields


def test_freezing_predicted_facts_is_an_explicit_setting(
    fast_llm: ScriptedLLM, store: Store
) -> None:
    _project(store)
    freeze = {"freeze_predicted_facts": True}
    fast_llm.queue(dumps({"facts": GOLD_FACTS}), dumps(ASSESSMENT))
    progress = run_evaluator(store, "im", "bifact", settings=freeze)
    assert (progress.done, progress.failed, fast_llm.calls) == (1, 0, 2)
    assert store.item("im", "alarm").fields["predicted_facts"] == PRED_FACTS
    # the next frozen run labels those facts as given; labels in another order are
    # matched by their fact text, not by position
    fast_llm.queue(
        dumps(
            {
                "gold_fact_coverage": _labels(GOLD_FACTS, "CCMM")[::-1],
                "predicted_fact_accuracy": _labels(PRED_FACTS, "CCM")[::-1],
            }
        )
    )
    second = run_evaluator(store, "im", "bifact", settings=freeze)
    assert (second.done, second.failed, fast_llm.calls) == (1, 0, 3)
    assert json.dumps(PRED_FACTS) in fast_llm.requests[2]["messages"][-1]["content"]
    latest = store.item_results("im", "alarm")[-1]
    assert latest["details"]["predicted_facts_source"] == "item"
    assert [r["label"] for r in latest["details"]["gold_facts"]] == ["C", "C", "M", "M"]
    assert latest["scores"]["recall"] == 0.5
    assert latest["signature"]["settings"]["freeze_predicted_facts"] is True


def test_labels_for_other_facts_fail_the_item(fast_llm: ScriptedLLM) -> None:
    reworded = ["Wake the user", "At 7 am", "On the next day"]
    fast_llm.queue(
        dumps(
            {
                "gold_fact_coverage": _labels(GOLD_FACTS, "CCMM"),
                "predicted_fact_accuracy": _labels(reworded, "CCM"),
            }
        )
    )
    item = EvalItem(
        "alarm",
        {"gold": GOLD, "predicted": PRED, "gold_facts": GOLD_FACTS, "predicted_facts": PRED_FACTS},
    )
    [res] = run_items("bifact", [item], settings={"freeze_predicted_facts": True})
    assert res.status == "failed" and not res.scores
    assert "'Wake the user' is not one of" in res.error


def test_failure_after_retry_limit_is_stored_without_score(
    fast_llm: ScriptedLLM, store: Store
) -> None:
    _project(store)
    fast_llm.queue(dumps({"facts": GOLD_FACTS}))
    fast_llm.handler = lambda req: Reply(content='{"predicted_facts": ["Wake me up"], oops')
    progress = run_evaluator(store, "im", "bifact")
    assert progress.failed == 1
    [stored] = store.item_results("im", "alarm")
    assert stored["result_status"] == "failed" and not stored["scores"]
    assert stored["raw_reply"].endswith("oops") and "assessment" in stored["error"]
    # the gold facts were still fixed on the item
    assert store.item("im", "alarm").fields["gold_facts"] == GOLD_FACTS


def test_cli_without_endpoint_exits_with_one_line(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'wb.db'}"
    s = Store(db)
    _project(s)
    s.close()
    env = {"PATH": "/usr/bin:/bin", "WORKBENCH_SECRETS": str(tmp_path / "none.toml")}
    proc = run_cli_script("--db", db, "evaluate", "im", "--evaluator", "bifact", env=env)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if line]
    assert len(lines) == 1 and "WORKBENCH_LLM_MODEL" in lines[0]
