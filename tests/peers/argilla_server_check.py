"""Every answer of the Argilla exports through argilla-server's own validator.

Runs in .venv-argilla-server (its pins clash with .venv-peers). Reads a JSON list of
answers, each ``{"where", "settings", "value", "status", "fields"}`` (``settings``: the
question's settings as Argilla's client sends them), and prints a JSON list of the
refusals, each ``"where: reason"``; nothing is written, no server is started.

    .venv-argilla-server/bin/python tests/peers/argilla_server_check.py answers.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

from argilla_server.api.schemas.v1.questions import QuestionSettings
from argilla_server.api.schemas.v1.responses import ResponseValueTypes
from argilla_server.enums import ResponseStatus
from argilla_server.errors.future import UnprocessableEntityError
from argilla_server.validators.response_values import ResponseValueValidator
from pydantic import TypeAdapter, ValidationError


def main(path: Path) -> None:
    """Print the refusals of every answer in ``path``."""
    settings_of = TypeAdapter(QuestionSettings)
    value_of = TypeAdapter(ResponseValueTypes)
    refused = []
    for case in json.loads(path.read_text(encoding="utf-8")):
        try:
            settings = settings_of.validate_python(case["settings"])
            value = value_of.validate_python(case["value"])
            record = SimpleNamespace(fields=case["fields"])  # what the span check reads
            status = ResponseStatus(case["status"])
            ResponseValueValidator.validate(value, settings, record, status)
        except (UnprocessableEntityError, ValidationError, ValueError) as exc:
            refused.append(f"{case['where']}: {type(exc).__name__}: {exc}")
    print(
        json.dumps(
            {"checked": len(json.loads(path.read_text(encoding="utf-8"))), "refused": refused}
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
