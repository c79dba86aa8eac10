"""Batch runs under faults: malformed lines, rate limits, 5xx after create, dead downloads.

The scripted server (tests/support/scripted_llm.py) plays the Files + Batches endpoint
and injects each fault; every test checks that billed replies are stored, the run is
never left ``running``, and a resume re-reads the same batch instead of paying again.
"""

from __future__ import annotations

import pytest

from annotation_store import Store
from evaluators.llm.batch_api import BatchError
from jobs.runner import run_evaluator
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_batch_mode import _project, _reply, _scores
from tests.test_llm_batch_mode import _score_by_query as _scored


def _number(req: dict) -> int:
    return int(req["messages"][-1]["content"].split("QUERY-")[1].split()[0])


def _failed(store: Store) -> dict[str, str]:
    frame = store.results_frame("ir", include_failed=True)
    frame = frame[frame["status"] == "failed"]
    return dict(zip(frame["item_id"], frame["error"], strict=True))


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch, llm_env: ScriptedLLM) -> ScriptedLLM:
    monkeypatch.setenv("WORKBENCH_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("WORKBENCH_LLM_JSON_RETRIES", "0")
    return llm_env


def test_a_malformed_line_fails_only_its_item(store: Store, fast: ScriptedLLM) -> None:
    _project(store, 20)
    fast.handler = lambda req: Reply(body={"choices": "oops"}) if _number(req) == 7 else _reply(0.4)
    progress = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert (progress.done, progress.failed) == (20, 1)
    assert len(_scores(store)) == 19
    reason = _failed(store)["q7"]
    assert '"choices" should be a list, got "oops"' in reason
    assert "AttributeError" not in reason
    assert [r.status for r in store.runs("ir")] == ["done"]


def test_rate_limits_and_server_errors_while_polling_are_retried(
    store: Store, fast: ScriptedLLM
) -> None:
    _project(store, 3)
    fast.handler = _scored
    fast.fail("retrieve", 429, times=2)
    fast.fail("content", 503, times=1)
    fast.fail("list", 500, times=1)
    run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert ("retrieve", 429) in fast.fault_hits and ("content", 503) in fast.fault_hits
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4}
    assert fast.batch_creates == 1


def test_a_500_after_create_uses_the_batch_it_made(store: Store, fast: ScriptedLLM) -> None:
    _project(store, 3)
    fast.handler = _scored
    fast.fail("create", 500, after=True)
    progress = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert fast.batch_creates == 1 and list(fast.batches) == ["batch-1"]
    assert progress.batch["batches"][0]["batch_id"] == "batch-1"
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4}
    assert [r.status for r in store.runs("ir")] == ["done"]


def test_a_create_that_keeps_failing_stops_the_run_and_the_resume_finds_the_batch(
    store: Store, fast: ScriptedLLM
) -> None:
    _project(store, 3)
    fast.handler = _scored
    fast.fail("create", 500, times=1, after=True)  # made, but the client hears 500
    fast.fail("list", 500, times=50)  # and cannot look it up
    with pytest.raises(BatchError, match="looking up the batch failed"):
        run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert [r.status for r in store.runs("ir")] == ["stopped"]
    fast.faults.clear()
    run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert fast.batch_creates == 1  # the stored input file led back to batch-1
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4}
    assert [r.status for r in store.runs("ir")] == ["done", "stopped"]


def test_replies_are_kept_when_a_later_download_fails_and_the_resume_rereads_the_batch(
    store: Store, fast: ScriptedLLM
) -> None:
    """Output file read, error file refused: the 5 paid replies are cached at once; the
    resume asks only about q3 and reads it from the same batch (no second batch)."""
    _project(store, 6)
    fast.handler = _scored
    fast.fail("content", 403, times=1, match="file-3")  # file-3: the error file
    with pytest.raises(BatchError, match="download of file-3 was refused"):
        run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert [r.status for r in store.runs("ir")] == ["stopped"]
    again = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert fast.batch_creates == 1 and len(fast.batch_requests) == 6
    assert (again.done, again.cached, again.failed) == (6, 5, 1)
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4, "q4": 0.8, "q5": 1.0}
    assert "scripted batch failure" in _failed(store)["q3"]


def test_the_cli_reports_a_stopped_batch_run_in_one_line(
    sqlite_url: str, fast: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli

    store = Store(sqlite_url)
    _project(store, 2)
    fast.handler = _scored
    fast.fail("retrieve", 400, times=1)
    code = cli.main(
        ["--db", sqlite_url, "evaluate", "ir", "--evaluator", "intent_resolution"]
        + ["--mode", "batch", "--poll-seconds", "0.01"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "the batch run stopped: status check of batch batch-1 was refused (HTTP 400" in err
    assert [r.status for r in store.runs("ir")] == ["stopped"]
    store.close()


def test_an_online_malformed_body_is_stored_as_a_plain_reason(
    store: Store, llm_env: ScriptedLLM
) -> None:
    _project(store, 1)
    llm_env.queue(Reply(body={"choices": [{"message": "oops"}]}))
    run_evaluator(store, "ir", "intent_resolution")
    reason = _failed(store)["q0"]
    assert "not a chat completion: choice 0's message should be an object" in reason
    assert "AttributeError" not in reason
