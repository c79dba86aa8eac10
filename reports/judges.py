"""What a report says about custom judges: each version that produced results (so a
reader can rerun it exactly) and the worked-example items kept out of its figures."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from annotation_store import RunInfo, Store
from study_inputs.scores import FEW_SHOT_ITEM


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
        ("Output", settings_text(d["output"])),
        ("Sampling", settings_text(d["sampling"])),
        ("Swap texts", _word(d.get("swap_texts", False))),
        ("Worked examples", ", ".join(examples) or "none"),
        ("Saved", f"{j['created_at']}" + (f" by {j['created_by']}" if j.get("created_by") else "")),
    ]
    if d.get("system"):
        facts.append(("System message", d["system"].strip()))
    return facts


def settings_text(settings: Mapping[str, Any]) -> str:
    """A judge's output or sampling settings in words, every key with its value, in key
    order: ``aggregate: majority · max tokens: 600`` (not a JSON dict)."""
    return " · ".join(f"{k.replace('_', ' ')}: {_word(v)}" for k, v in sorted(settings.items()))


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


def exclusion_lines(meta: dict[str, Any]) -> str:
    """``judge:x (sig): 2 excluded: few-shot examples (a, b)`` per judge version, or 'none';
    an item left out for repeating an example's text says so after its id."""
    rows = meta.get("excluded") or []
    return (
        "; ".join(
            f"{r['evaluator']} ({r['signature']}): {r['n_excluded']} excluded: {r['reason']} "
            f"({', '.join(_item_why(i, r) for i in r['item_ids'])})"
            for r in rows
        )
        or "none"
    )


def _item_why(item_id: str, row: Mapping[str, Any]) -> str:
    why = (row.get("reasons") or {}).get(item_id)
    return item_id if why in (None, FEW_SHOT_ITEM) else f"{item_id}: {why}"
