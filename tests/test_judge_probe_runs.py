"""Probe runs of a judge version (texts swapped, options reversed) against the scripted
server: stored against the version, paired with its plain run, share changed with a
Wilson interval and n; refused where they do not apply."""

from __future__ import annotations

import json
import math
import re
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
N_ITEMS = 6  # alarm, dinner, late-message, flights, music, lights


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")


def _yes_for_two_gold_texts(request: dict[str, Any]) -> Reply:
    """1 when the text shown first ('Gold intent:') is alarm's or dinner's gold text, so
    exchanging the texts changes exactly those two decisions."""
    first = re.search(r"Gold intent: (.*)", _user_text(request)).group(1)
    answer = int(first.startswith(("Set an alarm", "Book a table")))
    return Reply(content=json.dumps({"explanation": "read both", "answer": answer}))


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_swap_probe_run_is_stored_against_the_version_and_paired(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    fast_llm.handler = _yes_for_two_gold_texts
    assert main(["--db", demo, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    base = ["--db", demo, "evaluate", PROJECT, "--evaluator", "judge:same-task"]
    assert main(base) == 0
    assert main([*base, "--probe", "swap"]) == 0
    swapped = [_user_text(r) for r in fast_llm.requests[N_ITEMS:]]
    assert any(t.startswith("Gold intent: Wake me up at 7") for t in swapped)

    store = Store(demo)
    mine = [r for r in store.runs(PROJECT) if r.evaluator == "judge:same-task"]
    plain, probe = sorted(mine, key=lambda r: r.id)
    assert probe.signature["version"] == plain.signature["version"] == "1"
    assert probe.signature["prompt_hash"] == plain.signature["prompt_hash"]
    assert probe.signature["settings"]["probe"] == "swap"
    assert "probe" not in plain.signature["settings"]
    assert [j.version for j in store.judge_versions("same-task")] == [1]  # no new version
    # the probe run is not another evaluator in the agreement document
    from reports.data import agreement_document

    doc = agreement_document(store, PROJECT, n_resamples=0).to_dict()
    assert len([k for k in doc["evaluators"] if k.startswith("judge:same-task")]) == 1
    store.close()

    capsys.readouterr()
    args = ["alignment", PROJECT, "--field", "match", "--json", "--resamples", "0"]
    assert main(["--db", demo, *args]) == 0
    rows = json.loads(capsys.readouterr().out)["versions"]
    [row] = [r for r in rows if r["evaluator"] == "judge:same-task"]  # the probe run is no row
    swap = row["probes"]["position_swap"]
    assert swap["partner"] == "judge:same-task v1 (probe: swap)"
    assert swap["n"] == N_ITEMS and swap["n_changed"] == 2
    assert swap["changed"] == pytest.approx(2 / 6)
    assert swap["ci"] == pytest.approx(list(wilson(2, 6)))
    assert swap["ci"] == pytest.approx([0.0968, 0.7000], abs=1e-4)
    assert row["probes"]["option_order"] == {"n": 0, "reason": "no reverse_options probe run"}

    # the swap probe is the same click twice: the second run comes from the cache
    calls = fast_llm.calls
    assert main([*base, "--probe", "swap"]) == 0
    assert fast_llm.calls == calls


def test_reverse_options_probe_of_a_label_judge(demo: str, fast_llm: ScriptedLLM) -> None:
    from alignment.table import alignment_table
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    def first_listed_for_two(request: dict[str, Any]) -> Reply:
        """The option listed first for alarm and dinner, 'same' otherwise."""
        text = _user_text(request)
        options = json.loads(re.search(r"exactly one of (\[.*\])", text).group(1))
        hit = "Set an alarm" in text or "Book a table" in text
        return Reply(content=json.dumps({"answer": options[0] if hit else "same"}))

    fast_llm.handler = first_listed_for_two
    store = Store(demo)
    toml = TOML.read_text().replace(
        'type = "binary"', 'type = "label"\nlabels = ["same", "different"]'
    )
    save_judge(store, "labels", toml)
    run_evaluator(store, PROJECT, "judge:labels")
    progress = run_evaluator(store, PROJECT, "judge:labels", settings={"probe": "reverse_options"})
    assert '["different", "same"]' in _user_text(fast_llm.requests[-1])
    results = {r.item_id: r for r in store.run_results(progress.run_ids[0])}
    # answers are stored by the version's own label order: 'different' is still 1
    assert results["alarm"].details["answer"] == "different"
    assert results["alarm"].scores == {"match": 1.0}
    assert results["music"].scores == {"match": 0.0}
    rows = alignment_table(store, PROJECT, "match", n_resamples=0)["versions"]
    [row] = [r for r in rows if r["evaluator"] == "judge:labels"]
    order = row["probes"]["option_order"]
    assert order["partner"] == "judge:labels v1 (probe: reverse_options)"
    assert (order["n"], order["n_changed"]) == (6, 2)
    assert row["probes"]["position_swap"] == {"n": 0, "reason": "no swapped run"}
    store.close()


def test_probes_that_do_not_apply_are_one_line_errors(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", demo, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    base = ["--db", demo, "evaluate", PROJECT, "--evaluator"]
    capsys.readouterr()
    assert main([*base, "judge:same-task", "--probe", "reverse_options"]) != 0
    assert "needs a 'label' output" in capsys.readouterr().err
    assert main([*base, "bleu", "--probe", "swap"]) != 0
    assert "--probe runs a stored judge" in capsys.readouterr().err
    assert main([*base, "judge:same-task", "--settings", '{"temperature": 1}']) != 0
    assert "belong to its version" in capsys.readouterr().err
    assert fast_llm.calls == 0
    store = Store(demo)
    assert not [r for r in store.runs(PROJECT) if r.evaluator == "judge:same-task"]
    store.close()


def test_leakage_guard_compares_the_text_not_the_id(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    from alignment.table import alignment_table
    from evaluators.judges.leakage import normalise
    from jobs.runner import run_evaluator
    from reports.data import agreement_document
    from reports.render import build_report, render_markdown
    from workbench_api.judges import save_judge

    fast_llm.handler = _yes_for_two_gold_texts
    store = Store(demo)
    items = {i.item_id: dict(i.fields) for i in store.items(PROJECT)}
    # dinner's texts again under a new id (other case and spacing): leaked; lights' gold
    # with another predicted text: the template reads both, so not the same prompt
    again = {
        **items["dinner"],
        "gold": "  BOOK a table for two at an Italian restaurant in Palo Alto tonight   at 8 PM.",
        "predicted": items["dinner"]["predicted"].upper(),
    }
    other = {**items["lights"], "predicted": "Dim the kitchen lights."}
    store.upsert_items(
        PROJECT,
        [{"item_id": "dinner-again", "fields": again}, {"item_id": "lights-2", "fields": other}],
    )
    store.import_labels(
        PROJECT,
        [
            {"item_id": i, "annotator": a, "field": "match", "value": v, "status": "submitted"}
            for i, v in (("dinner-again", 1), ("lights-2", 0))
            for a in ("demo-annotator-1", "demo-annotator-2")
        ],
    )
    few = f'\n[few_shot]\nproject = "{PROJECT}"\nitem_ids = ["lights", "dinner"]\n'
    save_judge(store, "fs", TOML.read_text() + few)
    run_evaluator(store, PROJECT, "judge:fs")
    assert normalise(again["gold"]) == normalise(items["dinner"]["gold"])

    reasons = {
        "lights": "a few-shot example",
        "dinner": "a few-shot example",
        "dinner-again": "the same text as few-shot example dinner",
    }
    doc = agreement_document(store, PROJECT, n_resamples=0).to_dict()
    [excluded] = doc["meta"]["excluded"]
    assert excluded["n_excluded"] == 3 and excluded["reasons"] == reasons
    [entry] = [v for k, v in doc["evaluators"].items() if k.startswith("judge:fs")]
    assert entry["match"]["n"] == 5  # eight items, three seen with their answer
    rows = alignment_table(store, PROJECT, "match", n_resamples=0)["versions"]
    [row] = [r for r in rows if r["evaluator"] == "judge:fs"]
    assert row["excluded"]["n"] == 3 and row["excluded"]["reasons"] == reasons
    assert row["n"] == 5
    md = render_markdown(build_report(store, PROJECT, n_resamples=0))
    assert "3 excluded: few-shot examples" in md
    assert "dinner-again: the same text as few-shot example dinner" in md
    store.close()
    capsys.readouterr()
    assert main(["--db", demo, "alignment", PROJECT, "--field", "match", "--resamples", "0"]) == 0
    [line] = [x for x in capsys.readouterr().out.splitlines() if "judge:fs" in x]
    assert "excluded 3" in line


def test_readme_scale_comment_is_valid_toml_once_uncommented() -> None:
    from evaluators.judges.spec import parse_toml

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    block = readme.split("## Your own LLM judge", 1)[1].split("```toml\n", 1)[1]
    block = block.split("```", 1)[0].replace('type = "binary"', 'type = "integer"')
    block = re.sub(r"^# (min|max) = ", r"\1 = ", block, flags=re.M)
    spec = parse_toml(block)
    assert (spec.output.min, spec.output.max) == (1, 5)
