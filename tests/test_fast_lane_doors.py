"""The fast lane's doors (issue 37 point 5): the guard header, the lane and the sign-in
behind it are checked before a body is read; bodies are capped; times are finite,
non-negative numbers of at most a day and booleans are not numbers; ``pending`` is
capped; saves are rate-limited; a lane ends with its sign-in, a password change, a role
change or a disabled account, and its role is read on every request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from accounts import sign_in_sessions as auth_sessions
from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from ui.annotation import fast_lane, fast_routes
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, MAX_BODY, NEXT_ROUTE, ROUTES
from ui.session_cookie import GUARD_HEADER


class BodyMeter:
    """ASGI wrapper counting the request body bytes the app actually read."""

    def __init__(self, app: Any) -> None:
        self.app, self.read = app, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counted() -> Any:
            message = await receive()
            self.read += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@pytest.fixture
def meter() -> BodyMeter:
    return BodyMeter(Starlette(routes=ROUTES))


@pytest.fixture
def client(meter: BodyMeter) -> TestClient:
    return TestClient(meter, base_url="http://127.0.0.1:8501")


def _project(store: Store, n: int = 3) -> None:
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": f"t{i}"}} for i in range(n)])


def _headers(token: str) -> dict[str, str]:
    return {GUARD_HEADER: "1", LANE_HEADER: token, "Content-Type": "application/json"}


@pytest.fixture
def lane(store: Store) -> str:
    """An annotator's lane on ``p`` with item 1 claimed."""
    _project(store)
    user = accounts.add_user(store, "ann", "annotator")
    asg.claim_next(store, "p", user.name)
    return LANES.open(store, "p", user)


def test_no_body_is_read_before_the_guard_and_the_lane_pass(
    lane: str, client: TestClient, meter: BodyMeter
) -> None:
    big = b'{"item": "1", "pad": "' + b"x" * 1_000_000 + b'"}'
    assert client.post(LABEL_ROUTE, content=big).status_code == 403  # no guard header
    stranger = client.post(LABEL_ROUTE, content=big, headers=_headers("not-a-lane"))
    assert stranger.status_code == 403
    assert meter.read == 0


def test_a_declared_body_over_the_cap_is_refused_unread(
    lane: str, client: TestClient, meter: BodyMeter, store: Store
) -> None:
    pad = "x" * (MAX_BODY + 1)
    declared = client.post(LABEL_ROUTE, json={"item": "1", "pad": pad}, headers=_headers(lane))
    assert declared.status_code == 413 and meter.read == 0
    assert store.item_state("p", "i0", "ann")["status"] is None


def test_a_streamed_body_is_read_only_up_to_the_cap(lane: str, store: Store) -> None:
    """No Content-Length (chunked): the route stops reading past the cap."""
    chunks = [b'{"item": "1", "pad": "', *[b"x" * 10_000] * 100, b'"}']
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        chunk = chunks.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(k.lower().encode(), v.encode()) for k, v in _headers(lane).items()]
    scope = {
        "type": "http",
        "method": "POST",
        "path": LABEL_ROUTE,
        "raw_path": LABEL_ROUTE.encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8501"), *headers],
        "scheme": "http",
        "server": ("127.0.0.1", 8501),
        "client": ("127.0.0.1", 5000),
        "root_path": "",
        "http_version": "1.1",
    }
    asyncio.run(Starlette(routes=ROUTES)(scope, receive, send))
    assert sent[0]["status"] == 413
    assert len(chunks) > 90  # most of the megabyte was never read
    assert store.item_state("p", "i0", "ann")["status"] is None


@pytest.mark.parametrize(
    "number",
    ["Infinity", "-Infinity", "NaN", "1e308", "true", "-1", "86401", "9" * 4000, "9" * 5000],
)
@pytest.mark.parametrize("key", ["seconds", "active_seconds"])
def test_times_must_be_finite_bounded_numbers(
    lane: str, client: TestClient, store: Store, key: str, number: str
) -> None:
    body = f'{{"item": "1", "chosen": {{"label": 1}}, "{key}": {number}}}'
    got = client.post(LABEL_ROUTE, content=body, headers=_headers(lane))
    assert got.status_code == 400
    assert got.json()["error"]  # one line saying what is wrong
    assert store.item_state("p", "i0", "ann")["status"] is None  # nothing saved


def test_a_day_is_the_longest_time_on_an_item(lane: str, client: TestClient, store: Store) -> None:
    body = {"item": "1", "chosen": {"label": 1}, "seconds": 86_400, "active_seconds": 0}
    assert client.post(LABEL_ROUTE, json=body, headers=_headers(lane)).status_code == 200
    assert store.progress_frame("p").set_index("item_id").loc["i0", "seconds_spent"] == 86_400


@pytest.mark.parametrize("submit", [True, False])
def test_a_boolean_is_not_a_choice_index(
    lane: str, client: TestClient, store: Store, submit: bool
) -> None:
    body = {"item": "1", "chosen": {"label": True}, "submit": submit}
    got = client.post(LABEL_ROUTE, json=body, headers=_headers(lane))
    assert got.status_code == 400 and "True" in got.json()["error"]
    assert store.item_state("p", "i0", "ann")["labels"] == {}


def test_pending_is_capped(lane: str, client: TestClient) -> None:
    params = {"after": "1", "pending": [str(i) for i in range(fast_routes.MAX_PENDING + 1)]}
    got = client.get(NEXT_ROUTE, params=params, headers=_headers(lane))
    assert got.status_code == 400 and "pending" in got.json()["error"]


def test_saves_per_lane_are_rate_limited(
    lane: str, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fast_lane, "SAVE_BURST", 3)
    monkeypatch.setattr(fast_lane, "SAVES_PER_S", 0.01)  # one more save every 100 s
    body = {"item": "1", "chosen": {"label": 1}, "submit": False}
    codes = [client.post(LABEL_ROUTE, json=body, headers=_headers(lane)) for _ in range(4)]
    assert [r.status_code for r in codes] == [200, 200, 200, 429]
    assert 1 <= int(codes[-1].headers["Retry-After"]) <= 100


def _signed_in_lane(store: Store, role: str) -> tuple[str, str]:
    """A lane opened within a sign-in session of ``ann`` (its token, the session's)."""
    _project(store)
    user = accounts.add_user(store, "ann", role, password="a long enough secret")
    asg.claim_next(store, "p", user.name)
    session = auth_sessions.start(store, "ann")
    return LANES.open(store, "p", user, session), session


def _works(client: TestClient, token: str) -> int:
    return client.get(NEXT_ROUTE, params={"after": "1"}, headers=_headers(token)).status_code


def test_sign_out_in_another_tab_ends_the_lane(store: Store, client: TestClient) -> None:
    token, session = _signed_in_lane(store, "annotator")
    assert _works(client, token) == 200
    other_tab = auth_sessions.rotate(store, session)  # a second tab of the same sign-in
    auth_sessions.revoke(store, other_tab)  # signs out there
    assert _works(client, token) == 403


def test_sign_out_ends_every_lane_of_the_user(store: Store, client: TestClient) -> None:
    token, _ = _signed_in_lane(store, "annotator")
    other = LANES.open(store, "p", store.annotator("ann"), auth_sessions.start(store, "ann"))
    LANES.close_user("ann")  # what signing out does, whichever tab
    assert _works(client, token) == 403 and _works(client, other) == 403


def test_a_password_change_ends_the_lane(store: Store, client: TestClient) -> None:
    token, _ = _signed_in_lane(store, "annotator")
    assert _works(client, token) == 200
    accounts.set_password(store, "ann", "another long secret")
    assert _works(client, token) == 403


def test_a_disabled_account_ends_the_lane(store: Store, client: TestClient) -> None:
    token, _ = _signed_in_lane(store, "annotator")
    accounts.set_active(store, "ann", False)
    assert _works(client, token) == 403


@pytest.mark.parametrize("with_session", [True, False])
def test_a_demoted_reviewer_keeps_no_reviewer_lane(
    store: Store, client: TestClient, with_session: bool
) -> None:
    _project(store)
    reviewer = accounts.add_user(store, "rev", "reviewer", password="a long enough secret")
    session = auth_sessions.start(store, "rev") if with_session else None
    token = LANES.open(store, "p", reviewer, session)
    # a reviewer may open any item by its id
    assert client.get(NEXT_ROUTE, params={"after": "i2"}, headers=_headers(token)).status_code == (
        200
    )
    store.set_role("rev", "annotator")
    refused = client.post(
        LABEL_ROUTE, json={"item": "i2", "chosen": {"label": 1}}, headers=_headers(token)
    )
    assert refused.status_code == 403 and "role" in refused.json()["error"]
    assert store.item_state("p", "i2", "rev")["status"] is None
    store.set_role("rev", "reviewer")  # and the lane stays ended
    assert _works(client, token) == 403


def test_an_ended_sign_in_is_refused_before_the_body_is_read(
    store: Store, client: TestClient, meter: BodyMeter
) -> None:
    """A lane whose sign-in ended gets its 403 without the server reading a byte of the
    save's body (an over-cap body would otherwise be read up to the cap, then 413)."""
    token, session = _signed_in_lane(store, "annotator")
    auth_sessions.revoke(store, session)
    big = b'{"item": "1", "pad": "' + b"x" * 1_000_000 + b'"}'
    refused = client.post(LABEL_ROUTE, content=big, headers=_headers(token))
    assert refused.status_code == 403 and meter.read == 0
