"""Built-in evaluators; every module here registers one or more evaluators on import.

:data:`BUILTIN` names each of them as a ``"module:object"`` reference, so that looking
one up imports its module only (the LLM judges and the NLI models stay unloaded when a
run asks for BLEU). A new evaluator module adds its line here; a test checks that the
table and what the modules register agree.
"""

#: evaluator name -> ``"module:class"`` that defines it.
BUILTIN: dict[str, str] = {
    "bifact": "evaluators.builtin.bifact:BiFact",
    "bleu": "evaluators.builtin.lexical:BleuEvaluator",
    "chrf": "evaluators.builtin.lexical:ChrfEvaluator",
    "embedding_cosine": "evaluators.builtin.embedding:EmbeddingCosineEvaluator",
    "fingract": "evaluators.builtin.fingract:FinGrAct",
    "fingract_ucr": "evaluators.builtin.fingract:FinGrActUCR",
    "geval": "evaluators.builtin.geval:GEval",
    "geval_ucr": "evaluators.builtin.geval:GEvalUCR",
    "intent_resolution": "evaluators.builtin.intent_resolution:IntentResolution",
    "meteor": "evaluators.builtin.lexical:MeteorEvaluator",
    "nli_bidirectional": "evaluators.builtin.nli_bidirectional:NLIBidirectionalEvaluator",
    "prometheus": "evaluators.builtin.prometheus:Prometheus",
    "prometheus_ucr": "evaluators.builtin.prometheus:PrometheusUCR",
    "rouge1": "evaluators.builtin.lexical:Rouge1Evaluator",
    "rouge2": "evaluators.builtin.lexical:Rouge2Evaluator",
    "rougeL": "evaluators.builtin.lexical:RougeLEvaluator",
    "ser": "evaluators.builtin.ser:SlotErrorRateEvaluator",
    "sgsacc": "evaluators.builtin.sgsacc:SGSAccEvaluator",
}
