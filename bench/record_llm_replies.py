"""Record real replies of the local model for the parser tests (tests/data/llm_replies/).

Runs the JSON judges (and G-Eval, Prometheus) on demo items against llama.cpp's server
with SmolLM2-135M-Instruct, constrained (the negotiated mode) and unconstrained
(``WORKBENCH_LLM_JSON_MODE=text``), re-asks off, and writes every reply with what it was
asked for: the schema's name (JSON replies), the mode and the finish reason; the header
names the model file, its sha256, llama-cpp-python's version and the server's command line.

    .venv/bin/python bench/record_llm_replies.py [--out tests/data/llm_replies/replies.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.local_llm import PARSE, env, fresh_store
from evaluators.llm.local import LocalServer, free_port, make_spec
from jobs.runner import build_context, run_evaluator
from tests.support.recording_proxy import RecordingProxy

ROOT = Path(__file__).resolve().parent.parent


def schema_names() -> dict[str, str]:
    """Canonical JSON of each reply schema -> the model's import path."""
    from evaluators.builtin.bifact import Assessment, Facts
    from evaluators.builtin.fingract import ExplanationCheck, Segmentation
    from evaluators.builtin.intent_resolution import IntentRecord
    from evaluators.judges.output import JudgeReply

    models = [Assessment, Facts, ExplanationCheck, Segmentation, IntentRecord, JudgeReply]
    return {
        json.dumps(m.model_json_schema(), sort_keys=True): f"{m.__module__}.{m.__name__}"
        for m in models
    }


def schema_of(request: dict[str, Any], names: dict[str, str]) -> str | None:
    """The schema a request asked for: in its response_format, else in its prompt."""
    fmt = request.get("response_format") or {}
    schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
    if schema is None:
        text = request["messages"][-1]["content"]
        if "JSON schema:\n" not in text:
            return None
        schema = json.loads(text.rsplit("JSON schema:\n", 1)[1])
    return names.get(json.dumps(schema, sort_keys=True))


def _item_of(request: dict[str, Any]) -> str:
    """A short fingerprint of the prompt (tells replies to the same prompt apart)."""
    text = json.dumps(request.get("messages"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _facts_asked(request: dict[str, Any]) -> int | None:
    """How many facts a fact-labels judge listed in its prompt (None: not such a judge)."""
    text = str(request["messages"][-1]["content"])
    if "Facts to label:\n" not in text:
        return None
    listed = text.split("Facts to label:\n", 1)[1].split("\n\n", 1)[0]
    return sum(1 for line in listed.splitlines() if line.split(".", 1)[0].isdigit())


#: The evaluator that asks for each reply schema.
_EVALUATOR_OF = {
    "IntentRecord": "intent_resolution",
    "Facts": "bifact",
    "Assessment": "bifact",
    "Segmentation": "fingract",
    "ExplanationCheck": "fingract",
}


def replies_from_store(path: Path, names: dict[str, str]) -> list[dict[str, Any]]:
    """The entries for the replies in a store's LLM cache (a recording that was stopped,
    or a test run's database): the same fields, the evaluator told by the request."""
    import sqlite3

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT request, response FROM llm_cache ORDER BY created_at").fetchall()
    out: list[dict[str, Any]] = []
    for raw_request, raw_response in rows:
        request, response = json.loads(raw_request), json.loads(raw_response)
        if "messages" not in request or not response.get("texts"):
            continue  # the structured-output mode, not a reply
        fmt = request.get("response_format") or {}
        # the cache keys the schema the evaluator asked for; the mode sent is the reply's
        asked = fmt.get("json_schema") if isinstance(fmt, dict) else None
        schema = names.get(json.dumps(asked, sort_keys=True)) if asked else None
        if schema:
            evaluator = _EVALUATOR_OF.get(schema.rsplit(".", 1)[1], "judge")
        elif request.get("logprobs") or "sample:" in str(request.get("cache_salt", "")):
            evaluator = "geval"  # its samples ask for log-probabilities
        else:
            evaluator = "prometheus"
        texts = response["texts"]
        finishes = response.get("finish_reasons") or [None] * len(texts)
        for text, finish in zip(texts, finishes, strict=False):
            out.append(
                {
                    "evaluator": evaluator,
                    "item": _item_of(request),
                    "facts": _facts_asked(request),
                    "mode": response.get("output_mode") or "text",
                    "schema": schema,
                    "max_tokens": request.get("max_tokens"),
                    "finish_reason": finish,
                    "text": text,
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests/data/llm_replies/replies.json"))
    parser.add_argument("--items", type=int, default=3)
    parser.add_argument(
        "--from-store",
        nargs="+",
        type=Path,
        help="SQLite stores whose LLM cache holds the replies (no server is started)",
    )
    args = parser.parse_args()
    import llama_cpp

    spec = make_spec(port=free_port())
    names = schema_names()
    replies: list[dict[str, Any]] = []
    if args.from_store:
        for path in args.from_store:
            replies += replies_from_store(path, names)
        write(args.out, spec, llama_cpp.__version__, replies)
        return
    with (
        tempfile.TemporaryDirectory() as tmp,
        LocalServer(spec) as server,
        RecordingProxy(server.spec.base_url) as proxy,
        env(
            WORKBENCH_LLM_BASE_URL=proxy.base_url,
            WORKBENCH_LLM_MODEL=spec.alias,
            WORKBENCH_LLM_TIMEOUT="600",
            WORKBENCH_LLM_JSON_RETRIES="0",
        ),
    ):
        for mode in ("auto", "text"):
            store = fresh_store(Path(tmp), f"record_{mode}")
            with env(WORKBENCH_LLM_JSON_MODE=mode):
                for evaluator, project, settings in PARSE:
                    if mode == "text" and evaluator in ("geval", "prometheus"):
                        continue  # plain text in both modes: recorded once
                    start = len(proxy.exchanges)
                    ctx = build_context(store)
                    run_evaluator(
                        store, project, evaluator, runs=1, limit=args.items, settings=settings,
                        ctx=ctx,
                    )  # fmt: skip
                    for ex in proxy.exchanges[start:]:
                        if ex.probe or ex.status != 200:
                            continue
                        choice = ex.reply["choices"][0]
                        replies.append(
                            {
                                "evaluator": evaluator,
                                "item": _item_of(ex.request),
                                "facts": _facts_asked(ex.request),
                                "mode": ex.format or "text",
                                "schema": schema_of(ex.request, names),
                                "max_tokens": ex.request.get("max_tokens"),
                                "finish_reason": choice.get("finish_reason"),
                                "text": choice["message"]["content"],
                            }
                        )
            store.close()
    write(args.out, spec, llama_cpp.__version__, replies)


def write(out: str, spec: Any, version: str, replies: list[dict[str, Any]]) -> None:
    """The fixture: the model, the server and the replies."""
    command = spec.command(python="python")
    doc = {
        "model": spec.alias,
        "model_file": spec.model.name,
        "model_sha256": hashlib.sha256(spec.model.read_bytes()).hexdigest(),
        "server": f"llama-cpp-python {version}",
        # the command line, the model's path and the port (machine-specific) left out
        "server_command": [a for a in command if a not in (str(spec.model), str(spec.port))],
        "note": "Replies of a 135M model to the workbench's judges (bench/record_llm_replies.py)",
        "replies": replies,
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(replies)} replies written to {out}")


if __name__ == "__main__":
    main()
