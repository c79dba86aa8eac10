"""Custom LLM judges: TOML from the CLI, versions, runs signed judge:NAME, sandbox, samples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotation_store import RunInfo, Store
from commands import main
from evaluators.judges.spec import JudgeError, parse_toml
from evaluators.judges.template import TemplateError, render_template
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")


def _same_when_alarm_missing(request: dict[str, Any]) -> Reply:
    """Says 'same task' (1) unless the prompt mentions an alarm."""
    answer = 0 if "alarm" in _user_text(request).lower() else 1
    return Reply(content=json.dumps({"explanation": "compared both", "answer": answer}))


def _runs(store: Store) -> list[RunInfo]:
    return [r for r in store.runs(PROJECT) if r.evaluator.startswith("judge:")]


def test_toml_judge_created_run_edited_and_run_again(
    demo: str, fast_llm: ScriptedLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fast_llm.handler = _same_when_alarm_missing
    assert main(["--db", demo, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    assert "judge same-task version 1 saved" in capsys.readouterr().out
    assert main(["--db", demo, "evaluate", PROJECT, "--evaluator", "judge:same-task"]) == 0
    store = Store(demo)
    n_items = len(store.items(PROJECT))
    assert fast_llm.calls == n_items
    texts = [_user_text(r) for r in fast_llm.requests]
    assert any(t.startswith("Gold intent: Set an alarm for today at 7 AM") for t in texts)

    edited = tmp_path / "v2.toml"
    edited.write_text(TOML.read_text().replace("Do both describe", "Would one action satisfy"))
    assert main(["--db", demo, "judge", "edit", "same-task", "--from", str(edited)]) == 0
    assert "version 2 saved" in capsys.readouterr().out
    assert main(["--db", demo, "evaluate", PROJECT, "--evaluator", "judge:same-task"]) == 0
    assert main(["--db", demo, "evaluate", PROJECT, "--evaluator", "judge:same-task@1"]) == 0
    assert fast_llm.calls == 2 * n_items  # version 1 again comes from the cache

    runs = _runs(store)
    assert [r.signature["version"] for r in runs] == ["1", "2", "1"]
    sigs = [r.signature for r in runs]
    assert {s["evaluator"] for s in sigs} == {"judge:same-task"}
    assert sigs[0]["prompt_hash"] != sigs[1]["prompt_hash"]
    assert sigs[0]["prompt_hash"] == sigs[2]["prompt_hash"]
    assert sigs[0]["model"] == fast_llm.model
    assert sigs[0]["settings"]["few_shot_item_ids"] == []
    assert sigs[0]["settings"]["swap_texts"] is False
    scores = store.scores_frame(PROJECT)
    mine = scores[scores["evaluator"] == "judge:same-task"]
    assert len(mine) == 3 * n_items
    by_item = dict(zip(mine["item_id"], mine["score"], strict=False))
    assert by_item["alarm"] == 0.0 and by_item["dinner"] == 1.0
    assert [r.version for r in store.judge_versions("same-task")] == [1, 2]
    assert (
        store.judge("same-task", 1).definition["template"]
        != store.judge("same-task").definition["template"]
    )
    store.close()

    # both versions side by side against the people, with n and a 95% interval
    capsys.readouterr()
    args = ["alignment", PROJECT, "--field", "match", "--json", "--resamples", "200"]
    assert main(["--db", demo, *args]) == 0
    rows = {r["label"]: r for r in json.loads(capsys.readouterr().out)["versions"]}
    for label in ("judge:same-task v1", "judge:same-task v2"):
        head = rows[label]["headline"]
        assert rows[label]["n"] == n_items
        assert head["ci"][0] <= head["value"] <= head["ci"][1]

    assert main(["--db", demo, "judge", "show", "same-task", "--version", "1"]) == 0
    shown = capsys.readouterr().out
    assert "Do both describe the same task?" in shown and "version 1" in shown
    assert main(["--db", demo, "judge", "list", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["version"] == 2 and listed["evaluator"] == "judge:same-task"


@pytest.mark.parametrize(
    "template",
    ["{{ ''.__class__ }}", "{{ gold.__class__.__mro__ }}", "{{ gold|attr('__class__') }}"],
)
def test_template_reaching_python_attributes_is_refused(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], template: str
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(TOML.read_text().replace("{{ predicted }}", template))
    assert main(["--db", demo, "judge", "create", "evil", "--from", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused" in err and "attribute '__" in err
    store = Store(demo)
    assert store.judges() == []  # nothing saved
    store.close()


def test_render_time_sandbox_refuses_too() -> None:
    with pytest.raises(TemplateError, match="unsafe"):
        render_template("{{ ''.__class__ }}", {})
    with pytest.raises(TemplateError, match="not given"):
        render_template("{{ gold }}", {})


def test_unknown_field_and_bad_output_are_one_line_errors(demo: str) -> None:
    from workbench_api.judges import save_judge

    store = Store(demo)
    base = TOML.read_text()
    with pytest.raises(JudgeError, match=r"unknown field\(s\) \['query'\]"):
        save_judge(store, "x", base.replace("{{ gold }}", "{{ query }}"))
    with pytest.raises(JudgeError, match="needs min < max"):
        save_judge(
            store, "x", base.replace('type = "binary"', 'type = "integer"\nmin = 3\nmax = 1')
        )
    with pytest.raises(JudgeError, match="no field 'resolution'"):
        save_judge(store, "x", base.replace('["match"]', '["resolution"]'))
    with pytest.raises(JudgeError, match="judge name"):
        save_judge(store, "bad name!", base)
    assert store.judges() == []
    store.close()


def test_malformed_reply_is_reasked_then_a_failure_never_a_score(
    demo: str, fast_llm: ScriptedLLM
) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    fast_llm.handler = lambda req: Reply(content='{"explanation": "hm", "answer": "perhaps"}')
    store = Store(demo)
    save_judge(store, "same-task", TOML.read_text())
    progress = run_evaluator(store, PROJECT, "judge:same-task", item_ids=["alarm"])
    assert progress.failed == 1
    assert fast_llm.calls == 3  # the first ask and two re-asks
    [res] = store.run_results(progress.run_ids[0])
    assert res.status == "failed" and res.scores == {}
    assert "'perhaps' is not a binary value" in (res.error or "")
    store.close()


def test_samples_are_stored_with_majority_and_probability(demo: str, fast_llm: ScriptedLLM) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    answers = iter([1, 0, 1])
    fast_llm.handler = lambda req: Reply(content=json.dumps({"answer": next(answers)}))
    store = Store(demo)
    toml = TOML.read_text().replace(
        "temperature = 0.0\nsamples = 1", "temperature = 0.7\nsamples = 3"
    )
    save_judge(store, "sampled", toml)
    progress = run_evaluator(store, PROJECT, "judge:sampled", item_ids=["alarm"])
    [res] = store.run_results(progress.run_ids[0])
    assert sorted(res.details["samples"]) == [0, 1, 1]
    assert res.scores == {"match": 1.0}  # majority
    assert res.details["probability"] == pytest.approx(2 / 3)
    assert res.signature.settings["samples"] == 3
    store.close()


def test_swap_texts_exchanges_gold_and_predicted(demo: str, fast_llm: ScriptedLLM) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    fast_llm.handler = _same_when_alarm_missing
    store = Store(demo)
    save_judge(
        store, "swapped", TOML.read_text().replace("[output]", "swap_texts = true\n\n[output]")
    )
    progress = run_evaluator(store, PROJECT, "judge:swapped", item_ids=["alarm"])
    text = _user_text(fast_llm.requests[0])
    assert text.index("Gold intent: Wake me up at 7") < text.index("Predicted intent: Set an alarm")
    [res] = store.run_results(progress.run_ids[0])
    assert res.signature.settings["swap_texts"] is True
    store.close()


def test_job_queue_runs_a_judge_and_the_evaluate_page_lists_it(
    demo: str, fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.worker import evaluate_params, execute_job, submit_evaluate_job
    from tests.support.apptest import open_app
    from workbench_api.judges import save_judge

    fast_llm.handler = _same_when_alarm_missing
    store = Store(demo)
    save_judge(store, "same-task", TOML.read_text())
    params = evaluate_params(["judge:same-task"], subset={"mode": "ids", "ids": ["alarm"]})
    job = execute_job(store, submit_evaluate_job(store, PROJECT, params))
    assert job.status == "done", job.error
    [run] = _runs(store)
    assert run.signature["version"] == "1" and run.job_id == job.id
    # a judge of another kind cannot be queued for this project
    other = execute_job(store, submit_evaluate_job(store, "demo-intent-resolution", params))
    assert other.status == "failed" and "scores kind 'intent_match'" in other.error
    store.close()
    at = open_app(monkeypatch, demo, page="pages/evaluate.py", project=PROJECT, timeout=90)
    assert "judge:same-task" in at.multiselect(key="ev_names").options


def test_few_shot_examples_are_frozen_signed_and_excluded_from_the_figures(
    demo: str, fast_llm: ScriptedLLM, tmp_path: Path
) -> None:
    from jobs.runner import run_evaluator
    from reports.data import agreement_document
    from reports.render import build_report, render_json, render_markdown
    from workbench_api.judges import example_candidates, save_judge

    fast_llm.handler = _same_when_alarm_missing
    store = Store(demo)
    settled = example_candidates(store, PROJECT, parse_toml(TOML.read_text()))
    assert settled == {"dinner": 1, "flights": 1, "music": 1, "lights": 0}  # alarm is 2:1
    few = f'\n[few_shot]\nproject = "{PROJECT}"\n'
    with pytest.raises(JudgeError, match="'alarm' has no unanimous or adjudicated label"):
        save_judge(store, "fs", TOML.read_text() + few + 'item_ids = ["alarm"]\n')
    with pytest.raises(JudgeError, match="only 4 items"):
        save_judge(store, "fs", TOML.read_text() + few + "sample = 5\n")
    record = save_judge(store, "fs", TOML.read_text() + few + 'item_ids = ["lights", "dinner"]\n')
    examples = record.definition["few_shot"]["examples"]
    assert [(e["item_id"], e["answer"]) for e in examples] == [("lights", 0), ("dinner", 1)]
    assert examples[0]["fields"]["gold"].startswith("Turn off")
    # sampling with a seed draws the same two every time
    a = save_judge(store, "fs-a", TOML.read_text() + few + "sample = 2\nseed = 3\n")
    b = save_judge(store, "fs-b", TOML.read_text() + few + "sample = 2\nseed = 3\n")
    assert a.definition["few_shot"]["examples"] == b.definition["few_shot"]["examples"]

    progress = run_evaluator(store, PROJECT, "judge:fs")
    [run] = [r for r in store.runs(PROJECT) if r.id == progress.run_ids[0]]
    assert run.signature["settings"]["few_shot_item_ids"] == ["lights", "dinner"]
    text = _user_text(fast_llm.requests[0])
    assert text.startswith("Worked examples, with the answers people gave:")
    assert 'Answer: {"answer": 0}' in text and "### The item to judge" in text

    doc = agreement_document(store, PROJECT, n_resamples=0).to_dict()
    [excluded] = doc["meta"]["excluded"]
    assert excluded["n_excluded"] == 2 and excluded["reason"] == "few-shot examples"
    assert excluded["evaluator"] == "judge:fs" and excluded["item_ids"] == ["lights", "dinner"]
    [entry] = [v for k, v in doc["evaluators"].items() if k.startswith("judge:fs")]
    assert entry["match"]["n"] == 4  # six items, two shown as examples

    report = build_report(store, PROJECT, n_resamples=0)
    data = json.loads(render_json(report))
    [judge] = data["judges"]
    assert judge["name"] == "fs" and judge["version"] == 1
    assert judge["prompt_hash"] == run.signature["prompt_hash"]
    assert "{{ gold }}" in judge["definition"]["template"]
    assert data["provenance"]["excluded"][0]["n_excluded"] == 2
    md = render_markdown(report)
    assert "## Judge definitions" in md and "### judge:fs version 1" in md
    assert "2 excluded: few-shot examples (lights, dinner)" in md
    store.close()


def test_readme_judge_toml_is_a_valid_definition() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    section = readme.split("## Your own LLM judge", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    spec = parse_toml(block)
    assert spec.kind == "intent_match" and spec.output.type == "binary"
    assert spec.few_shot.item_ids == ["dinner", "lights"]


def test_saving_an_unchanged_definition_again_is_refused(demo: str) -> None:
    from workbench_api.judges import save_judge

    store = Store(demo)
    base = TOML.read_text()
    assert save_judge(store, "same-task", base).version == 1
    with pytest.raises(JudgeError, match="nothing changed since same-task version 1"):
        save_judge(store, "same-task", base)
    edited = base.replace("{{ predicted }}", "{{ predicted }} (predicted)")
    assert save_judge(store, "same-task", edited).version == 2
    assert [r.version for r in store.judge_versions("same-task")] == [1, 2]
    store.close()


def test_versions_on_both_backends_and_concurrent_saves(any_store: Store) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from annotation_store import StoreError

    spec = parse_toml(TOML.read_text())
    data = spec.model_dump(mode="json")
    first = any_store.save_judge_version("j", "intent_match", data, "h1", new=True)
    assert (first.version, first.evaluator) == (1, "judge:j")
    with pytest.raises(StoreError, match="exists"):
        any_store.save_judge_version("j", "intent_match", data, "h1", new=True)
    with pytest.raises(StoreError, match="no judge named 'k'"):
        any_store.save_judge_version("k", "intent_match", data, "h1", new=False)
    with pytest.raises(StoreError, match="cannot change it"):
        any_store.save_judge_version("j", "binary", data, "h1")
    with ThreadPoolExecutor(4) as pool:
        saved = list(
            pool.map(
                lambda i: any_store.save_judge_version("j", "intent_match", data, f"h{i}"),
                range(2, 6),
            )
        )
    assert sorted(r.version for r in saved) == [2, 3, 4, 5]
    assert [r.version for r in any_store.judge_versions("j")] == [1, 2, 3, 4, 5]
    assert any_store.judge("j").version == 5 and any_store.judge("j", 1).prompt_hash == "h1"
    with pytest.raises(StoreError, match="has no version 9"):
        any_store.judge("j", 9)
    any_store.save_judge_version("other", "binary", {"x": 1}, "h")
    assert [j.name for j in any_store.judges()] == ["j", "other"]


def test_fact_labels_integer_and_label_outputs(demo: str, fast_llm: ScriptedLLM) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    store = Store(demo)
    base = TOML.read_text()
    facts = base.replace('["match"]', '["recall"]').replace(
        'type = "binary"', 'type = "fact_labels"\nfacts_field = "gold_facts"'
    )
    save_judge(store, "facts", facts)
    # alarm has four gold facts: a three-label reply is re-asked, the four-label one kept
    fast_llm.queue('{"answer": ["C", "M", "C"]}', '{"answer": ["C", "c", "M", "M"]}')
    progress = run_evaluator(store, PROJECT, "judge:facts", item_ids=["alarm"])
    [res] = store.run_results(progress.run_ids[0])
    assert res.details["answer"] == ["C", "C", "M", "M"] and res.scores == {"recall": 0.5}
    assert "3 labels for 4 facts" in fast_llm.requests[1]["messages"][-1]["content"]
    assert "1. Create an alarm" in _user_text(fast_llm.requests[0])

    labels = base.replace('type = "binary"', 'type = "label"\nlabels = ["same", "different"]')
    save_judge(store, "labels", labels)
    fast_llm.queue('{"answer": "Different"}')
    progress = run_evaluator(store, PROJECT, "judge:labels", item_ids=["alarm"])
    [res] = store.run_results(progress.run_ids[0])
    assert res.details["answer"] == "different" and res.scores == {"match": 1.0}

    scale = base.replace('type = "binary"', 'type = "integer"\nmin = 1\nmax = 5').replace(
        "samples = 1", 'samples = 2\naggregate = "mean"'
    )
    save_judge(store, "scale", scale)
    fast_llm.queue('{"answer": 2}', '{"answer": 6}', '{"answer": 3}')  # 6 is re-asked
    progress = run_evaluator(store, PROJECT, "judge:scale", item_ids=["alarm"])
    [res] = store.run_results(progress.run_ids[0])
    assert sorted(res.details["samples"]) == [2, 3] and res.scores == {"match": 2.5}
    assert "probability" not in res.details
    store.close()


def test_the_report_gives_a_judges_settings_in_words_not_json() -> None:
    from reports.judges import judge_html, judge_lines

    definition = {
        "fields": ["match"],
        "output": {"type": "binary", "explanation": True, "labels": [], "facts_field": None},
        "sampling": {"model": "m", "max_tokens": 600, "temperature": 0.0},
        "swap_texts": False,
        "template": "Q: {{ gold }}",
    }
    judge = {"name": "x", "version": 1, "kind": "intent_match", "prompt_hash": "abc"}
    judge |= {"created_at": "2026-11-28", "definition": definition}
    md = "\n".join(judge_lines([judge]))
    assert "- **Output**: explanation: yes · facts field: none · labels: none · type: binary" in md
    assert "- **Sampling**: max tokens: 600 · model: m · temperature: 0.0" in md
    assert "- **Swap texts**: no" in md
    assert "{" not in md.split("```jinja")[0], md
    assert "<dd>explanation: yes · facts field: none" in judge_html([judge])
