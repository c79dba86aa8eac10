"""Agreement reports as self-contained HTML, Markdown or JSON, with reliability CSVs beside.

Every report states the project, kind, guideline version, dataset hash (sha256 of the
items' canonical JSON), evaluator signatures and the date, and may carry a drill-down of
selected items (their fields, every annotator's labels and every evaluator output).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from agreement import AgreementDocument
from agreement.alarms import alarm_lines
from agreement.binary import flag_lines
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.exclusions import exclusion_line
from agreement.measures import NOTE, PAIRS, DetailEntry, Entry
from agreement.statistics import field_details, field_entries, statistics
from agreement.views import evaluator_names, variables, with_excluded
from annotation_store import Store
from common.csv_safe import to_csv
from common.notes import footnoted, once_each
from reports.data import with_alarms, with_everyone
from reports.estimates_section import estimates_html, estimates_lines
from reports.formats import FORMATS, format_of, portable_floats
from reports.judge_alignment import alignment_html, alignment_markdown
from reports.judges import exclusion_lines, judge_html, judge_lines, used_judges
from reports.measure_tables import (
    decision_header,
    decision_rows,
    evaluator_header,
    evaluator_notes,
    evaluator_rows,
    method_notes,
)
from reports.metaeval_data import with_metaeval
from reports.metaeval_section import metaeval_html, metaeval_markdown
from reports.methods import METHOD_NOTES
from reports.plotly_embed import figure_html, plotly_loader
from reports.run_notes import notes_text, run_notes
from reports.tables import cell, html_table, md_table
from reports.verdict import VERDICT_CSS, verdict_html, verdict_markdown, verdicts
from study_inputs.load import load_inputs

CI_TITLE = (
    "95% intervals (percentile bootstrap over units; ICC: pingouin's F-based intervals), "
    "n = units used of the field's units"
)


@dataclass
class Report:
    """What a report shows: the document, provenance, reliability matrices, drill-down."""

    document: AgreementDocument
    data: dict[str, Any]
    provenance: dict[str, Any]
    matrices: dict[str, pd.DataFrame] = field(default_factory=dict)
    drilldown: list[dict[str, Any]] = field(default_factory=list)
    #: Every custom judge version with runs in the project (definition, version, hash).
    judges: list[dict[str, Any]] = field(default_factory=list)
    #: The alignment document of the judge-scored field (probes, alt-test, calibration),
    #: computed by the caller (``alignment.report_section``); None leaves the section out.
    alignment: dict[str, Any] | None = None
    #: Judge-assisted estimates and plans per scored field (EstimateTable JSON), if made.
    estimates: list[dict[str, Any]] = field(default_factory=list)


def _drilldown(store: Store, name: str, item_ids: Sequence[str]) -> list[dict[str, Any]]:
    labels = store.annotations_frame(name, statuses=("draft", "submitted", "skipped"))
    out = []
    for item_id in item_ids:
        item = store.item(name, item_id)
        mine = labels[labels["item_id"] == item_id]
        out.append(
            {
                "item_id": item.item_id,
                "split": item.split,
                "generator": item.generator,
                "fields": item.fields,
                "labels": [
                    {
                        "annotator": r.annotator,
                        "field": r.field,
                        "value": r.value,
                        "status": r.status,
                    }
                    for r in mine.itertuples(index=False)
                ],
                "evaluator_outputs": [
                    {
                        "evaluator": r["evaluator"],
                        "signature": r["signature_text"],
                        "run_id": r["run_id"],
                        "status": r["result_status"],
                        "scores": r["scores"],
                        "reasoning": r["reasoning"],
                        "details": r["details"],
                        "error": r["error"],
                    }
                    for r in store.item_results(name, item_id)
                ],
            }
        )
    return out


def build_report(
    store: Store,
    name: str,
    *,
    item_ids: Sequence[str] | None = None,
    reference: pd.DataFrame | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    reference_method: str = "majority",
    alignment: dict[str, Any] | None = None,
) -> Report:
    """Compute the document and gather what the report states about it (``alignment``:
    the judge versions' alignment document, rendered as its own section)."""
    from agreement import build_document

    inputs = load_inputs(store, name, reference, reference_method=reference_method)
    options = {"n_resamples": n_resamples, "seed": seed}
    doc = with_everyone(build_document(inputs, **options), inputs, **options)
    doc = with_alarms(with_metaeval(doc, inputs, None, n_resamples, seed), inputs)
    data = doc.to_dict()
    provenance = {
        "project": name,
        "kind": doc.kind,
        "guideline_version": inputs.meta["guideline_version"],
        "dataset_hash": inputs.meta["dataset_hash"],
        "n_items": inputs.meta["n_items_total"],
        "n_gold_items": inputs.meta["n_gold_items"],
        "signatures": inputs.meta["signatures"],
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "reference_override": inputs.meta["reference_override"],
        **({"reference": inputs.meta["reference"]} if "reference" in inputs.meta else {}),
        **({"exclusions": exclusion_line(doc.exclusions)} if doc.exclusions else {}),
        "run_notes": run_notes(store, name),
        **({"excluded": ex} if (ex := inputs.meta.get("excluded")) else {}),
    }
    matrices = {k: v.ratings.frame() for k, v in doc.fields.items()}
    drill = _drilldown(store, name, item_ids) if item_ids else []
    judges = used_judges(store, store.runs(name))
    return Report(doc, data, provenance, matrices, drill, judges, alignment)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def render_json(report: Report) -> str:
    """The report as one JSON document."""
    doc = {
        "provenance": report.provenance,
        "agreement": portable_floats(report.data),  # computed figures; stored data as is
        "drilldown": report.drilldown,
        "judges": report.judges,
        **({"alignment": portable_floats(report.alignment)} if report.alignment else {}),
        **({"estimates": portable_floats(report.estimates)} if report.estimates else {}),
    }
    return json.dumps(
        doc,
        indent=2,
        ensure_ascii=False,
        default=_json_default,
        allow_nan=False,
    )


FIELD_HEADER = ["field", "type", "unit", "units", "annotators", "ratings", "pairable"]
STAT_HEADER = ["field", "statistic", "value", "95% CI", "n / units", "note"]


def field_sections(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, block) of every human field, then every derived score, of a document."""
    return [(v.name, v.block) for v in variables(data)]


def _field_rows(data: dict[str, Any]) -> list[list[Any]]:
    return [
        [
            name,
            f["type"],
            f["unit"],
            f["n_items"],
            f["n_annotators"],
            f["n_ratings"],
            f["n_pairable"],
        ]
        for name, f in field_sections(data)
    ]


def statistic_rows(data: dict[str, Any]) -> list[list[Any]]:
    """One row per field and declared statistic that applies to it, CI and n beside."""
    return [
        [name, e.label, e.text, e.ci_text, _n_text(e, f), e.reason or ""]
        for name, f in field_sections(data)
        for e in field_entries(f)
    ]


def _n_text(e: Entry, f: dict[str, Any]) -> str:
    """The entry's n; for a mean over annotator pairs that stores none (Cohen mean), the
    pairs it averages: those with a value that share enough items."""
    if e.n is not None or e.value is None:
        return e.n_text
    key = e.measure.key
    d = next(
        (d for d in field_details(f, PAIRS) if d.measure.key == key and d.few is not None), None
    )
    if d is None:
        return e.n_text
    kept = [p for p in d.pairs if p.value is not None and p.pair not in d.few]
    return f"{len(kept)} pair" + ("" if len(kept) == 1 else "s")


def statistic_table(data: dict[str, Any]) -> tuple[list[list[Any]], list[str]]:
    """:func:`statistic_rows` with every note shared by several rows moved under the
    table (``note 1`` in the cells), so a reason is stated once."""
    return footnoted(statistic_rows(data), STAT_HEADER.index("note"))


def field_notes(data: dict[str, Any], charted: Sequence[str] = ()) -> list[str]:
    """Notes that belong to no single table cell: which items each Fleiss' kappa uses,
    label lists left out, per-pair reasons; each once, with the fields it concerns.

    Per-pair reasons name the detail and the pair in words; a pair left out for sharing
    too few items is not explained twice. ``charted``: fields whose pair chart is drawn
    with its own caption on the pairs left out (the Agreement page), so the note is not."""
    declared = {s.key for s in statistics()}
    out: list[tuple[str, str]] = []
    for name, f in field_sections(data):
        out += [(name, _note_text(d)) for d in field_details(f) if d.detail.in_notes]
        few = {p for d in field_details(f) for p in d.few or ()}
        for key, why in f.get("reasons", {}).items():
            if not why or key.split(".")[0] in declared:
                continue
            named = _reason_subject(key)
            if named is None:
                out.append((f"{name} / {key}", why))
                continue
            subject, pair, is_few = named
            if pair in few or (is_few and name in charted):
                continue  # said once: in the few-pairs note, or under the chart
            where = f"{subject}, {_pair_words(pair)}" if pair else subject
            out.append((f"{name} / {where}", _pair_words(why)))
    return once_each(out, "fields")


def _pair_words(text: str) -> str:
    """Annotator pairs as people read them: ``a & b``, not the key ``a|b``."""
    return text.replace("|", " & ")


def _reason_subject(key: str) -> tuple[str, str | None, bool] | None:
    """A declared detail's reason key (``detail.pair`` or the detail's few-pairs key) as
    (its heading, the pair or None, whether it is the few-pairs note); None for others."""
    base, _, pair = key.partition(".")
    for stat in statistics():
        for d in stat.view.details:
            heading = d.long or f"{stat.view.details[0].heading}, {d.label}"
            if d.key == base:
                return heading, pair or None, False
            if d.few_key == key:
                return heading, None, True
    return None


def _note_text(d: DetailEntry) -> str:
    """A declared detail as a field note: its sentence, or its pairs with n shared."""
    if d.detail.kind == NOTE:
        return str(d.text)
    return f"{d.detail.heading} (n shared items): " + ", ".join(
        f"{_pair_words(p.pair)} {cell(p.value)} ({p.n})" for p in d.pairs
    )


def _method_notes() -> list[tuple[str, str]]:
    return list(METHOD_NOTES) + method_notes()


REFERENCE_NAMES = {"dawid_skene": "Dawid-Skene", "mace": "MACE"}


def _reference_text(p: dict[str, Any]) -> str:
    if p.get("reference") not in REFERENCE_NAMES:
        return "adjudicated override" if p["reference_override"] else "human mean / majority"
    base = f"labels aggregated by {REFERENCE_NAMES[p['reference']]} on nominal fields"
    return f"adjudicated override, else {base}" if p["reference_override"] else base


def _items_text(p: dict[str, Any]) -> str:
    """The items annotated, and the gold items the figures leave out (if any)."""
    n_gold = p.get("n_gold_items", 0)
    if not n_gold:
        return str(p["n_items"])
    return f"{p['n_items']} (and {n_gold} gold check item{'' if n_gold == 1 else 's'}, left out)"


def _provenance_lines(p: dict[str, Any]) -> list[tuple[str, str]]:
    sigs = "; ".join(f"{s['signature']} (runs {s['runs']})" for s in p["signatures"]) or "none"
    return [
        ("Project", f"{p['project']} ({p['kind']})"),
        ("Guideline version", str(p["guideline_version"])),
        ("Dataset hash (sha256)", p["dataset_hash"]),
        ("Items", _items_text(p)),
        ("Evaluator signatures", sigs),
        ("Date", p["date"]),
        ("Reference", _reference_text(p)),
        *([("Excluded annotators", p["exclusions"])] if p.get("exclusions") else []),
        ("Evaluator settings and run notes", notes_text(p.get("run_notes", []))),
        ("Items left out of a judge version's figures", exclusion_lines(p)),
    ]


def _excluded_text(d: dict[str, Any]) -> str:
    return (
        exclusion_line(d["exclusions"])
        + " The figures above leave them out; these include their labels."
    )


def render_markdown(report: Report, csv_names: dict[str, str] | None = None) -> str:
    """The report as Markdown."""
    d = report.data
    lines = [f"# Agreement report: {report.provenance['project']}", ""]
    lines += verdict_markdown(verdicts(report.alignment, d))
    lines += [f"- **{k}**: {v}" for k, v in _provenance_lines(report.provenance)]
    lines += ["", "## Agreement among annotators", ""] + md_table(FIELD_HEADER, _field_rows(d))
    stat_rows, stat_notes = statistic_table(d)
    lines += ["", f"Statistics with {CI_TITLE}:", ""] + md_table(STAT_HEADER, stat_rows)
    notes = stat_notes + field_notes(d)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    lines += _md_alarms(d)
    if d.get("exclusions"):
        everyone = with_excluded(d) or {}
        lines += ["", "## With the excluded annotators", "", _excluded_text(d), ""]
        lines += md_table(FIELD_HEADER, _field_rows(everyone))
        stat_rows, stat_notes = statistic_table(everyone)
        lines += ["", ""] + md_table(STAT_HEADER, stat_rows)
        lines += ["", *(f"- {n}" for n in stat_notes)] if stat_notes else []
    if evaluator_names(d):
        lines += ["", "## Evaluators vs humans", ""] + md_table(
            evaluator_header(), evaluator_rows(d)
        )
    for against, rows in d.get("calibrated", {}).items():
        lines += ["", f"## Calibrated binary comparison vs `{against}` (Bi-Fact Table 1)", ""]
        lines += md_table(decision_header(), decision_rows(rows))
        flags = [f"- ⚠ {w}" for w in flag_lines(rows)]
        lines += ["", *flags] if flags else []
    notes = evaluator_notes(d)
    if notes:
        lines += ["", "Why some evaluator figures are empty:", ""] + [f"- {n}" for n in notes]
    if csv_names:
        lines += ["", "## Reliability matrices (items x annotators)", ""]
        lines += [f"- {k}: `{v}`" for k, v in csv_names.items()]
    lines += judge_lines(report.judges)
    lines += alignment_markdown(report.alignment)
    lines += estimates_lines(report.estimates)
    lines += metaeval_markdown(d.get("metaeval"))
    lines += _md_drilldown(report.drilldown)
    lines += ["", "## Method notes", ""] + [f"- **{t}**: {x}" for t, x in _method_notes()]
    return "\n".join(lines) + "\n"


def _md_alarms(d: dict[str, Any]) -> list[str]:
    """The data-quality alarms section (nothing when there is none)."""
    found = alarm_lines(d)
    if not found:
        return []
    return [
        "",
        "## Data-quality alarms",
        "",
        f"{d.get('alarm_summary', '')}.",
        "",
        *(f"- ⚠ {line}" for line in found),
    ]


def _html_alarms(d: dict[str, Any]) -> str:
    """The data-quality alarms section ("" when there is none)."""
    found = alarm_lines(d)
    if not found:
        return ""
    summary = html.escape(str(d.get("alarm_summary", "")))
    return (
        f"<h2>Data-quality alarms</h2><p>{summary}.</p><details><summary>All "
        f"{len(found)} alarms</summary>{_html_list(found)}</details>"
    )


def _md_drilldown(items: list[dict[str, Any]]) -> list[str]:
    if not items:
        return []
    lines = ["", "## Selected items", ""]
    for it in items:
        lines += [
            f"### {it['item_id']}",
            "",
            "```json",
            json.dumps(it["fields"], indent=2, ensure_ascii=False, default=str),
            "```",
            "",
        ]
        lines += md_table(
            ["annotator", "field", "value", "status"],
            [
                [r["annotator"], r["field"], json.dumps(r["value"]), r["status"]]
                for r in it["labels"]
            ],
        )
        for o in it["evaluator_outputs"]:
            lines += [
                "",
                f"- **{o['evaluator']}** ({o['signature']}, run {o['run_id']}, "
                f"{o['status']}): scores {json.dumps(o['scores'])}",
            ]
            if o.get("reasoning"):
                lines.append(f"  - reasoning: {o['reasoning']}")
            if o.get("error"):
                lines.append(f"  - error: {o['error']}")
        lines.append("")
    return lines


def _html_list(items: Sequence[str]) -> str:
    if not items:
        return ""
    return "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in items) + "</ul>"


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}td,th{border:1px solid #ccc;
padding:.3em .6em;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}
dt{font-weight:600}pre{background:#f7f7f7;padding:.6em;overflow:auto}"""


def render_html(report: Report, csv_names: dict[str, str] | None = None) -> str:
    """The report as one self-contained HTML page (plotly.js embedded once, at the end)."""
    from reports.figures import document_figures

    d = report.data
    p = report.provenance
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Agreement report: "
        f"{html.escape(p['project'])}</title><style>{CSS}{VERDICT_CSS}</style></head><body>",
        f"<h1>Agreement report: {html.escape(p['project'])}</h1>",
        verdict_html(verdicts(report.alignment, d)),
        "<dl>",
    ]
    parts += [
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in _provenance_lines(p)
    ]
    parts.append("</dl><h2>Agreement among annotators</h2>")
    parts.append(html_table(FIELD_HEADER, _field_rows(d)))
    parts.append(f"<p>Statistics with {html.escape(CI_TITLE)}:</p>")
    stat_rows, stat_notes = statistic_table(d)
    parts.append(html_table(STAT_HEADER, stat_rows))
    parts.append(_html_list(stat_notes + field_notes(d)))
    parts.append(_html_alarms(d))
    if d.get("exclusions"):
        everyone = with_excluded(d) or {}
        parts += [
            "<h2>With the excluded annotators</h2>",
            f"<p>{html.escape(_excluded_text(d))}</p>",
            html_table(FIELD_HEADER, _field_rows(everyone)),
            html_table(STAT_HEADER, statistic_table(everyone)[0]),
            _html_list(statistic_table(everyone)[1]),
        ]
    if evaluator_names(d):
        parts += [
            "<h2>Evaluators vs humans</h2>",
            html_table(evaluator_header(), evaluator_rows(d)),
        ]
    for against, rows in d.get("calibrated", {}).items():
        parts += [
            f"<h2>Calibrated binary comparison vs {html.escape(against)} (Bi-Fact Table 1)</h2>",
            html_table(decision_header(), decision_rows(rows)),
        ]
        parts += [f"<p class='flag'>⚠ {html.escape(w)}</p>" for w in flag_lines(rows)]
    parts.append(_html_list(evaluator_notes(d)))
    parts.append("<h2>Figures</h2>")
    figures = document_figures(report.document, d)
    for i, (_, fig) in enumerate(figures):
        parts.append(figure_html(fig, f"figure-{i + 1}"))
    parts.append(alignment_html(report.alignment))
    if csv_names:
        parts.append(
            "<h2>Reliability matrices (items x annotators)</h2><ul>"
            + "".join(
                f"<li>{html.escape(k)}: <code>{html.escape(v)}</code></li>"
                for k, v in csv_names.items()
            )
            + "</ul>"
        )
    parts.append(judge_html(report.judges))
    parts.append(estimates_html(report.estimates))
    parts.append(metaeval_html(d.get("metaeval")))
    if report.drilldown:
        parts.append("<h2>Selected items</h2>")
        for it in report.drilldown:
            parts.append(
                f"<h3>{html.escape(it['item_id'])}</h3><pre>"
                + html.escape(json.dumps(it["fields"], indent=2, ensure_ascii=False, default=str))
                + "</pre>"
            )
            parts.append(
                html_table(
                    ["annotator", "field", "value", "status"],
                    [
                        [r["annotator"], r["field"], json.dumps(r["value"]), r["status"]]
                        for r in it["labels"]
                    ],
                )
            )
            parts.append(
                html_table(
                    ["evaluator", "signature", "run", "status", "scores", "reasoning / error"],
                    [
                        [
                            o["evaluator"],
                            o["signature"] or "",
                            str(o["run_id"]),
                            o["status"],
                            json.dumps(o["scores"]),
                            o.get("reasoning") or o.get("error") or "",
                        ]
                        for o in it["evaluator_outputs"]
                    ],
                )
            )
    parts.append(
        "<h2>Method notes</h2><dl>"
        + "".join(f"<dt>{html.escape(t)}</dt><dd>{html.escape(x)}</dd>" for t, x in _method_notes())
        + "</dl>"
    )
    parts.append(plotly_loader() + "</body></html>")
    return "\n".join(parts)


def render_report(report: Report, fmt_: str, csv_names: dict[str, str] | None = None) -> str:
    """Render as ``html``, ``md`` or ``json``."""
    if fmt_ == "html":
        return render_html(report, csv_names)
    if fmt_ == "md":
        return render_markdown(report, csv_names)
    if fmt_ == "json":
        return render_json(report)
    raise ValueError(f"unknown report format {fmt_!r} (use one of {FORMATS})")


def csv_path(out: Path, field_name: str) -> Path:
    """Where the reliability matrix of a field goes: FILE stem + .reliability_<field>.csv."""
    return out.with_name(f"{out.stem}.reliability_{field_name}.csv")


def write_report(report: Report, out: str | Path, fmt_: str | None = None) -> list[Path]:
    """Write the report and one reliability CSV per field beside it (making missing
    folders); returns the paths."""
    out = Path(out)
    kind = format_of(out, fmt_)
    if kind not in FORMATS:
        raise ValueError(
            f"cannot tell the report format from {out.name!r}: use --format {'/'.join(FORMATS)}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    written = []
    names = {}
    for name, frame in report.matrices.items():
        path = csv_path(out, name)
        to_csv(frame, path, index=True)
        names[name] = path.name
        written.append(path)
    out.write_text(render_report(report, kind, names), encoding="utf-8")
    return [out, *written]
