"""Built-in evaluators; every module here registers one or more evaluators on import.

:data:`BUILTIN` names each of them as a ``"module:object"`` reference, so that looking
one up imports its module only (the LLM judges and the NLI models stay unloaded when a
run asks for BLEU). A new evaluator module adds its line here; a test checks that the
table and what the modules register agree.
"""

#: evaluator name -> ``"module:class"`` that defines it, the module named within this
#: package (the registry prefixes the package's own name, which differs when installed).
BUILTIN: dict[str, str] = {
    "bifact": "bifact:BiFact",
    "bleu": "lexical:BleuEvaluator",
    "chrf": "lexical:ChrfEvaluator",
    "embedding_cosine": "embedding:EmbeddingCosineEvaluator",
    "fingract": "fingract:FinGrAct",
    "fingract_ucr": "fingract:FinGrActUCR",
    "geval": "geval:GEval",
    "geval_ucr": "geval:GEvalUCR",
    "intent_resolution": "intent_resolution:IntentResolution",
    "jury": "jury:JuryEvaluator",
    "meteor": "lexical:MeteorEvaluator",
    "nli_bidirectional": "nli_bidirectional:NLIBidirectionalEvaluator",
    "prometheus": "prometheus:Prometheus",
    "prometheus_ucr": "prometheus:PrometheusUCR",
    "rouge1": "lexical:Rouge1Evaluator",
    "rouge2": "lexical:Rouge2Evaluator",
    "rougeL": "lexical:RougeLEvaluator",
    "ser": "ser:SlotErrorRateEvaluator",
    "sgsacc": "sgsacc:SGSAccEvaluator",
}
