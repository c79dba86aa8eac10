"""Running evaluators: the runner the CLI, the app's jobs and notebooks share."""

from jobs.runner import RunProgress
from jobs.runner import run_evaluator as evaluate

__all__ = ["RunProgress", "evaluate"]
