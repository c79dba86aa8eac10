"""One stored evaluator result: scores, reasoning, per-fact labels, per-error tables, pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from audit.analysis import fact_fields, fact_grid
from evaluators.registry import get_evaluator_class
from kinds.base import TaskKind
from ui.audit.fact_grid import render_fact_grid

PageLookup = Callable[[str], Mapping[str, Any] | None]

#: Detail keys shown by dedicated views (the rest go to the raw "details" expander).
FACT_KEYS = ("gold_facts", "predicted_facts")
PAGE_KEYS = ("pages", "fetched", "links", "link_content", "fetched_pages")


def score_line(res: Mapping[str, Any]) -> str:
    """ "f1 0.67 · recall 0.5" (mean over runs when there are several).

    A score on the evaluator's own scale (BLEU's 0-100 for a 0/1 field) is named after
    the evaluator with that scale, not after the field as if it were a label.
    """
    scores = res.get("mean_scores") or res.get("scores") or {}
    title, scales = _own_scales(res.get("evaluator"))
    parts = [
        f"{title} **{_fmt(v)}** on {scales[k][0]:g}–{scales[k][1]:g} (for {k})"
        if k in scales
        else f"{k} **{_fmt(v)}**"
        for k, v in scores.items()
        if v is not None
    ]
    runs = res.get("n_runs") or 0
    suffix = f" (mean of {runs} runs)" if runs > 1 else ""
    return " · ".join(parts) + suffix if parts else "no score"


def _own_scales(name: Any) -> tuple[str, Mapping[str, tuple[float, float]]]:
    """The evaluator's title and declared score scales (none for unknown or imported)."""
    try:
        cls = get_evaluator_class(str(name))
    except Exception:  # imported scores name evaluators the registry does not know
        return str(name), {}
    return cls.title or cls.name, dict(cls.scales)


def _fmt(v: Any) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def render_result(
    res: Mapping[str, Any],
    kind: TaskKind,
    settings: Mapping[str, Any],
    item_fields: Mapping[str, Any],
    people: Mapping[str, Mapping[str, Any]],
    *,
    key: str,
    page_lookup: PageLookup | None = None,
) -> None:
    """Draw one result: score line, reasoning, Bi-Fact facts, FinGrAct tables, raw details."""
    meta = []
    if res.get("source") == "import":
        meta.append("imported")
    if res.get("cached"):
        meta.append("from cache")
    if res.get("model"):
        meta.append(str(res["model"]))
    if res.get("created_at") is not None:
        meta.append(f"{res['created_at']:%Y-%m-%d %H:%M}")
    if res.get("result_status") == "failed":
        st.error(f"Failed: {res.get('error') or 'no reason given'}", icon=":material/error:")
        if res.get("raw_reply"):
            with st.expander("Raw reply"):
                st.code(res["raw_reply"], language=None, wrap_lines=True)
    else:
        st.markdown(score_line(res))
    if meta:
        st.caption(" · ".join(meta))
    if res.get("reasoning"):
        st.markdown("**Reasoning**")
        st.markdown(str(res["reasoning"]))
    details = dict(res.get("details") or {})
    spread = sample_spread(details.get("samples"))
    if spread:
        st.caption(spread)
    if any(isinstance(details.get(facts), list) for _f, facts in fact_fields(kind, settings)):
        grid = fact_grid(kind, settings, item_fields, people, {res["label"]: details})
        render_fact_grid(grid, [res["label"]], key=f"{key}-facts")
    _render_tables(details, key)
    _render_pages(details, page_lookup)
    rest = {k: v for k, v in details.items() if k not in FACT_KEYS and k not in PAGE_KEYS}
    if rest or res.get("raw_reply"):
        with st.expander("All details"):
            if rest:
                st.json(rest, expanded=False)
            if res.get("raw_reply") and res.get("result_status") != "failed" and not spread:
                st.code(res["raw_reply"], language=None, wrap_lines=True)


def sample_spread(samples: Any) -> str | None:
    """Sampled grades (G-Eval's 20) counted, "20 samples: 3 ×6 · 4 ×14 (mean 3.70)", in
    place of twenty raw replies one under the other; None when there is nothing to count."""
    if not isinstance(samples, list) or len(samples) < 2:
        return None
    valid = [v for v in samples if isinstance(v, int | float) and not isinstance(v, bool)]
    counts = {v: valid.count(v) for v in sorted(set(valid))}
    parts = [f"{v:g} ×{n}" for v, n in counts.items()]
    unread = len(samples) - len(valid)
    if unread:
        parts.append(f"unreadable ×{unread}")
    mean = f" (mean {sum(valid) / len(valid):.2f})" if valid else ""
    return f"{len(samples)} samples: " + " · ".join(parts) + mean


def _render_tables(details: Mapping[str, Any], key: str) -> None:
    """Lists of records (FinGrAct's per-error findings ...) as tables."""
    for name, value in details.items():
        if name in FACT_KEYS or name in PAGE_KEYS:
            continue
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            st.markdown(f"**{name.replace('_', ' ').capitalize()}**")
            frame = pd.DataFrame([{k: _cell(v) for k, v in row.items()} for row in value])
            st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}-{name}")


def _render_pages(details: Mapping[str, Any], page_lookup: PageLookup | None) -> None:
    """Fetched link content (FinGrAct with the URL Content Retriever): status and text."""
    for name in PAGE_KEYS:
        value = details.get(name)
        if not value:
            continue
        records = list(value.values()) if isinstance(value, Mapping) else list(value)
        for rec in records:
            rec = rec if isinstance(rec, Mapping) else {"url": str(rec)}
            url = str(rec.get("url") or "link")
            status = rec.get("status")
            title = f"Link: {url}" + (f" (HTTP {status})" if status else "")
            with st.expander(title, icon=":material/link:"):
                if rec.get("error"):
                    st.warning(str(rec["error"]))
                text = rec.get("condensed") or rec.get("text") or rec.get("content")
                stored = page_lookup(url) if page_lookup is not None and not text else None
                if stored:
                    text = stored.get("text") or stored.get("content")
                if text:
                    st.caption(
                        "Content the judge saw" if rec.get("condensed") else "Fetched content"
                    )
                    st.text(str(text)[:5000])
                elif status is None and not rec.get("error"):
                    st.caption(
                        "Not fetched: this evaluator judged the link from the model's "
                        "knowledge (use fingract_ucr to fetch link content)."
                    )
                meta = {
                    k: rec[k]
                    for k in (
                        "final_url",
                        "content_type",
                        "fetched_at",
                        "truncated",
                        "condense_method",
                    )
                    if rec.get(k)
                }
                if meta:
                    st.json(meta, expanded=False)


def _cell(v: Any) -> Any:
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False)
    return v
