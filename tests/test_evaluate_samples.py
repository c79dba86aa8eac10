"""``evaluate --samples k``: k replies per item stored, reused from the cache on a second
run, and the card's self-consistency figures (flip rate, self-alpha) computed by hand."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from annotation_store import Store
from commands import main
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"


def _text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")


def _wavering_judge() -> Any:
    """'alarm' gets 0, 1, 0 in the order asked; 'lights' always 0; every other item 1."""
    lock, seen = threading.Lock(), [0]

    def handler(request: dict[str, Any]) -> Reply:
        text = _text(request)
        answer = 1
        if "Set an alarm" in text:
            with lock:
                seen[0] += 1
                answer = 0 if seen[0] % 2 else 1
        elif "living room lights" in text:
            answer = 0
        return Reply(content=json.dumps({"explanation": "read both", "answer": answer}))

    return handler


def test_samples_are_stored_reused_and_give_flip_rate_and_self_alpha(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", demo]
    fast_llm.handler = _wavering_judge()
    assert main([*db, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    run = [*db, "evaluate", PROJECT, "--evaluator", "judge:same-task", "--samples", "3"]
    assert main(run) == 0
    assert fast_llm.calls == 18  # 6 items x 3 samples, temperature 0 notwithstanding
    store = Store(demo)
    [first] = [r for r in store.runs(PROJECT) if r.evaluator == "judge:same-task"]
    assert first.signature["settings"]["samples"] == 3  # the version's own is 1
    got = {r.item_id: sorted(r.details["samples"]) for r in store.run_results(first.id)}
    assert got["alarm"] == [0, 0, 1] and got["lights"] == [0, 0, 0]
    assert got["dinner"] == [1, 1, 1]
    store.close()
    capsys.readouterr()

    assert main([*db, "alignment", PROJECT, "--field", "match", "--json"]) == 0
    versions = json.loads(capsys.readouterr().out)["versions"]
    [row] = [r for r in versions if r["label"].startswith("judge:same-task")]
    sc = row["probes"]["self_consistency"]
    # one item of six has samples that differ
    assert sc["flip_rate"]["value"] == pytest.approx(1 / 6) and sc["flip_rate"]["n"] == 6
    # nominal alpha by hand: coincidences o00 = 1 (alarm) + 3 (lights), o01 = o10 = 1,
    # o11 = 12; n0 = 5, n1 = 13, n = 18: 1 - 17 * 2 / (2 * 5 * 13)
    assert sc["self_alpha"]["value"] == pytest.approx(1 - 34 / 130)
    assert sc["self_alpha"]["n"] == 6
    lo, hi = sc["self_alpha"]["ci"]
    assert lo <= sc["self_alpha"]["value"] <= hi
    # the people (alarm 0 0 1, late-message 1 1 0, lights 0 0 0, the rest 1 1 1):
    # o00 = 1 + 3, o01 = o10 = 2, o11 = 10; n0 = 6, n1 = 12: 1 - 17 * 4 / (2 * 6 * 12)
    assert sc["people_alpha"]["value"] == pytest.approx(1 - 68 / 144)
    assert sc["people_alpha"]["n"] == 6
    assert main([*db, "alignment", PROJECT, "--field", "match", "--card", row["label"]]) == 0
    card = capsys.readouterr().out
    assert "flip rate (items whose samples differ)" in card and "0.167" in card
    assert "judge's self-alpha among its samples (nominal)" in card and "0.738" in card
    assert "people's alpha (nominal)" in card and "0.528" in card

    # the same samples again: every reply from the cache
    assert main(run) == 0
    assert fast_llm.calls == 18
    assert "0 failed, 6 cached" in capsys.readouterr().out
    # ... and the figures are the same: the cached samples are not new draws
    assert main([*db, "alignment", PROJECT, "--field", "match", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["versions"]
    [row2] = [r for r in again if r["label"] == row["label"]]
    assert row2["probes"]["self_consistency"] == sc


def test_samples_refused_in_one_line_where_they_do_not_apply(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", demo]
    assert main([*db, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    base = [*db, "evaluate", PROJECT, "--evaluator"]
    capsys.readouterr()
    assert main([*base, "bleu", "--samples", "3"]) == 2
    assert "'bleu' draws no samples" in capsys.readouterr().err
    assert main([*base, "judge:same-task", "--samples", "21"]) == 2
    assert "samples must be a whole number from 1 to 20, got 21" in capsys.readouterr().err
    args = ["--samples", "3", "--settings", '{"samples": 2}']
    assert main([*base, "judge:same-task", *args]) == 2
    assert "give one" in capsys.readouterr().err
    assert fast_llm.calls == 0
