"""The peers in the whole-process bench: options, the missing-venv note, the reply shapes.

Nothing here runs a peer (they live in a side venv); the replies are checked through the
real ``openai`` client against the scripted server, and deepeval's weighted G-Eval score
is recomputed from the served log-probabilities the way deepeval 4.3.1 computes it.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import openai
import pytest

from tests.support.peer_replies import (
    AZURE_MARKER,
    DEEPEVAL_MARKER,
    bench_reply,
    prompt_text,
)
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load("whole_process_bench", ROOT / "bench" / "whole_process.py")


@pytest.fixture(scope="module")
def peers_common() -> ModuleType:
    return _load("peers_common", ROOT / "bench" / "peers" / "_common.py")


def test_missing_peer_venv_says_how_to_build_it(bench: ModuleType, tmp_path: Path) -> None:
    venv = tmp_path / "no-such-venv"
    peers, note = bench.peer_contenders(venv)
    assert peers == []
    assert note.startswith("peers skipped: no peer venv at ")
    assert f"PEER_VENV={venv} scripts/build_peer_bench_venv.sh" in note
    assert (ROOT / "scripts" / "build_peer_bench_venv.sh").exists()


def test_peer_venv_gives_one_contender_per_runner(bench: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    peers, note = bench.peer_contenders(tmp_path)
    assert [p.name for p in peers] == ["deepeval", "azure"]
    assert note == f"peers: deepeval, azure with {tmp_path / 'bin' / 'python'}"
    for peer in peers:
        assert isinstance(peer, bench.Peer)
        assert peer.argv[0] == str(tmp_path / "bin" / "python")
        assert Path(peer.argv[1]).is_file()
    assert [Path(p.argv[1]).name for p in peers] == [
        "deepeval_geval.py",
        "azure_intent_resolution.py",
    ]


def test_peer_command_line_and_environment(bench: ModuleType) -> None:
    peer = bench.Peer("deepeval", ["py", "run.py"], ROOT, script="run.py")
    assert bench.peer_args(peer, "http://127.0.0.1:9/v1", 200, 16) == [
        "py",
        "run.py",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "gpt-4o-mini",
        "--items",
        "200",
        "--concurrency",
        "16",
    ]
    env = bench.peer_env(
        {"PATH": "/bin", "OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "e", "DEEPEVAL_X": "1"}
    )
    assert env == {"PATH": "/bin"}


def test_peer_items_are_the_bench_items(
    bench: ModuleType, peers_common: ModuleType, tmp_path: Path
) -> None:
    from annotation_store import Store

    db = tmp_path / "bench.db"
    bench.prepare_db(db, 3)
    store = Store(f"sqlite:///{db}")
    try:
        stored = [r.fields for r in store.items(bench.PROJECT)]
    finally:
        store.close()
    assert peers_common.items(3) == stored
    assert stored[2] == {"query": "question 2", "response": "answer 2"}


def test_peer_summary_exit_status(peers_common: ModuleType, capsys: pytest.CaptureFixture) -> None:
    assert peers_common.finish("p", 2, [4.0, 5.0]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "peer": "p",
        "items": 2,
        "scored": 2,
        "mean_score": 4.5,
    }
    assert peers_common.finish("p", 3, [4.0, None, math.nan]) == 1
    assert json.loads(capsys.readouterr().out)["scored"] == 1


def test_prompt_text_reads_strings_and_text_parts() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "a"},
            {"role": "user", "content": [{"type": "text", "text": "b"}, {"type": "image"}]},
        ]
    }
    assert prompt_text(body) == "a\nb\n"


def _deepeval_weighted(score: int, logprobs: list) -> float:
    """deepeval 4.3.1's weighting: the last token equal to the score, its top candidates
    above 1 % probability that are digits, their probability-weighted mean."""
    entry = next(t for t in reversed(logprobs) if t.token == str(score))
    probs = {
        int(c.token): math.exp(c.logprob)
        for c in entry.top_logprobs
        if c.logprob >= math.log(0.01) and c.token.isdecimal()
    }
    return sum(k * p for k, p in probs.items()) / sum(probs.values())


def test_replies_parse_in_each_peers_shape() -> None:
    with ScriptedLLM() as server:
        server.handler = bench_reply
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        geval = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[
                {"role": "user", "content": [{"type": "text", "text": DEEPEVAL_MARKER + "..."}]}
            ],
            logprobs=True,
            top_logprobs=20,
        )
        azure = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[
                {"role": "system", "content": "You are an expert."},
                {"role": "user", "content": f"You are {AZURE_MARKER}, an impartial grader."},
            ],
            response_format={"type": "json_object"},
        )
        ours = client.chat.completions.create(
            model="scripted-model", messages=[{"role": "user", "content": "Query: q"}]
        )
        client.close()
    record = json.loads(geval.choices[0].message.content or "")
    assert record == {"reason": "ok", "score": 8}
    logprobs = geval.choices[0].logprobs
    assert logprobs is not None and logprobs.content is not None
    assert _deepeval_weighted(record["score"], logprobs.content) == pytest.approx(7.7824, abs=1e-4)
    assert json.loads(azure.choices[0].message.content or "") == {
        "reason": "ok",
        "score": 4,
        "status": "completed",
    }
    assert azure.choices[0].logprobs is None
    assert json.loads(ours.choices[0].message.content or "") == INTENT_RESOLUTION_REPLY
