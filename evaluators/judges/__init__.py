"""Custom LLM judges: definitions written by users, rendered in a sandbox, run like evaluators.

A judge is data, not code: a task kind, the field(s) it scores, a Jinja2 prompt template
over the item's fields, an output spec and sampling settings (``spec.py``). Templates
render in Jinja2's sandbox with undefined names as errors (``template.py``). The
evaluator (``evaluator.py``) asks the model through the shared client layer and signs its
results ``judge:NAME`` / version N.
"""

from evaluators.judges.spec import JudgeError, JudgeSpec, parse_toml

__all__ = ["JudgeError", "JudgeSpec", "parse_toml"]
