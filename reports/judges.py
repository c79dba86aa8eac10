"""What a report says about custom judges: each version that produced results (so a
reader can rerun it exactly) and the worked-example items kept out of its figures."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from annotation_store import RunInfo, Store

#: Why an item's score is left out of a judge version's agreement figures.
FEW_SHOT_REASON = "few-shot examples"


def few_shot_exclusions(runs: Sequence[RunInfo]) -> dict[str, dict[str, Any]]:
    """Signature text -> the worked-example item ids of that judge version (from the
    signature's ``few_shot_item_ids`` setting); signatures without any are left out."""
    out: dict[str, dict[str, Any]] = {}
    for run in runs:
        settings = (run.signature or {}).get("settings") or {}
        ids = [str(i) for i in settings.get("few_shot_item_ids") or []]
        if ids and run.signature_text:
            out[run.signature_text] = {"evaluator": run.evaluator, "item_ids": ids}
    return out


def used_judges(store: Store, runs: Sequence[RunInfo]) -> list[dict[str, Any]]:
    """Every judge version with runs in the project, oldest first, in the form of
    ``JudgeRecord.to_dict`` (template, output, sampling, examples, version, prompt hash)."""
    from annotation_store import StoreError

    seen: dict[tuple[str, int], dict[str, Any]] = {}
    for run in sorted(runs, key=lambda r: r.id):
        if not run.evaluator.startswith("judge:"):
            continue
        sig = run.signature or {}
        name, version = run.evaluator[len("judge:") :], str(sig.get("version") or "")
        if not version.isdigit() or (name, int(version)) in seen:
            continue
        try:
            seen[(name, int(version))] = store.judge(name, int(version)).to_dict()
        except StoreError:  # results imported from another database
            seen[(name, int(version))] = {"name": name, "version": int(version), "missing": True}
    return list(seen.values())


def judge_lines(judges: Sequence[dict[str, Any]]) -> list[str]:
    """The Markdown section (empty when no judge ran)."""
    if not judges:
        return []
    lines = ["", "## Judge definitions", ""]
    for j in judges:
        lines.append(f"### judge:{j['name']} version {j['version']}")
        lines.append("")
        if j.get("missing"):
            lines += ["Not in this database (results imported).", ""]
            continue
        lines += [f"- **{k}**: {v}" for k, v in _facts(j)]
        lines += ["", "```jinja", j["definition"]["template"].strip(), "```", ""]
    return lines


def judge_html(judges: Sequence[dict[str, Any]]) -> str:
    """The HTML section (empty when no judge ran)."""
    if not judges:
        return ""
    parts = ["<h2>Judge definitions</h2>"]
    for j in judges:
        parts.append(f"<h3>judge:{html.escape(j['name'])} version {j['version']}</h3>")
        if j.get("missing"):
            parts.append("<p>Not in this database (results imported).</p>")
            continue
        parts.append(
            "<dl>"
            + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in _facts(j))
            + "</dl>"
        )
        parts.append(f"<pre>{html.escape(j['definition']['template'].strip())}</pre>")
    return "\n".join(parts)


def _facts(j: dict[str, Any]) -> list[tuple[str, str]]:
    d = j["definition"]
    examples = [e["item_id"] for e in (d.get("few_shot") or {}).get("examples") or []]
    facts = [
        ("Kind and fields", f"{j['kind']}: {', '.join(d['fields'])}"),
        ("Prompt hash", j["prompt_hash"]),
        ("Output", json.dumps(d["output"], sort_keys=True)),
        ("Sampling", json.dumps(d["sampling"], sort_keys=True)),
        ("Swap texts", str(d.get("swap_texts", False))),
        ("Worked examples", ", ".join(examples) or "none"),
        ("Saved", f"{j['created_at']}" + (f" by {j['created_by']}" if j.get("created_by") else "")),
    ]
    if d.get("system"):
        facts.append(("System message", d["system"].strip()))
    return facts


def exclusion_lines(meta: dict[str, Any]) -> str:
    """``judge:x (sig): 2 excluded: few-shot examples (a, b)`` per judge version, or 'none'."""
    rows = meta.get("excluded") or []
    return (
        "; ".join(
            f"{r['evaluator']} ({r['signature']}): {r['n_excluded']} excluded: {r['reason']} "
            f"({', '.join(r['item_ids'])})"
            for r in rows
        )
        or "none"
    )
