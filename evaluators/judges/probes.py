"""Probe runs of a judge version: the same version asked in a perturbed way.

A probe run is stored against the version it probes (same name, version and prompt
hash; the signature's settings carry ``probe``), so the alignment view pairs it with the
version's plain runs and reports the share of decisions that changed:

- ``swap``: the kind's two texts exchanged (position bias), for kinds listed in
  :data:`evaluators.judges.spec.SWAPPABLE` (a declared kind's two-output pairwise
  question among them: a label naming an output is stored by content, see
  :func:`by_content`);
- ``reverse_options``: a ``label`` output's options listed in reverse order in the reply
  instructions (option-order bias); answers are still stored by the version's own order;
- ``inject:FAMILY``: an attack appended to the judged output (prompt injection, see
  :mod:`evaluators.judges.injection`); the run's ``attack`` setting holds its text.
"""

from __future__ import annotations

from evaluators.judges.injection import is_injection
from evaluators.judges.spec import SWAPPABLE, JudgeError, JudgeSpec, OutputSpec

#: Probe name -> what it perturbs (for help texts and the page).
PROBES: dict[str, str] = {
    "swap": "the two texts exchanged",
    "reverse_options": "the answer options in reverse order",
}
PROBE_KEY = "probe"


def check_probe(spec: JudgeSpec, probe: str | None) -> None:
    """JudgeError when ``probe`` is unknown or does not apply to the judge."""
    if probe is None:
        return
    if is_injection(probe) and len(probe) > len("inject:"):
        return
    if probe not in PROBES:
        raise JudgeError(f"unknown probe {probe!r} (choose from {', '.join(PROBES)})")
    if probe == "swap" and spec.kind not in SWAPPABLE:
        raise JudgeError(
            f"the swap probe needs a kind with two texts ({', '.join(SWAPPABLE)}, or a "
            "declared kind with a two-output pairwise question); "
            f"this judge scores {spec.kind!r}"
        )
    if probe == "reverse_options" and spec.output.type != "label":
        raise JudgeError(
            f"the reverse_options probe needs a 'label' output; this judge answers "
            f"{spec.output.type!r}"
        )


def probe_output(out: OutputSpec, probe: str | None) -> OutputSpec:
    """The output spec the reply instructions are written from (options reversed for
    the ``reverse_options`` probe; otherwise ``out`` itself)."""
    if probe != "reverse_options":
        return out
    return out.model_copy(update={"labels": list(reversed(out.labels))})


def by_content(kind: str, answer: object) -> object:
    """A label answer naming one of two exchanged fields, mapped back to the field whose
    text it named (a pairwise judge asked B then A that says ``answer_a`` chose the text
    of ``answer_b``); any other answer unchanged."""
    for a, b in SWAPPABLE.get(kind, ()):
        if answer == a:
            return b
        if answer == b:
            return a
    return answer
