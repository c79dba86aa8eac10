"""NLI backends: the transformers path with a tiny random model, label mapping, selection,
the bidirectional baseline, and the LLM backend through the scripted server."""

from __future__ import annotations

import asyncio
import json

import pytest

from evaluators.base import EvalContext, EvalItem, NotConfiguredError
from evaluators.nli import NLISettings, build_backend, nli_unavailable_reason
from evaluators.nli.random_model import build_random_nli_model
from evaluators.nli.transformers_backend import MNLI_ORDER, TransformersNLI, label_map
from evaluators.registry import create_evaluator

PAIRS = [
    ("I want to book a hair cut at Queens.", "The name of the hair stylist is Queens."),
    ("What about Queens?", "Request the time."),
    ("The Eagle is a cheap Japanese restaurant.", "The Eagle is expensive."),
    ("Bye.", "Have a good day."),
    ("Your table for 2 at 7 pm is booked at a place in Corte Madera.", "The city is Napa."),
]


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    texts = [t for pair in PAIRS for t in pair]
    return str(build_random_nli_model(tmp_path_factory.mktemp("nli") / "tiny", texts))


@pytest.fixture(scope="session")
def backend(tiny_model) -> TransformersNLI:
    return TransformersNLI(tiny_model, batch_size=2)


def test_probabilities_shape_and_sum(backend):
    preds = asyncio.run(backend.predict(PAIRS))
    assert len(preds) == len(PAIRS)
    for pred in preds:
        p = pred.probs
        assert pred.error is None and p is not None
        assert p.entailment + p.neutral + p.contradiction == pytest.approx(1.0, abs=1e-6)
        assert all(0.0 <= v <= 1.0 for v in p.as_dict().values())
    # a random model still distinguishes inputs
    assert len({round(pred.probs.entailment, 6) for pred in preds}) > 1


def test_deterministic_and_batching_equals_single(backend):
    first = backend.predict_sync(PAIRS)
    again = backend.predict_sync(PAIRS)
    single = [backend.predict_sync([p])[0] for p in PAIRS]
    assert first == again
    for a, b in zip(first, single, strict=True):
        assert a.as_dict() == pytest.approx(b.as_dict(), abs=1e-5)


def test_model_loaded_once(tiny_model, backend):
    assert TransformersNLI(tiny_model).net is backend.net


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        (
            {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"},
            {0: "entailment", 1: "neutral", 2: "contradiction"},
        ),
        ({"0": "contradiction", "1": "neutral", "2": "entailment"}, dict(enumerate(MNLI_ORDER))),
        ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, dict(enumerate(MNLI_ORDER))),
        ({0: "entailment", 1: "not_entailment"}, {0: "entailment", 1: "neutral"}),
    ],
)
def test_label_map(id2label, expected):
    assert label_map(id2label) == expected


def test_label_map_override_and_refusal():
    assert (
        label_map(
            {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, ["entailment", "neutral", "contradiction"]
        )[0]
        == "entailment"
    )
    with pytest.raises(ValueError, match="label_order"):
        label_map({0: "yes", 1: "no"})


def test_label_order_from_config_is_applied(tmp_path):
    flipped = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
    path = build_random_nli_model(tmp_path / "flip", ["a b"], id2label=flipped)
    normal = build_random_nli_model(tmp_path / "norm", ["a b"])
    a = TransformersNLI(str(path)).predict_sync([("a", "b")])[0]
    b = TransformersNLI(str(normal)).predict_sync([("a", "b")])[0]
    # same weights (same seed), class 0 and 2 swap their names
    assert a.entailment == pytest.approx(b.contradiction)
    assert a.contradiction == pytest.approx(b.entailment)


def test_bfloat16_precision_runs_autocast_and_stays_close(tiny_model, backend):
    fp32 = backend.predict_sync(PAIRS)
    bf16 = TransformersNLI(tiny_model, batch_size=2, precision="bfloat16").predict_sync(PAIRS)
    assert bf16 != fp32  # the autocast really ran (bf16 rounding shows in the output)
    for a, b in zip(fp32, bf16, strict=True):
        assert b.as_dict() == pytest.approx(a.as_dict(), abs=0.05)
    with pytest.raises(ValueError, match="precision"):
        TransformersNLI(tiny_model, precision="float16")


def test_precision_setting_reaches_backend_and_signature(monkeypatch, tiny_model):
    monkeypatch.setenv("WORKBENCH_NLI_MODEL", tiny_model)
    ev = create_evaluator("nli_bidirectional", {"precision": "bfloat16"})
    assert ev.backend.precision == "bfloat16"
    assert ev.signature().settings["precision"] == "bfloat16"
    assert create_evaluator("nli_bidirectional").backend.precision == "float32"


def test_backend_selection(monkeypatch, tiny_model):
    monkeypatch.delenv("WORKBENCH_NLI_MODEL", raising=False)
    none = EvalContext()
    reason = nli_unavailable_reason(NLISettings(), none)
    assert reason and "WORKBENCH_NLI_MODEL" in reason and "WORKBENCH_LLM" in reason
    with pytest.raises(NotConfiguredError):
        build_backend(NLISettings(), none)
    assert "WORKBENCH_NLI_MODEL" in nli_unavailable_reason(
        NLISettings(backend="transformers"), EvalContext(llm=object())
    )
    fake_llm = EvalContext(llm=type("C", (), {"model": "m"})())
    assert build_backend(NLISettings(), fake_llm).kind == "llm"
    monkeypatch.setenv("WORKBENCH_NLI_MODEL", tiny_model)
    assert build_backend(NLISettings(), fake_llm).kind == "transformers"  # auto prefers local
    assert build_backend(NLISettings(backend="llm"), fake_llm).kind == "llm"


def test_nli_bidirectional_with_transformers(monkeypatch, tiny_model, backend):
    monkeypatch.setenv("WORKBENCH_NLI_MODEL", tiny_model)
    ev = create_evaluator("nli_bidirectional")
    assert ev.unavailable_reason() is None
    assert ev.signature().model == "transformers:tiny"
    items = [
        EvalItem("a", {"gold": PAIRS[0][0], "predicted": PAIRS[0][1]}),
        EvalItem("b", {"gold": PAIRS[2][0], "predicted": PAIRS[2][1]}),
    ]
    results = asyncio.run(ev.evaluate(items))
    for item, res in zip(items, results, strict=True):
        g, p = item.fields["gold"], item.fields["predicted"]
        fwd, bwd = backend.predict_sync([(g, p), (p, g)])
        assert res.scores["match"] == pytest.approx((fwd.entailment + bwd.entailment) / 2)
        assert res.details["gold_entails_predicted"] == pytest.approx(fwd.as_dict())


def test_nli_bidirectional_unavailable_without_backend(monkeypatch):
    monkeypatch.delenv("WORKBENCH_NLI_MODEL", raising=False)
    assert "no NLI backend" in create_evaluator("nli_bidirectional").unavailable_reason()


# -- LLM backend through the scripted OpenAI-compatible server -------------------------------
def _llm_client():
    client_mod = pytest.importorskip(
        "evaluators.llm.client", reason="LLM client layer (evaluators/llm/client.py) absent"
    )
    return client_mod.build_llm_client()


def _answer_by_keyword(request):
    from tests.support.scripted_llm import Reply

    user = request["messages"][-1]["content"]
    statement = user.split("Statement:", 1)[1].split("\n", 1)[0]
    if "Queens" in statement:
        dist = {"yes": 0.7, "unknown": 0.2, "no": 0.1}
    elif "expensive" in statement:
        dist = {"yes": 0.05, "unknown": 0.25, "no": 0.7}
    else:
        dist = {"yes": 0.3, "unknown": 0.5, "no": 0.2}
    return Reply(content=json.dumps(dist))


def test_llm_backend_gives_three_way_probabilities(llm_env):
    from evaluators.nli.llm_backend import LLMNLI

    llm_env.handler = _answer_by_keyword
    preds = asyncio.run(LLMNLI(_llm_client()).predict(PAIRS[:3]))
    assert [p.probs.label for p in preds] == ["entailment", "neutral", "contradiction"]
    assert preds[0].probs.as_dict() == pytest.approx(
        {"entailment": 0.7, "neutral": 0.2, "contradiction": 0.1}
    )
    assert preds[1].probs.entailment == pytest.approx(0.3)  # not one-hot: 0.3 survives


def test_llm_backend_reasks_a_distribution_that_does_not_sum_to_one(llm_env):
    from evaluators.nli.llm_backend import LLMNLI
    from tests.support.scripted_llm import Reply

    llm_env.queue(
        Reply(content=json.dumps({"yes": 0.9, "unknown": 0.9, "no": 0.0})),
        Reply(content=json.dumps({"yes": 0.6, "unknown": 0.3, "no": 0.11})),
    )
    [pred] = asyncio.run(LLMNLI(_llm_client()).predict(PAIRS[:1]))
    assert llm_env.calls == 2 and "add up to 1.800" in str(llm_env.requests[1]["messages"])
    # within the tolerance: normalised to sum to 1
    assert pred.probs.entailment == pytest.approx(0.6 / 1.01)


def test_llm_backend_bad_reply_is_an_error(llm_env):
    from evaluators.nli.llm_backend import LLMNLI
    from tests.support.scripted_llm import Reply

    llm_env.handler = lambda request: Reply(content='{"yes": "perhaps"}')
    [pred] = asyncio.run(LLMNLI(_llm_client()).predict(PAIRS[:1]))
    assert pred.probs is None and pred.error
