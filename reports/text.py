"""A readable plain-text rendering of the agreement document (the CLI without --json)."""

from __future__ import annotations

from typing import Any

from agreement.measures import BIAS, BINARY, EVALUATOR, NOTE, DetailEntry, Entry
from agreement.rows import evaluator_entries
from agreement.statistics import field_details, field_entries
from agreement.views import by_evaluator, variables, with_excluded
from reports.bias_text import own_match_text


def fmt(value: Any, digits: int = 3) -> str:
    """A number rounded for reading, '-' for undefined."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def field_lines(name: str, f: dict[str, Any]) -> list[str]:
    """Lines for one human field or derived score."""
    lines = [
        f"{name}  ({f['type']}, unit={f['unit']}): {f['n_items']} units, "
        f"{f['n_annotators']} annotators, {f['n_ratings']} ratings, "
        f"{f['n_pairable']} pairable"
    ]
    for e in field_entries(f):
        why = e.reason or ""
        ci = e.ci_text if e.ci else ""
        n = f"n {e.n_text}" if e.n is not None else ""
        lines.append(f"  {e.label:<32} {e.text:>7} {ci:<17} {n:<9} {why}".rstrip())
    return lines + [_detail_line(d) for d in field_details(f)]


def _detail_line(d: DetailEntry) -> str:
    """A declared detail of a field: its note, or its per-pair values (with n shared)."""
    if d.detail.kind == NOTE:
        return f"  {d.text}"
    if d.detail.n_key is None:
        return f"  {d.detail.label}: " + ", ".join(f"{p.pair} {fmt(p.value)}" for p in d.pairs)
    return f"  {d.detail.label} (n shared): " + ", ".join(
        f"{p.pair} {fmt(p.value)} ({p.n})" for p in d.pairs
    )


def _entry_text(x: Entry) -> str:
    p = f" (p={x.p_text})" if x.p is not None else ""
    return f"{x.measure.view.label} {x.text}{p} {x.ci_text if x.ci else ''}".rstrip()


def evaluator_lines(name: str, by_field: dict[str, Any]) -> list[str]:
    """Lines for one evaluator: every declared measure of its sections, with n."""
    lines = [f"{name}"]
    for fname, e in by_field.items():
        corr = evaluator_entries(e, EVALUATOR)
        why = next((x.reason for x in corr if x.reason), "")
        text = "  ".join(_entry_text(x) for x in corr)
        lines.append(f"  {fname}: n={e['n']} runs={e['n_runs']}  {text} {why}".rstrip())
        b = e.get("binary")
        if b:
            figures = " ".join(_entry_text(x) for x in evaluator_entries(e, BINARY))
            lines.append(
                f"    binary vs {b['against']} ({b['split']}, n={b['n']}): {figures} "
                f"{b.get('reason', '')}".rstrip()
            )
        bias = e.get("bias")
        if bias:
            counts = " ".join(
                f"{x.measure.view.header} {x.text}/{x.n}" for x in evaluator_entries(e, BIAS)
            )
            how = own_match_text(bias)
            lines.append(
                f"    bias (0-5, gap>=2): {counts}; Fisher p "
                f"{fmt(bias['fisher_p'], 4)} {bias.get('fisher_reason') or ''}".rstrip()
                + (f" ({how})" if how else "")
            )
    return lines


def alarms_text(doc: dict[str, Any]) -> list[str]:
    """The data-quality alarms, one line each, then a blank line (none: nothing)."""
    from agreement.alarms import alarm_lines

    found = alarm_lines(doc)
    if not found:
        return []
    return [
        f"data-quality alarms: {doc.get('alarm_summary', '')}",
        *(f"  ! {x}" for x in found),
        "",
    ]


def document_text(doc: dict[str, Any]) -> str:
    """The whole document as text."""
    lines = [f"project {doc['project']} ({doc['kind']})", ""]
    excluded = doc.get("exclusions")
    if excluded:
        from agreement.exclusions import exclusion_line

        lines += [exclusion_line(excluded) + " Figures below leave them out.", ""]
    lines += alarms_text(doc)
    for v in variables(doc):
        lines += field_lines(f"{v.name} [derived]" if v.derived else v.name, v.block) + [""]
    evaluators = by_evaluator(doc)
    if evaluators:
        lines.append("evaluators vs humans (CI: 95% bootstrap)")
        for name, by_field in evaluators.items():
            lines += evaluator_lines(name, by_field)
        lines.append("")
    for against, rows in doc.get("calibrated", {}).items():
        lines.append(f"calibrated binary comparison vs {against} (Bi-Fact Table 1)")
        lines.append(
            f"  {'evaluator':<28}{'score':<14}{'thr':>6}{'P':>8}{'R':>8}{'F1':>8}"
            f"{'kappa':>8}{'n':>7}"
        )
        for r in rows:
            lines.append(
                f"  {r['evaluator']:<28}{r['score_field']:<14}"
                f"{fmt(r['threshold'], 2):>6}{fmt(r['precision']):>8}"
                f"{fmt(r['recall']):>8}{fmt(r['f1']):>8}{fmt(r['kappa']):>8}"
                f"{r['n']:>7}"
            )
        lines.append("")
    if excluded:
        lines.append("with the excluded annotators' labels:")
        for v in variables(with_excluded(doc) or {}, derived=False):
            lines += field_lines(v.name, v.block) + [""]
    lines += [f"note: {n}" for n in doc.get("notes", [])]
    return "\n".join(lines).rstrip() + "\n"
