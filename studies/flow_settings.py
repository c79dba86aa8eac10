"""A project's study flow settings (kept under ``settings["study"]``), read and checked.

The flow: optional consent -> guideline -> training with feedback and a qualification
threshold -> annotation (gold items mixed in) -> optional survey -> completion code.
Every key is optional; an empty study is the plain annotation page.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation_store.store import Store
from annotation_store.store_projects import StoreError

PLATFORMS = ("prolific", "mturk")
SURVEY_TYPES = ("text", "likert")
DEFAULTS: dict[str, Any] = {
    "crowd": False,
    "token": "",
    "consent": "",
    "training": [],
    "qualification": 0.0,
    "gold_rate": 0.0,
    "gold_threshold": 0.0,
    "gold_min": 1,
    "gold_stop": False,
    "speeder_share": 0.0,
    "survey": [],
    "completion_code": "",
    "completion_url": "",
    "screenout_code": "",
    "full_code": "",
    "max_skips": None,
    "hourly_rate": 0.0,
    "idle_seconds": 60,
    "mturk_sandbox": False,
}
SHARES = ("qualification", "gold_rate", "gold_threshold", "speeder_share")


class StudyError(StoreError):
    """Study settings that cannot be used; the message names the key."""


@dataclass(frozen=True)
class TrainingItem:
    """A practice item: what is shown, the gold answers and why they are right."""

    id: str
    fields: dict[str, Any]
    answers: dict[str, Any]
    explanation: str = ""


@dataclass(frozen=True)
class SurveyQuestion:
    """A post-study question: free text, or a Likert scale from ``low`` to ``high``."""

    id: str
    text: str
    type: str = "text"
    low: int = 1
    high: int = 5


@dataclass(frozen=True)
class StudySettings:
    """The study flow of one project."""

    crowd: bool = False
    token: str = ""
    consent: str = ""
    training: tuple[TrainingItem, ...] = ()
    qualification: float = 0.0
    gold_rate: float = 0.0
    gold_threshold: float = 0.0
    gold_min: int = 1
    gold_stop: bool = False
    speeder_share: float = 0.0
    survey: tuple[SurveyQuestion, ...] = ()
    completion_code: str = ""
    completion_url: str = ""
    #: Prolific's screen-out code: workers who fail the training or are stopped by gold
    #: checks get it (paid the screen-out rate) instead of being asked to return.
    screenout_code: str = ""
    #: The code of the "study full" ending (none: one per worker, keyed like completion).
    full_code: str = ""
    #: How many items a worker may skip (None: any number, 0: no Skip button). Skips never
    #: count toward the quota either way.
    max_skips: int | None = None
    hourly_rate: float = 0.0
    #: Input-free seconds after which the rest of a pause stops counting as active time.
    idle_seconds: int = 60
    #: MTurk's sandbox (test HITs, no pay) rather than production: where a finished
    #: assignment is posted. Set here only: a study link cannot choose it.
    mturk_sandbox: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """True when any part of the flow differs from plain annotation."""
        return bool(self.crowd or self.consent or self.training or self.survey)


def _share(raw: Mapping[str, Any], key: str) -> float:
    value = raw.get(key, DEFAULTS[key])
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise StudyError(f"study {key!r} must be a number from 0 to 1, got {value!r}")
    return float(value)


def _text(raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key, DEFAULTS[key])
    if value is None:
        return ""
    if not isinstance(value, str):
        raise StudyError(f"study {key!r} must be text, got {value!r}")
    return value


def _training(raw: Any) -> tuple[TrainingItem, ...]:
    if not isinstance(raw, list):
        raise StudyError("study 'training' must be a list of items")
    out, seen = [], set()
    for n, entry in enumerate(raw, 1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("answers"), Mapping):
            raise StudyError(f"training item {n} needs 'answers' (field -> gold value)")
        tid = str(entry.get("id") or f"t{n}")
        if tid in seen:
            raise StudyError(f"training item id {tid!r} is used twice")
        seen.add(tid)
        fields = entry.get("fields") or {}
        if not isinstance(fields, Mapping):
            raise StudyError(f"training item {tid!r}: 'fields' must be an object")
        out.append(
            TrainingItem(
                tid, dict(fields), dict(entry["answers"]), str(entry.get("explanation", ""))
            )
        )
    return tuple(out)


def _survey(raw: Any) -> tuple[SurveyQuestion, ...]:
    if not isinstance(raw, list):
        raise StudyError("study 'survey' must be a list of questions")
    out = []
    for n, entry in enumerate(raw, 1):
        if not isinstance(entry, Mapping) or not str(entry.get("text", "")).strip():
            raise StudyError(f"survey question {n} needs a 'text'")
        kind = entry.get("type", "text")
        if kind not in SURVEY_TYPES:
            raise StudyError(f"survey question {n}: type must be one of {SURVEY_TYPES}")
        low, high = entry.get("low", 1), entry.get("high", 5)
        if not (isinstance(low, int) and isinstance(high, int) and low < high):
            raise StudyError(f"survey question {n}: 'low' < 'high' must be whole numbers")
        out.append(SurveyQuestion(str(entry.get("id") or f"q{n}"), entry["text"], kind, low, high))
    return tuple(out)


def parse_study(raw: Mapping[str, Any] | None) -> StudySettings:
    """Read study settings (raises :class:`StudyError` with a one-line reason)."""
    raw = dict(raw or {})
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise StudyError(f"unknown study setting {unknown[0]!r}")
    for key in ("crowd", "gold_stop", "mturk_sandbox"):
        if not isinstance(raw.get(key, False), bool):
            raise StudyError(f"study {key!r} must be true or false")
    gold_min = raw.get("gold_min", 1)
    if isinstance(gold_min, bool) or not isinstance(gold_min, int) or gold_min < 1:
        raise StudyError("study 'gold_min' must be a whole number >= 1")
    rate = raw.get("hourly_rate", 0.0)
    if isinstance(rate, bool) or not isinstance(rate, int | float) or rate < 0:
        raise StudyError("study 'hourly_rate' must be a number >= 0")
    idle = raw.get("idle_seconds", 60)
    if isinstance(idle, bool) or not isinstance(idle, int) or not 5 <= idle <= 3600:
        raise StudyError("study 'idle_seconds' must be a whole number from 5 to 3600")
    url = _text(raw, "completion_url")
    if url and not url.startswith(("https://", "http://")):
        raise StudyError("study 'completion_url' must start with https://")
    screenout = _text(raw, "screenout_code").strip()
    if screenout and screenout == _text(raw, "completion_code").strip():
        raise StudyError("study 'screenout_code' must differ from 'completion_code'")
    full = _text(raw, "full_code").strip()
    if full and full in (_text(raw, "completion_code").strip(), screenout):
        raise StudyError("study 'full_code' must differ from the completion and screen-out codes")
    skips = raw.get("max_skips")
    if skips is not None and (isinstance(skips, bool) or not isinstance(skips, int) or skips < 0):
        raise StudyError("study 'max_skips' must be a whole number >= 0 (or null: no cap)")
    return StudySettings(
        crowd=raw.get("crowd", False),
        token=_text(raw, "token"),
        consent=_text(raw, "consent"),
        training=_training(raw.get("training", [])),
        **{key: _share(raw, key) for key in SHARES},
        gold_min=gold_min,
        gold_stop=raw.get("gold_stop", False),
        survey=_survey(raw.get("survey", [])),
        completion_code=_text(raw, "completion_code"),
        completion_url=url,
        screenout_code=screenout,
        full_code=full,
        max_skips=skips,
        hourly_rate=float(rate),
        idle_seconds=idle,
        mturk_sandbox=raw.get("mturk_sandbox", False),
    )


def answers_match(given: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """True when every gold field has the same value in ``given``."""
    for name, value in gold.items():
        got = given.get(name)
        if isinstance(value, int | float) and isinstance(got, int | float):
            if abs(float(got) - float(value)) > 1e-9:
                return False
        elif isinstance(value, dict) and isinstance(got, dict):
            # a pairwise answer: the choice counts, not the order it was shown in; a
            # strength only when the gold answer names one
            if got.get("choice") != value.get("choice") or (
                value.get("strength") is not None and got.get("strength") != value["strength"]
            ):
                return False
        elif got != value:
            return False
    return True


def study_of(project_settings: Mapping[str, Any]) -> StudySettings:
    """The study of a project from its settings (bad stored values: no study)."""
    try:
        return parse_study(project_settings.get("study"))
    except StudyError:
        return StudySettings()


def check_training_answers(store: Store, project: str, study: StudySettings) -> None:
    """Every training answer must be a valid value of one of the kind's fields."""
    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    for t in study.training:
        for name, value in t.answers.items():
            if name not in fields:
                raise StudyError(f"training item {t.id!r}: no field {name!r} in this kind")
            try:
                fields[name].validate(value, t.fields)
            except ValueError as exc:
                raise StudyError(f"training item {t.id!r}, field {name!r}: {exc}") from None


def set_study(store: Store, project: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check and store a project's study settings; a crowd study without a token keeps the
    one it had, or gets a new one.

    Returns the stored settings. Nothing is written when they are refused.
    """
    raw = dict(raw)
    study = parse_study(raw)
    check_training_answers(store, project, study)
    if study.crowd and not study.token:  # keep the token links already carry
        raw["token"] = get_study(store, project).get("token") or secrets.token_urlsafe(18)
    info = store.project(project)
    store.update_settings(project, {**info.settings, "study": raw})
    return raw


def _example_answer(f: Any) -> Any:
    """A valid value of human field ``f`` for the example training item."""
    if f.type == "fact_labels":
        return ["C"]
    if f.values:
        return f.values[-1]
    return f.maximum if f.maximum is not None else 1


def example_study(store: Store, project: str) -> dict[str, Any]:
    """Study settings to start from, shaped by the project's kind: the training item has
    the kind's item fields and an answer to its first field (one that is not fact labels
    where there is one). Saving it as is is accepted; the texts are placeholders."""
    info = store.project(project)
    kind = info.task_kind
    fields = {f.name: f"<{f.description or f.name}>" for f in kind.item_fields if f.required}
    human = kind.human_fields(info.settings)
    answered = next((f for f in human if f.type != "fact_labels"), human[0])
    return {
        "crowd": True,
        "consent": "Your answers are stored for research. Do you agree?",
        "training": [
            {
                "id": "t1",
                "fields": fields,
                "answers": {answered.name: _example_answer(answered)},
                "explanation": "Why this is the answer.",
            }
        ],
        "qualification": 0.8,
        "gold_rate": 0.1,
        "gold_threshold": 0.7,
        "speeder_share": 0.3,
        "survey": [{"id": "clear", "text": "How clear was the task?", "type": "likert"}],
        "completion_url": "https://app.prolific.com/submissions/complete",
        "hourly_rate": 12.0,
    }


def get_study(store: Store, project: str) -> dict[str, Any]:
    """The stored study settings of a project as JSON-ready data (empty: none)."""
    return dict(store.project(project).settings.get("study") or {})
