"""Which structured-output mode an endpoint takes: asked once, before a run signs its results.

The modes, best first: ``json_schema`` (the server constrains the reply to the schema),
``json_object`` (a JSON object; the schema goes into the prompt, and into the request
beside the type, where llama-cpp-python's server enforces it) and ``text`` (the schema in
the prompt, the tolerant parser reads the reply). A refusal is what an
endpoint says when it does not take a ``response_format``: a 400 or 422, another 4xx
whose message names it, or a 5xx whose message names it (llama-cpp-python's server
0.3.x accepts only ``text`` and ``json_object`` and answers a ``json_schema`` request
with HTTP 500 and a validation message). A refusal is deterministic: it is never retried.

The probe is one short request per mode, sent with the standard library (no event loop
needed: a signature is taken before the run's loop starts). Its answer is kept in the
LLM cache, so a re-run asks nothing.
"""

from __future__ import annotations

import json
from typing import Any

LADDER = ("json_schema", "json_object", "text")
#: The probe's system message; the scripted test server recognises it.
PROBE_TEXT = "Structured-output check by the metric-audit workbench."
_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
_NAMES = ("response_format", "response format", "json_schema", "json_object")
#: Statuses that speak of the caller, not of the request's parameters.
_NOT_ABOUT_PARAMETERS = (401, 403, 404, 408, 409, 429)


def names_response_format(message: str) -> bool:
    """True when an error message is about the requested output format."""
    lowered = message.lower()
    return any(name in lowered for name in _NAMES)


def is_refusal(status: int, message: str, only_response_format: bool = False) -> bool:
    """True when an HTTP error means "this endpoint does not take that response_format".

    ``only_response_format``: the request had no other optional parameter, so any 400 or
    422 is about it.
    """
    if status in _NOT_ABOUT_PARAMETERS:
        return False
    if status in (400, 422) and only_response_format:
        return True
    return 400 <= status < 600 and names_response_format(message)


def response_format(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` of a request in ``mode`` (None for ``text``)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": False},
        }
    if mode == "json_object":
        # llama-cpp-python's server turns a "schema" here into a grammar (it takes no
        # json_schema type); servers that ignore the key still return a JSON object.
        return {"type": "json_object", "schema": schema}
    return None


def schema_note(schema: dict[str, Any]) -> str:
    """The words that carry the schema when the endpoint does not enforce it."""
    return (
        "Answer with one JSON object, and nothing before or after it, that follows this "
        f"JSON schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


def probe_body(model: str, mode: str) -> dict[str, Any]:
    """A short request in ``mode`` (a JSON object with one boolean)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {"role": "system", "content": PROBE_TEXT},
            {"role": "user", "content": 'Reply with the JSON object {"ok": true}.'},
        ],
        "max_tokens": 12,
        "temperature": 0,
    }
    fmt = response_format(mode, "Probe", _PROBE_SCHEMA)
    if fmt is not None:
        body["response_format"] = fmt
    return body


def probe(url: str, headers: dict[str, str], model: str, timeout_s: float) -> str | None:
    """The best mode ``url`` (``.../chat/completions``) takes, or None when the endpoint
    gave no clear answer (unreachable, an auth error, a plain server fault)."""
    for mode in LADDER[:-1]:
        status, message = _post(url, headers, probe_body(model, mode), timeout_s)
        if status == 200:
            return mode
        if status is None or not is_refusal(status, message, only_response_format=True):
            return None
    return LADDER[-1]


def _post(
    url: str, headers: dict[str, str], body: dict[str, Any], timeout_s: float
) -> tuple[int | None, str]:
    """(HTTP status, error text); (None, reason) when no reply came."""
    import urllib.error  # once per endpoint: kept off the import path of every run
    import urllib.request

    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as reply:
            reply.read()
            return int(reply.status), ""
    except urllib.error.HTTPError as exc:
        try:
            text = exc.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        return int(exc.code), text[:2000]
    except (OSError, ValueError) as exc:
        return None, str(exc)
