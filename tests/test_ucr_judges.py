"""geval_ucr and prometheus_ucr (the FinGrAct paper's second experiment) on the demo's
actionability items, with their links served by a local page server on 127.0.0.1."""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from annotation_store import Store
from demo.loading import load_demo
from evaluators.base import EvalItem
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

#: Local stand-ins for the demo's links, by path (host kept as the first path segment).
PAGES = {
    "/science.nasa.gov/gallery/jupiter": "Jupiter is the largest planet. Its storms swirl.",
    "/en.wikipedia.org/wiki/Junun_(film)": "Junun is a 2015 documentary film by Paul "
    "Thomas Anderson about an album recorded in India.",
    "/www.cochranelibrary.com/cdsr/doi/10.1002/14651858.CD000980.pub4": "Regular "
    "vitamin C shortened colds by 8% in adults; it did not prevent them.",
}
DEMO_LINKS = list(PAGES)
_URL = re.compile(r"https?://([^\s]+)")


@pytest.fixture
def pages_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            hits.append(self.path)
            text = PAGES.get(self.path)
            body = (f"<html><body><p>{text}</p></body></html>" if text else "missing").encode()
            self.send_response(200 if text else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def _demo_items(store: Store, base: str) -> list[EvalItem]:
    """The demo's actionability items, their links pointed at the local server."""
    load_demo(store)
    [name] = [p.name for p in store.projects() if p.kind == "actionability"]
    out = []
    for item in store.items(name):
        fields = dict(item.fields)
        fields["explanation"] = _URL.sub(lambda m: f"{base}/{m.group(1)}", fields["explanation"])
        out.append(EvalItem(item.item_id, fields, item.generator, "actionability"))
    return out


SETTINGS = {"allow_private_addresses": True, "condense": "leading"}


def test_geval_and_prometheus_ucr_share_the_retriever_and_page_snapshots(
    fast_llm: ScriptedLLM, store: Store, pages_server: tuple[str, list[str]]
) -> None:
    base, hits = pages_server
    items = _demo_items(store, base)
    linked = [i for i in items if base in i.fields["explanation"]]
    assert len(linked) == 3  # earth, junun, vitamin-c carry links

    def reply(request: dict) -> Reply:
        text = request["messages"][-1]["content"]
        if "[RESULT]" in text or "Score Rubric" in text:
            return Reply(content="Feedback: the link is read. [RESULT] 4")
        return Reply(content="4")

    fast_llm.handler = reply
    geval = run_items("geval_ucr", items, cache=store, pages=store, settings=SETTINGS)
    assert all(r.status == "ok" for r in geval), [r.error for r in geval]
    fetched = sorted(hits)
    assert fetched == sorted(DEMO_LINKS)  # each demo link fetched once, from 127.0.0.1
    prompts = [r["messages"][-1]["content"] for r in fast_llm.requests]
    assert any("largest planet" in p for p in prompts)
    assert any("documentary film by Paul" in p for p in prompts)
    junun = next(r for r in geval if r.item_id == "junun")
    assert junun.details["links"][0]["status"] == 200
    assert junun.details["prompt_versions"] == ["geval_actionability_ucr.v1"]
    assert junun.scores["actionability"] == pytest.approx(3.75)  # 4 on 1-5, stretched

    fast_llm.reset()
    prom = run_items("prometheus_ucr", items, cache=store, pages=store, settings=SETTINGS)
    assert all(r.status == "ok" for r in prom), [r.error for r in prom]
    assert sorted(hits) == fetched  # nothing fetched again: the stored snapshots are reused
    junun = next(r for r in prom if r.item_id == "junun")
    assert junun.details["links"][0]["reused"] is True
    prompt = next(
        r["messages"][-1]["content"] for r in fast_llm.requests if "Junun" in str(r["messages"])
    )
    assert "documentary film by Paul" in prompt and "Content of the linked pages" in prompt
    assert fast_llm.requests[0]["temperature"] == 1.0 and fast_llm.requests[0]["top_p"] == 0.9
    assert junun.scores["actionability"] == pytest.approx(3.75)


def test_ucr_judges_refuse_local_pages_by_default(
    fast_llm: ScriptedLLM, store: Store, pages_server: tuple[str, list[str]]
) -> None:
    base, hits = pages_server
    junun = next(i for i in _demo_items(store, base) if i.item_id == "junun")
    fast_llm.handler = lambda request: Reply(content="2")
    [res] = run_items("geval_ucr", [junun], pages=store)
    assert hits == [] and res.status == "ok"
    assert "refused" in fast_llm.requests[0]["messages"][-1]["content"]


LONG = "/long/page"
PAGES[LONG] = " ".join(f"Sentence {i} says Junun is a film about music." for i in range(60))


@pytest.fixture
def minilm_gone(store: Store, pages_server: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch):
    """Project "act" with one item linking to the long page, and a MiniLM that cannot
    load; gives the condense module."""
    base = pages_server[0]
    # the module, not the function the package re-exports under the same name
    condense_mod = importlib.import_module("evaluators.ucr.condense")
    monkeypatch.setattr(condense_mod, "_model", None)
    monkeypatch.setattr(condense_mod, "_model_error", "OSError: no model files")
    store.create_project("act", "actionability")
    fields = {
        "claim": "Junun is a book.",
        "evidence": "Junun is a film.",
        "label": "FALSE",
        "explanation": f"It is a film: {base}{LONG}",
    }
    store.upsert_items("act", [{"item_id": "j", "fields": fields}])
    return condense_mod


def test_minilm_fallback_is_stated_in_the_run_summary_and_the_report(
    fast_llm: ScriptedLLM,
    store: Store,
    sqlite_url: str,
    minilm_gone: object,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from commands import main
    from reports.render import build_report, render_markdown

    fast_llm.handler = lambda request: Reply(content="Feedback: fine. [RESULT] 4")
    settings = '{"allow_private_addresses": true}'  # condense "auto": MiniLM wanted
    code = main(
        ["--db", sqlite_url, "evaluate", "act", "--evaluator", "prometheus_ucr"]
        + ["--settings", settings]
    )
    out = capsys.readouterr().out.splitlines()
    warning = (
        "WARNING: 1 page(s) kept their leading sentences because the MiniLM sentence model "
        "could not load (OSError: no model files); the paper summarises pages with MiniLM-L6-v2"
    )
    assert code == 0 and out[1] == (
        '  run 1: pages_condensed {"leading_fallback": 1} · warning ' + warning
    )
    md = render_markdown(build_report(store, "act", n_resamples=0))
    assert warning in md and "scale_mapping='stretch'" in md
    assert "temperature 1.0, top_p 0.9 (the FinGrAct paper's baseline)" in md


@pytest.mark.parametrize("evaluator", ["prometheus_ucr", "geval_ucr", "fingract_ucr"])
def test_explicit_embedding_condense_fails_instead_of_falling_back(
    fast_llm: ScriptedLLM, store: Store, sqlite_url: str, minilm_gone: Any, capsys, evaluator: str
) -> None:
    from commands import main

    condense_mod = minilm_gone
    settings = '{"allow_private_addresses": true, "condense": "embedding"}'
    code = main(
        ["--db", sqlite_url, "evaluate", "act", "--evaluator", evaluator, "--settings", settings]
    )
    err = capsys.readouterr().err.strip()
    assert code != 0 and "\n" not in err and "Traceback" not in err
    assert (
        "condense='embedding' but the MiniLM sentence model could not load "
        "(OSError: no model files)" in err
    )
    assert fast_llm.requests == [] and store.runs("act") == []
    # the function itself refuses too, rather than cutting to leading sentences
    with pytest.raises(condense_mod.CondenseUnavailable, match="condense='embedding'"):
        condense_mod.condense(PAGES[LONG], "Junun film", 20, "embedding")
    assert condense_mod.condense(PAGES[LONG], "Junun film", 20, "auto")[1] == "leading_fallback"
