"""Benchmark: the labelling loop in a real browser (headless Debian chromium).

Loads the demo projects into a fresh SQLite database, starts the app (``streamlit run``,
single-user mode, so you are ``admin`` and the sidebar's agreement panel is on), opens
Annotate on ``--project`` and labels ``--items`` items by keyboard only, as an annotator
would. It measures:

- **key -> selection**: from pressing a label key (``1`` / ``0``, or a level digit) to the
  pressed choice showing as selected, timed in this process around the browser driver's
  calls (so with the driver's DevTools round trips in it);
- **key event -> answer drawn, in the page**: from the key event in the page to the first
  frame that draws the changed answer (``requestAnimationFrame``'s time): what the
  annotator sees from the key on;
- **key sent -> answer drawn** (with ``--kind``): from the driver sending the key to
  that frame, on the wall clock the bench and the browser share: the driver's figure
  without its way back (the DevTools round trips that tell it the answer is drawn,
  which an annotator does not wait for);
- **keydown -> next paint, Event Timing**: the browser's own measure of the same keys
  (``PerformanceObserver`` of type ``event``, what Chrome's INP reports): from the key's
  timestamp to the next paint after its handlers; the browser reports only keys of
  16 ms or more, so a key without an entry is counted as under 16 ms (and said so);
- **submit -> next**: from pressing Enter on a fully labelled item to the next item's
  header and choice buttons drawn and the app idle.

With ``streamlit run serve.py`` (what this runs) the page's fast lane (ui/annotation/
fast_lane_view.py) draws every item, the first one included, in its own panel and posts
the labels in the background: the figures then follow that panel, and "app idle" also
waits for every post to be saved.

and prints p50 / p95 / max of each with the machine's load average. Targets (issue #14):
key -> selection < 300 ms, submit -> next < 1 s. The figures depend on the machine and
its load: run it more than once.

    .venv/bin/python bench/annotate_latency.py [--items 4] [--project demo-intent-match]
    .venv/bin/python bench/annotate_latency.py --declared 10   # a 10-question declared kind
    .venv/bin/python bench/annotate_latency.py --load 16 --both  # built-in and declared, loaded

``--kind K [K ...]`` measures each kind on a project of its own (``--items`` + 1 items),
printed per kind against the annotation client's targets (issue #46: key -> selection
p95 < 50 ms, submit -> next item shown p95 < 150 ms): a built-in kind by name
(``binary``, ``likert``, ``intent_match`` ...), or ``pairwise``, ``pairwise-strengths``
and ``ranking`` (declared kinds of two or three outputs), or ``values`` (a declared kind
with free text, scores, spans shown by a condition, a label set and an optional text).
In the panel each asked question is answered in turn, a question an answer opened
included: a choice by its first option's key (a ranking: its letters in order), a text
by a letter typed in its box, a score by its lowest whole number typed in its number
box, spans by the first word selected (Space) and the first label's key; the key that
gives the answer is timed.

    .venv/bin/python bench/annotate_latency.py --load 16 --kind binary pairwise-strengths ranking

``--load N`` starts busy processes until the load average nears N (bench/cpu_load.py)
and measures under it (the app starts and warms up before the load); ``--both`` measures
the built-in project and then a 10-question declared kind (issue #32's check: the same
targets). Submit -> next is printed twice: until the next item is drawn with its keys
live, and until the run that drew it has ended (side panel included).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation_store import Store
from bench.cpu_load import cpu_load, load_line
from demo.loading import load_demo
from kinds.question_types.ranking import NAME as RANKING
from tests.e2e.harness import browser_page, running_app, wait_for_streamlit

WAIT_MS = 120_000  # a loaded machine can take this long for a first page load


def _idle(page) -> None:
    wait_for_streamlit(page, WAIT_MS)


# Counts selected choice buttons (in the main area, not the Submit button): primary ones
# (saved) and those the in-browser key handler marked chosen (ui/annotation/
# instant_keys.py) before the server confirmed; evaluated with requestAnimationFrame polling.
# In the fast lane's panel: its chosen buttons.
SELECTED = """() => document.getElementById('wb-lane')
    ? document.querySelectorAll('#wb-lane button.wb-on').length
    : [...document.querySelectorAll('[data-testid=stMain] [class*="st-key-opt"]')]
    .filter(e => e.classList.contains('wb-chosen') || (!e.classList.contains('wb-unchosen')
        && e.querySelector('button[data-testid=stBaseButton-primary]')))
    .filter(e => e.offsetParent !== null).length"""
HEADER = """() => (document.querySelector('#wb-lane h4')
    || document.querySelector('[data-testid=stMain] h4') || {}).innerText || ''"""
# The next item's keys are live: the fast lane shows it, or the page's key handler has it.
KEYS_LIVE = """() => { const l = window.__wbLane, k = window.__wbKeys;
    if (l && l.open) return !l.waiting && !l.leaving;
    return k && k.state && document.querySelector('[class*="' + k.state.marker + '"]'); }"""
# The app idle: no script run in flight (the harness's own wait adds fixed pauses, which
# would count against submit -> next).
IDLE = """() => {
    const app = document.querySelector('[data-testid=stApp]');
    const state = app && app.getAttribute('data-test-script-state');
    const w = document.querySelector('[data-testid=stStatusWidget]');
    const lane = window.__wbLane;
    return state === 'notRunning' && !(w && /Running|Stop|Connecting/i.test(w.innerText))
        && !(lane && lane.queue.length);
}"""


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _summary(name: str, values: list[float], target_ms: float) -> str:
    if not values:
        return f"{name}: no samples"
    p50, p95 = _pct(values, 0.5) * 1000, _pct(values, 0.95) * 1000
    ok = "meets" if p95 < target_ms else "misses"
    return (
        f"{name}: n {len(values)}, p50 {p50:.0f} ms, p95 {p95:.0f} ms, "
        f"max {max(values) * 1000:.0f} ms ({ok} the {target_ms:.0f} ms target at p95)"
    )


def _event_summary(name: str, values: list[float | None], target_ms: float) -> str:
    """p50 / p95 of Event Timing durations; a key without an entry took under 16 ms."""
    if not values:
        return f"{name}: no samples"
    ordered = sorted(values, key=lambda v: -1.0 if v is None else v)

    def at(q: float) -> str:
        v = ordered[min(len(ordered) - 1, int(q * len(ordered)))]
        return "< 16 ms" if v is None else f"{v * 1000:.0f} ms"

    under = sum(v is None for v in values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    ok = "meets" if p95 is None or p95 * 1000 < target_ms else "misses"
    return (
        f"{name}: n {len(values)} ({under} under 16 ms, not reported by the browser), "
        f"p50 {at(0.5)}, p95 {at(0.95)} ({ok} the {target_ms:.0f} ms target at p95)"
    )


def _sent_to_frame(sent: list[float], timer: dict, what: str) -> list[float]:
    """From the driver sending each key to the page's frame that drew its answer (s),
    on the wall clock both share (the key's events matched in order); [] when the page
    timed another number of keys than the driver sent."""
    walls = [k[2] for k in timer["keys"] if k[1] == what]
    if len(walls) != len(sent):
        print(f"  ({what}: the page timed {len(walls)} keys, the driver sent {len(sent)})")
        return []
    return [(frame - at) / 1000 for at, (_, frame) in zip(sent, walls, strict=True)]


def _event_timing(timer: dict) -> tuple[list[float | None], list[float | None]]:
    """Event Timing durations (s, None under 16 ms) of the timed answering keys and
    Enters, matched to the keys by the event's timestamp."""
    if timer.get("noEventTiming"):
        print(f"Event Timing not available: {timer['noEventTiming']}")
        return [], []
    answer: list[float | None] = []
    enter: list[float | None] = []
    for down, what, _ in timer["keys"]:
        got = [d for t, d in timer["events"] if abs(t - down) < 0.5]
        (enter if what == "enter" else answer).append(max(got) / 1000 if got else None)
    return answer, enter


def _label_item(page, keys: list[str], samples: list[float], lane: list[float]) -> None:
    """Press each key once the previous choice shows; time each key to its selection
    (also into ``lane`` when the fast lane's panel has the item)."""
    in_lane = page.evaluate("() => !!document.getElementById('wb-lane')")
    for key in keys:
        before = page.evaluate(SELECTED)
        start = time.perf_counter()
        page.keyboard.press(key)
        page.wait_for_function(f"n => ({SELECTED})() > n", arg=before, polling="raf")
        samples.append(time.perf_counter() - start)
        if in_lane:
            lane.append(samples[-1])
        _idle(page)


# The keys that answer the panel's item: every asked question's first option (a
# ranking: each output's letter in turn); null when a question takes a value instead.
PANEL_KEYS = """() => { const l = window.__wbLane;
    if (!l || !l.open || !l.cur) return [];
    const keys = [];
    for (const t of l.cur.item.targets.filter((t) => t.asked !== false)) {
        if (t.byValue) return null;
        const n = t.places || 1;  // a ranking: each output in turn
        for (let j = 0; j < n; j += 1) keys.push(t.choices[j].keys[0]);
    }
    return keys; }"""


# The panel's next step on its item: the first asked question without an answer and how
# to answer it (a key; for a text or score box, the box to focus first; for spans, the
# word to select first), {done: true} when every asked question has an answer, null
# while the panel has no item (or holds a submit).
NEXT_STEP = """() => { const l = window.__wbLane;
    if (!l || !l.open || !l.cur || l.held) return null;
    const cur = l.cur;
    for (const [index, t] of cur.item.targets.entries()) {
        if (t.asked === false) continue;
        const v = cur.chosen[t.key];
        if (t.places) {  // a ranking: one output per place
            const placed = Array.isArray(v) ? v.flat().length : 0;
            if (placed < t.places) return {index, key: t.choices[placed].keys[0]};
            continue;
        }
        if (v !== undefined && v !== null) continue;
        if (t.control === 'text') return {focus: 'answer:' + t.key, key: 'x'};
        if (t.control === 'score') return {focus: 'answer:' + t.key, key: String(Math.ceil(t.min))};
        if (t.control === 'spans') return {select: 'word:' + t.key + ':0', key: t.choices[0].keys[0]};
        return {index, key: t.choices[0].keys[0]};
    }
    return {done: true}; }"""
#: The panel's answers as they stand (a key's answer changes them, whatever the control).
ANSWERS = "() => JSON.stringify(window.__wbLane.cur.chosen)"


def _answer_in_panel(page, samples: list[float], sent: list[float]) -> None:
    """Answer every asked question of the panel's item, one step at a time (a question
    a previous answer opened included); time each answering key to the answer shown."""
    while True:
        step = page.evaluate(NEXT_STEP)
        if step is None:
            raise RuntimeError("the panel has no item to answer")
        if step.get("done"):
            return
        if step.get("focus"):
            page.focus(f"#wb-lane [data-fid='{step['focus']}']")
        if "index" in step:
            _to_question(page, step["index"])
        if step.get("select"):  # the words a span covers, then its label's key
            page.focus(f"#wb-lane [data-fid='{step['select']}']")
            page.keyboard.press("Space")
            page.wait_for_function(
                "() => Object.values(window.__wbLane.cur.spanSel).some(Boolean)", polling="raf"
            )
        before = page.evaluate(ANSWERS)
        sent.append(time.time() * 1000)
        start = time.perf_counter()
        page.keyboard.press(step["key"])
        page.wait_for_function(f"b => ({ANSWERS})() !== b", arg=before, polling="raf")
        samples.append(time.perf_counter() - start)
        _idle(page)
        page.wait_for_function(IDLE, polling="raf")  # saved: the questions asked now are known


def _to_question(page, index: int) -> None:
    """Make question ``index`` the panel's current one by its next / previous question
    keys (a text or number box left first: there, keys type)."""
    page.evaluate(
        """() => { const a = document.activeElement;
            if (a && /^(INPUT|TEXTAREA)$/.test(a.tagName)) a.blur(); }"""
    )
    for _ in range(50):
        now = page.evaluate("() => window.__wbLane.cur.focus")
        if now == index:
            return
        key = page.evaluate("s => window.__wbLane.cfg[s]", "nextKey" if now < index else "prevKey")
        page.keyboard.press(key)
        page.wait_for_function("n => window.__wbLane.cur.focus !== n", arg=now, polling="raf")
    raise RuntimeError(f"question {index} never became the current one")


def _keys(page) -> list[str] | None:
    """The keys that answer the item in view: from the panel, else "1" per question."""
    if page.evaluate("() => !!document.getElementById('wb-lane')"):
        return page.evaluate(PANEL_KEYS)
    return ["1"] * _targets(page)


def _targets(page) -> int:
    """How many questions / facts the item in view has (buttons per target: 2 for C/M)."""
    if page.evaluate("() => !!document.getElementById('wb-lane')"):
        return int(
            page.evaluate("() => document.querySelectorAll('#wb-lane [data-target]').length")
        )
    return int(
        page.evaluate(
            """() => new Set([...document.querySelectorAll(
                '[data-testid=stMain] [class*="st-key-opt"]')]
                .map(e => [...e.classList].find(c => c.startsWith('st-key-opt'))
                          .split('-').slice(0, -1).join('-'))).size"""
        )
    )


def declared_project(store: Store, questions: int) -> str:
    """A project of a declared kind with ``questions`` Likert 1-5 questions over the
    example rubric's items (examples/kinds), for comparison with the built-in kinds."""
    import json

    from workbench_api.kinds import save_kind

    examples = Path(__file__).resolve().parents[1] / "examples" / "kinds"
    levels = ["poor", "weak", "fair", "good", "excellent"]
    definition = {
        "title": f"{questions}-question rubric",
        "fields": [{"name": "dialogue", "role": "chat"}, {"name": "summary", "output": True}],
        "questions": [
            {"name": f"q{i + 1}", "type": "likert", "prompt": f"Aspect {i + 1}?", "labels": levels}
            for i in range(questions)
        ],
    }
    save_kind(store, "bench", definition)
    store.create_project("declared", "decl:bench", {"k": 1})
    rows = [json.loads(line) for line in (examples / "summary_rubric_items.jsonl").open()]
    store.upsert_items(
        "declared",
        [
            {
                "item_id": r["item_id"],
                "fields": {"dialogue": r["dialogue"], "summary": r["summary"]},
            }
            for r in rows
        ],
    )
    return "declared"


# In the page, for every answering key the panel takes: from the key event to the first
# frame that draws the changed answer (requestAnimationFrame's time), in ms. This is what
# the annotator sees from the key on; the figures timed from Python add the DevTools
# round trips of the driver, which a loaded machine slows as much as the page. A key
# whose answer has not changed when the next key comes (a next-question key, say) is no
# answering key: its wait ends there (before, it ran on and took the next key's answer
# as its own). Beside it, the browser's own measure (Event Timing, what Chrome's INP
# reports): each keydown's ``duration``, from the event's timestamp to the next paint
# after its handlers; the browser reports only entries of 16 ms or more, so a timed key
# without one took less. ``keys`` holds each timed key: [timestamp, 'answer' | 'enter',
# [the key's and the frame's wall-clock times]].
KEY_TIMER = """() => { if (window.__wbKeyTimer) return;
    const T = (window.__wbKeyTimer = { took: [], next: [], keys: [], events: [], seq: 0 });
    try {
        new PerformanceObserver((list) => { for (const e of list.getEntries()) {
            if (e.name === 'keydown') T.events.push([e.startTime, e.duration]); } })
            .observe({ type: 'event', durationThreshold: 16, buffered: true });
    } catch (err) { T.noEventTiming = String(err); }
    const state = () => { const l = window.__wbLane;
        return l && l.open && l.cur ? [l.cur.item.ref, JSON.stringify(l.cur.chosen)] : null; };
    const ready = () => { const l = window.__wbLane; return !l.waiting && !l.leaving; };
    // the key's and the frame's wall-clock times (ms since 1970), for the driver's clock
    const wall = (down) => [performance.timeOrigin + down, performance.timeOrigin + performance.now()];
    window.addEventListener('keydown', (e) => {  // installed first: before the panel's
        const seq = (T.seq += 1);
        const before = state();
        if (!before) return;
        const down = e.timeStamp;
        // performance.now() in a frame's callback: that frame draws what is there then
        if (e.key === 'Enter') {  // a submit: to the next item drawn with its keys live
            const look = () => { const now = state();
                if (now && now[0] !== before[0] && ready()) {
                    T.next.push(performance.now() - down); T.keys.push([down, 'enter', wall(down)]); return; }
                if (performance.now() - down < 30000) requestAnimationFrame(look); };
            requestAnimationFrame(look);
            return;
        }
        if (e.key.length !== 1 || e.key === ' ') return;
        const look = () => { const now = state();
            if (!now || now[0] !== before[0]) return;  // another item: not an answer
            if (T.seq !== seq) return;  // the next key came first: this one answered nothing
            if (now[1] !== before[1]) {
                T.took.push(performance.now() - down); T.keys.push([down, 'answer', wall(down)]); return; }
            if (performance.now() - down < 10000) requestAnimationFrame(look); };
        requestAnimationFrame(look);
    }, true); }"""


@dataclass
class Samples:
    """The timings of one project."""

    keys: list[float] = field(default_factory=list)
    lane_keys: list[float] = field(default_factory=list)
    #: key event to the frame that draws the answer, timed in the page (s)
    drawn: list[float] = field(default_factory=list)
    #: Enter's event to the frame that draws the next item, timed in the page (s)
    next_drawn: list[float] = field(default_factory=list)
    #: the driver's wall-clock time (ms) as it sent each answering key, each Enter
    sent_keys: list[float] = field(default_factory=list)
    sent_enter: list[float] = field(default_factory=list)
    #: from the driver sending the key to the page's frame drawing its answer (s)
    sent_drawn: list[float] = field(default_factory=list)
    sent_next: list[float] = field(default_factory=list)
    #: Event Timing's duration of each answering key's keydown (s); None: under 16 ms
    event_keys: list[float | None] = field(default_factory=list)
    #: the same for each Enter that brought the next item
    event_enter: list[float | None] = field(default_factory=list)
    shown: list[float] = field(default_factory=list)
    idle: list[float] = field(default_factory=list)


def _measure(page, base_url: str, project: str, items: int) -> Samples:
    """Open Annotate on ``project`` and label ``items`` items by keyboard."""
    out = Samples()
    page.goto(f"{base_url}/annotate?project={project}")
    page.wait_for_url("**item=**")
    _idle(page)
    # the client's panel opens on the page's item once its script has loaded: under load
    # that can come after the page is idle, and keys pressed before would go to the page
    try:
        page.wait_for_function("() => window.__wbLane && window.__wbLane.open", polling=100)
    except Exception:  # a project the client does not cover: labelled on the page
        pass
    for _ in range(items):
        header = page.evaluate(HEADER)
        if page.evaluate("() => !!document.getElementById('wb-lane')"):
            timed: list[float] = []
            _answer_in_panel(page, timed, out.sent_keys)
            out.keys += timed
            out.lane_keys += timed
        else:
            keys = _keys(page)
            if keys is None:
                raise ValueError(f"{project}: a question is answered by value, not by a key")
            _label_item(page, keys, out.keys, out.lane_keys)
        out.sent_enter.append(time.time() * 1000)
        start = time.perf_counter()
        page.keyboard.press("Enter")
        # shown: the next item's header and unselected choices are drawn and the
        # in-browser key handler has its state (keys would be answered now) ...
        try:
            page.wait_for_function(
                f"""h => {{ const now = ({HEADER})();
                    return now && now !== h && ({SELECTED})() === 0 && ({KEYS_LIVE})(); }}""",
                arg=header,
                polling="raf",
            )
        except Exception:
            seen = page.evaluate(
                f"""() => [({HEADER})(), ({SELECTED})(), !!window.__wbKeys,
                    (document.querySelector('[data-testid=stMain]') || {{}}).innerText]"""
            )
            raise RuntimeError(f"the next item never showed after {header!r}: {seen}") from None
        out.shown.append(time.perf_counter() - start)
        # ... idle: and the run that drew it has ended (the side panel included).
        page.wait_for_function(IDLE, polling="raf")
        out.idle.append(time.perf_counter() - start)
        _idle(page)
    # back to the ordinary page (once every label is saved) for the next project
    page.wait_for_function(IDLE, polling="raf")
    timer = page.evaluate("() => window.__wbKeyTimer")
    out.drawn = [ms / 1000 for ms in timer["took"]]
    out.next_drawn = [ms / 1000 for ms in timer["next"]]
    out.event_keys, out.event_enter = _event_timing(timer)
    out.sent_drawn = _sent_to_frame(out.sent_keys, timer, "answer")
    out.sent_next = _sent_to_frame(out.sent_enter, timer, "enter")
    return out


#: The declared comparison kinds ``--kind`` takes by name, beside the built-in kinds.
COMPARISONS = ("pairwise", "pairwise-strengths", RANKING, "values")


def kind_project(store: Store, kind: str, n: int) -> str:
    """A project named ``kind`` of ``n`` items: a built-in kind's test items repeated,
    or a declared comparison kind (:data:`COMPARISONS`)."""
    from tests.support import compare_kind

    if kind == "pairwise-strengths":
        return compare_kind.strengths_project(store, kind, n)
    if kind == RANKING:
        return compare_kind.ranking_project(store, kind, n)
    if kind == "values":  # text, score, spans (conditional), label set, optional text
        from tests.support import value_kind
        from workbench_api.kinds import save_kind

        save_kind(store, kind, value_kind.KIND)
        store.create_project(kind, f"decl:{kind}", {"k": 1})
        texts = value_kind.TEXTS
        store.upsert_items(
            kind,
            [{"item_id": f"v{i}", "fields": {"text": texts[i % len(texts)]}} for i in range(n)],
        )
        return kind
    if kind == "pairwise":
        from workbench_api.kinds import save_kind

        definition = compare_kind.PAIRWISE_STRENGTHS.replace('strength = ["slightly", "much"]', "")
        save_kind(store, kind, definition)
        store.create_project(kind, f"decl:{kind}", {"k": 1})
        store.upsert_items(kind, compare_kind.items(n, ("answer_a", "answer_b")))
        return kind
    from tests.annotate_fixtures import ITEMS

    store.create_project(kind, kind, {"k": 1})
    base = ITEMS[kind]
    rows = [{**base[i % len(base)], "item_id": f"{kind}-{i}"} for i in range(n)]
    store.upsert_items(kind, rows)
    return kind


def run_kinds(kinds: list[str], items: int, load: float = 0) -> None:
    """Measure each kind in ``kinds`` on a project of its own (``items`` timed, one more
    to go to) and print its figures against the client's targets (50 ms, 150 ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store = Store(url)
        names = [kind_project(store, kind, items + 1) for kind in kinds]
        store.close()
        with running_app(url, log_dir=Path(tmp)) as app, browser_page(1440, 1000) as page:
            page.set_default_timeout(WAIT_MS)
            page.add_init_script(f"({KEY_TIMER})();")  # on every page, before its scripts
            page.goto(app.url)
            _idle(page)
            for name in names:  # warm: each kind drawn once before timing
                page.goto(f"{app.url}/annotate?project={name}")
                page.wait_for_url("**item=**")
                _idle(page)
            with cpu_load(load):
                for name in names:
                    try:
                        got = _measure(page, app.url, name, items)
                    except ValueError as exc:
                        print(f"{name}: not measured ({exc})", flush=True)
                        continue
                    print(f"kind {name}, {items} items, chromium 1440x1000 ({load_line()})")
                    print(_summary("  key -> selection", got.keys, 50))
                    print(_summary("  key sent -> answer drawn", got.sent_drawn, 50))
                    print(_summary("  key event -> answer drawn, in the page", got.drawn, 50))
                    print(
                        _event_summary("  keydown -> next paint, Event Timing", got.event_keys, 50)
                    )
                    print(_summary("  submit -> next item shown", got.shown, 150))
                    print(_summary("  Enter sent -> next item drawn", got.sent_next, 150))
                    print(
                        _summary(
                            "  Enter event -> next item drawn, in the page", got.next_drawn, 150
                        ),
                    )
                    print(
                        _event_summary(
                            "  Enter keydown -> next paint, Event Timing", got.event_enter, 150
                        ),
                        flush=True,
                    )


def run(items: int, project: str, declared: int = 0, load: float = 0) -> None:
    """Run the benchmark described above and print its figures: ``project`` and, with
    ``declared``, a declared kind of that many questions; under ``load`` when given (the
    app is started and warmed up first, then the load generator runs while measuring)."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store = Store(url)
        load_demo(store)
        # the last submit needs a next item to time: one item fewer than the project has
        projects = [(project, min(items, store.item_count(project) - 1))]
        if declared:
            # its example data has 4 items: the last submit would have no next item
            projects.append((declared_project(store, declared), min(items, 3)))
        store.close()
        with running_app(url, log_dir=Path(tmp)) as app, browser_page(1440, 1000) as page:
            page.set_default_timeout(WAIT_MS)
            page.add_init_script(f"({KEY_TIMER})();")  # on every page, before its scripts
            page.goto(app.url)  # the entry point first (sign-in, navigation)
            _idle(page)
            for name, _ in projects:  # warm: each page and kind drawn once before timing
                page.goto(f"{app.url}/annotate?project={name}")
                page.wait_for_url("**item=**")
                _idle(page)
            with cpu_load(load):
                for name, n in projects:
                    got = _measure(page, app.url, name, n)
                    print(f"{name}, {n} items, chromium 1440x1000, single-user mode (admin)")
                    print(f"while measuring: {load_line()}")
                    print(_summary("key -> selection", got.keys, 300))
                    print(_summary("  of which in the fast lane's panel", got.lane_keys, 300))
                    print(_summary("  key event -> answer drawn, in the page", got.drawn, 300))
                    print(
                        _event_summary("  keydown -> next paint, Event Timing", got.event_keys, 300)
                    )
                    print(_summary("submit -> next item shown, keys live", got.shown, 1000))
                    print(_summary("submit -> next item, app idle", got.idle, 1000), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=4)
    parser.add_argument("--project", default="demo-intent-match")
    parser.add_argument(
        "--declared", type=int, default=0, help="label a declared kind with this many questions"
    )
    parser.add_argument(
        "--load", type=float, default=0, help="measure under this load average (busy processes)"
    )
    parser.add_argument(
        "--both", action="store_true", help="--project, then a 10-question declared kind"
    )
    parser.add_argument(
        "--kind",
        nargs="+",
        default=[],
        help=f"measure these kinds, each on its own project (built-in names, {COMPARISONS})",
    )
    args = parser.parse_args()
    if args.kind:
        run_kinds(args.kind, args.items, args.load)
        return
    run(args.items, args.project, 10 if args.both else args.declared, args.load)


if __name__ == "__main__":
    main()
