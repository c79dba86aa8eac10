"""The kinds of disagreement of the audit table (light: the command line's choices)."""

# Kinds of disagreement, in order of precedence (the first that applies names the row).
EVAL_FAILED = "evaluator failed"
HUMANS_DISAGREE = "humans disagree"
METRIC_DIFFERS = "metric differs"
AGREE = "agree"
NO_LABELS = "no human labels"
NO_SCORES = "no evaluator score"
CATEGORIES = (EVAL_FAILED, HUMANS_DISAGREE, METRIC_DIFFERS, AGREE, NO_LABELS, NO_SCORES)
