"""The HttpOnly session cookie: one-time tickets and the routes that trade them (#16, 11)."""

from __future__ import annotations

import json

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit.testing.v1 import AppTest

from common.tickets import TICKETS, TicketBook
from ui.session_cookie import COOKIE, GUARD_HEADER
from ui.session_routes import ROUTES

GUARD = {GUARD_HEADER: "1"}


def test_a_ticket_works_once_within_its_life_and_nothing_else_works() -> None:
    book = TicketBook(ttl_s=30)
    ticket = book.issue("token-1", now=100.0)
    assert book.pending(ticket, now=100.0) and not book.redeemed(ticket)
    assert book.redeem("not-a-ticket", now=101.0) is None
    assert book.redeem(None, now=101.0) is None
    assert book.redeem(ticket, now=101.0) == "token-1"
    assert book.redeemed(ticket) and not book.pending(ticket, now=101.0)
    assert book.redeem(ticket, now=102.0) is None  # single use
    late = book.issue("token-2", now=200.0)
    assert not book.pending(late, now=230.5)
    assert book.redeem(late, now=230.5) is None  # expired after 30 s
    assert book.issue("token-3") != book.issue("token-3")


@pytest.fixture
def client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), base_url="http://127.0.0.1:8501")


def test_the_route_trades_a_ticket_for_an_httponly_strict_cookie_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WORKBENCH_AUTH_COOKIE_SECURE", raising=False)
    ticket = TICKETS.issue("the-token")
    reply = client.post("/auth/session", json={"ticket": ticket}, headers=GUARD)
    assert reply.status_code == 204
    cookie = reply.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=the-token;")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=3600" in cookie
    assert "Secure" not in cookie  # plain HTTP on localhost
    again = client.post("/auth/session", json={"ticket": ticket}, headers=GUARD)
    assert again.status_code == 403 and "set-cookie" not in again.headers
    wrong = client.post("/auth/session", json={"ticket": "guess"}, headers=GUARD)
    assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
    assert client.post("/auth/session", content=b"not json", headers=GUARD).status_code == 403


def test_the_cookie_is_secure_behind_an_https_proxy(client: TestClient) -> None:
    ticket = TICKETS.issue("the-token")
    headers = {**GUARD, "X-Forwarded-Proto": "https"}
    reply = client.post("/auth/session", json={"ticket": ticket}, headers=headers)
    assert "; Secure" in reply.headers["set-cookie"]


def test_requests_the_page_did_not_send_are_refused(client: TestClient) -> None:
    ticket = TICKETS.issue("the-token")
    # a cross-site form cannot add the guard header; another origin is refused too
    assert client.post("/auth/session", json={"ticket": ticket}).status_code == 403
    evil = {**GUARD, "Origin": "https://evil.example"}
    assert client.post("/auth/session", json={"ticket": ticket}, headers=evil).status_code == 403
    same = {**GUARD, "Origin": "http://127.0.0.1:8501"}
    assert client.post("/auth/session", json={"ticket": ticket}, headers=same).status_code == 204
    proxied = {**GUARD, "Origin": "https://lab.org", "X-Forwarded-Host": "lab.org"}
    ticket = TICKETS.issue("the-token")
    assert client.post("/auth/session", json={"ticket": ticket}, headers=proxied).status_code == 204
    assert client.post("/auth/session", data={"ticket": "x"}).status_code == 403
    assert client.get("/auth/session").status_code == 405


def test_sign_out_route_clears_the_cookie(client: TestClient) -> None:
    reply = client.post("/auth/signout", headers=GUARD)
    assert reply.status_code == 204
    cookie = reply.headers["set-cookie"]
    assert cookie.startswith(f'{COOKIE}="";') and "Max-Age=0" in cookie and "HttpOnly" in cookie
    assert client.post("/auth/signout").status_code == 403


def _send_cookie_page() -> None:
    from ui.auth import _send_cookie

    _send_cookie("tok")


def _tickets_drawn(at: AppTest) -> list[str]:
    bodies = [e.proto.body for e in at.get("html") if "/auth/session" in e.proto.body]
    return [json.loads(json.loads(b.split("body: ")[1].split("});")[0]))["ticket"] for b in bodies]


def test_the_page_asks_for_the_cookie_until_it_has_it_then_renews_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = AppTest.from_function(_send_cookie_page).run()
    (first,) = _tickets_drawn(at)
    assert _tickets_drawn(at.run()) == [first]  # not traded yet: the same ticket again
    assert TICKETS.redeem(first) == "tok"
    assert _tickets_drawn(at.run()) == []  # the browser has the cookie
    monkeypatch.setattr("ui.auth.COOKIE_RENEW_S", 0)
    (renewal,) = _tickets_drawn(at.run())  # due for a fresh max-age: a new ticket
    assert renewal != first and TICKETS.redeem(renewal) == "tok"
