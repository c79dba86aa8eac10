"""An evaluation card: one judge version on one screen (or one Markdown file).

Read from a row of the alignment document: the headline agreement with its CI and n,
the alternative annotator test's verdict, the biases (position swap, option order,
length), the robustness figures (injection per attack family, self-preference, the bias
scan), the calibration under both definitions of ECE (P(yes) against the
human majority; Potato's confidence in its own answer against correctness), the
recalibrated figures and the cost. Every figure carries its n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agreement.judge_probes import length_bias_entry
from alignment.cost import UNKNOWN, cost_text, price_note
from alignment.frames import alt_test_n, fixed3, headline_name, recalibration_text
from alignment.inputs import AlignmentError


@dataclass(frozen=True)
class CardLine:
    """One figure of the card: what, the value in words, and its n (None: no count)."""

    name: str
    value: str
    n: int | str | None = None


@dataclass(frozen=True)
class EvaluationCard:
    """A version's card: title, verdict and sections of lines."""

    project: str
    field: str
    label: str
    verdict: str
    sections: dict[str, list[CardLine]] = field(default_factory=dict)


#: The cost of a version that called no model (imported or local scores).
NO_TOKENS = "none (no model tokens used)"


def _f(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _tokens(r: dict[str, Any]) -> str:
    """Mean tokens in / out per result as whole numbers (none without a model call)."""
    t_in, t_out = r.get("mean_tokens_in"), r.get("mean_tokens_out")
    if not t_in and not t_out:
        return NO_TOKENS
    return f"{t_in or 0:,.0f} / {t_out or 0:,.0f}"


def _ci(ci: list[float] | None) -> str:
    return f" [{fixed3(ci[0])}, {fixed3(ci[1])}]" if ci else ""


#: Probe keys inside the document's reasons, as the card says them (the JSON keeps keys).
PROBE_WORDS = {"reverse_options": "options-reversed"}


def _reason(text: str) -> str:
    for key, words in PROBE_WORDS.items():
        text = text.replace(key, words)
    return text


def _share(probe: dict[str, Any], missing: str) -> CardLine:
    if not probe.get("n"):
        return CardLine(missing, _reason(probe.get("reason") or "not measured"))
    return CardLine(
        missing, f"{_f(probe['changed'])}{_ci(probe.get('ci'))} of decisions changed", probe["n"]
    )


def ceiling_lines(hc: dict[str, Any]) -> list[CardLine]:
    """The human-ceiling test: z and its verdict, the judge's kappa, the people's pairs
    (their distribution) and the correlation filter, each with its n."""
    name = hc.get("kappa", "kappa")
    if not hc:
        return [CardLine("z", "not measured")]
    people, judge, corr = hc.get("people") or {}, hc.get("judge") or {}, hc.get("correlation") or {}
    ks = [x["kappa"] for x in people.get("pairs") or [] if x["kappa"] is not None]
    spread = (
        f"{_f(people['mean'])} ± {_f(people.get('sd'))} (range {min(ks):.3f} to {max(ks):.3f})"
        if ks
        else "—"
    )
    return [
        CardLine(
            f"z of the judge's {name} among the people's",
            f"{hc['z']:.2f}: {hc['verdict']}" if hc.get("z") is not None else hc.get("reason", "—"),
            hc.get("n"),
        ),
        CardLine(
            f"judge's mean {name} with each annotator",
            _f(judge.get("mean")),
            f"{len(judge.get('annotators') or [])} annotators",
        ),
        CardLine(
            f"annotator pairs' {name}: mean ± SD", spread, f"{people.get('n_pairs', 0)} pairs"
        ),
        CardLine(
            f"correlation filter (Pearson r ≥ {corr.get('min', 0.8):.2f})",
            _f(corr.get("r")) if corr.get("r") is not None else corr.get("reason", "—"),
            corr.get("n"),
        ),
    ]


def _figure(name: str, x: dict[str, Any] | None) -> CardLine:
    x = x or {}
    if x.get("value") is None:
        return CardLine(name, x.get("reason") or "not measured", x.get("n") or None)
    return CardLine(name, f"{_f(x['value'])}{_ci(x.get('ci'))}", x.get("n"))


def consistency_lines(sc: dict[str, Any]) -> list[CardLine]:
    """Flip rate, the judge's alpha among its own samples and the people's alpha (the
    ceiling for any judge-human figure), each with CI and n (items)."""
    level = (sc.get("people_alpha") or {}).get("level", "")
    return [
        _figure("flip rate (items whose samples differ)", sc.get("flip_rate")),
        _figure(f"judge's self-alpha among its samples ({level})", sc.get("self_alpha")),
        _figure(f"people's alpha ({level})", sc.get("people_alpha")),
    ]


def verdict(row: dict[str, Any]) -> str:
    """One sentence from the alternative annotator test."""
    alt = row["probes"].get("alt_test") or {}
    if alt.get("passed") is None:
        return f"No verdict: {alt.get('reason') or 'the alternative annotator test did not run'}."
    if alt["passed"]:
        return (
            f"Can stand in for an annotator (alt-test passes: ω = {alt['winning_rate']:.2f} "
            f"≥ 0.5, ε = {alt['epsilon']})."
        )
    return (
        f"Cannot stand in for an annotator yet (alt-test: ω = {alt['winning_rate']:.2f} < 0.5, "
        f"ε = {alt['epsilon']})."
    )


def evaluation_card(doc: dict[str, Any], label: str) -> EvaluationCard:
    """The card of the version labelled ``label`` (AlignmentError for an unknown one)."""
    rows = {r["label"]: r for r in doc["versions"]}
    if label not in rows:
        raise AlignmentError(f"no version {label!r} (choose from {list(rows)})")
    r = rows[label]
    p, h = r["probes"], r["headline"]
    alt, cal = p.get("alt_test") or {}, p.get("calibration") or {}
    own = cal.get("own_answer") or (cal if cal.get("definition", "").startswith("conf") else {})
    lb, ego = p.get("length_bias") or {}, p.get("ego_bias") or {}
    agreement = [
        CardLine(headline_name(h["name"]), f"{_f(h['value'])}{_ci(h.get('ci'))}", h.get("n")),
        CardLine("items compared", str(r["n"])),
        CardLine("items excluded (few-shot leakage)", str(r["excluded"]["n"])),
    ]
    if r.get("accuracy") is not None:
        agreement.append(CardLine("accuracy vs majority label", _f(r["accuracy"]), r["n"]))
    biases = [
        _share(p.get("position_swap") or {}, "position swap"),
        _share(p.get("option_order") or {}, "option order"),
        CardLine(
            "length bias (Spearman of residual with length)",
            _f(length_bias_entry(lb).value) if lb.get("n") else lb.get("reason", "—"),
            lb.get("n") or None,
        ),
    ]
    calibration = [
        CardLine(
            "ECE, P(yes) vs human majority",
            _f(cal.get("ece")) if "brier" in cal else cal.get("reason") or "not applicable",
            cal.get("n") if "brier" in cal else None,
        ),
        CardLine(
            "ECE, confidence in its own answer vs correctness (Potato)",
            _f(own.get("ece")) if own.get("n") else "no confidence given",
            own.get("n") or None,
        ),
        CardLine(
            "recalibrated (cross-fitted)",
            recalibration_text(p.get("recalibration") or {}) or "—",
            (p.get("recalibration") or {}).get("n"),
        ),
    ]
    alt_lines = [
        CardLine("winning rate ω", _f(alt.get("winning_rate")), alt_test_n(alt)),
        CardLine("advantage ρ", _f(alt.get("advantage"))),
    ]
    ceiling = ceiling_lines(p.get("human_ceiling") or {})
    consistency = consistency_lines(p.get("self_consistency") or {})
    unpriced = price_note(r)
    cost = [
        CardLine(
            "mean cost per result",
            unpriced or cost_text(r) or NO_TOKENS,
            r.get("n_results"),
        ),
        CardLine("total cost", UNKNOWN if unpriced else cost_text(r, "total_cost") or NO_TOKENS),
        CardLine("mean tokens in / out", _tokens(r)),
        CardLine("failure rate", _f(r.get("failure_rate")), r.get("n_results")),
    ]
    return EvaluationCard(
        doc["project"],
        doc["field"],
        label,
        verdict(r),
        {
            "Agreement with the people": agreement,
            "Alternative annotator test": alt_lines,
            "Human ceiling (Judge's Verdict)": ceiling,
            "Self-consistency": consistency,
            "Biases": biases,
            "Robustness": robustness_lines(p, ego),
            "Calibration": calibration,
            "Cost": cost,
            **({"Jury members": jury_lines(r["jury"])} if r.get("jury") else {}),
        },
    )


def robustness_lines(p: dict[str, Any], ego: dict[str, Any]) -> list[CardLine]:
    """Prompt injection per attack family (share of scores moved and mean shift, each with
    its interval and n), self-preference, then the bias scan, significant tests first."""
    from alignment.bias_scan import test_text

    inj = p.get("injection") or {}
    lines = []
    for f in inj.get("families") or []:
        name = f"injection: {f['family']} (scores moved; mean shift)"
        if not f["n"]:
            lines.append(CardLine(name, f["reason"]))
            continue
        shift = f["mean_shift"]
        sci = f" [{f['shift_ci'][0]:+.3f}, {f['shift_ci'][1]:+.3f}]" if f.get("shift_ci") else ""
        lines.append(
            CardLine(name, f"{_f(f['moved'])}{_ci(f['moved_ci'])}; {shift:+.3f}{sci}", f["n"])
        )
    if not lines:
        lines.append(CardLine("injection", inj.get("reason") or "not measured"))
    lines.append(
        CardLine(
            "ego-centric bias (over / under)",
            f"{ego['over']:g} / {ego['under']:g}" if "over" in ego else ego.get("reason", "—"),
        )
    )
    bs = p.get("bias_scan") or {}
    if not bs.get("tests"):
        return [*lines, CardLine("bias scan", bs.get("reason") or "not run", bs.get("n"))]
    sig = bs["significant"]
    lines.append(
        CardLine(
            f"bias scan ({bs['correction']}-corrected, α {bs['alpha']:g})",
            f"significant: {', '.join(sig)}" if sig else "nothing significant after correction",
            bs["n"],
        )
    )
    lines += [CardLine(f"bias: {t['column']}", test_text(t).split(": ", 1)[1], t["n"])
              for t in bs["tests"]]  # fmt: skip
    return lines


def jury_lines(j: dict[str, Any]) -> list[CardLine]:
    """The jury's figure, then each member's with its marginal gain (the jury's figure
    minus the jury's without it; for an error, the error it saves)."""
    lines = [CardLine(f"jury ({j['aggregate']}): {j['figure']}", _f(j["jury"]["value"]),
                      j["jury"]["n"])]  # fmt: skip
    for m in j["members"]:
        gain = "" if m["gain"] is None else f"; marginal gain {m['gain']:+.3f} (n {m['gain_n']})"
        value = _f(m["value"]) if m["value"] is not None else m.get("reason", "—")
        lines.append(CardLine(f"member {m['member']}", f"{value}{gain}", m["n"]))
    return lines


def card_markdown(card: EvaluationCard) -> str:
    """The card as Markdown (what ``alignment --card`` writes and the page shows)."""
    lines = [
        f"# Evaluation card: {card.label}",
        "",
        f"Project {card.project}, field {card.field}.",
        "",
        f"**Verdict.** {card.verdict}",
    ]
    for title, rows in card.sections.items():
        lines += ["", f"## {title}", "", "| figure | value | n |", "| --- | --- | --- |"]
        lines += [f"| {x.name} | {x.value} | {'' if x.n is None else x.n} |" for x in rows]
    return "\n".join(lines) + "\n"
