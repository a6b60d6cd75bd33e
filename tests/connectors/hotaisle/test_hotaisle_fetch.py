"""Hot Aisle fetch through the real httpx client against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.hotaisle import fetch
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

KEY, TEAM = "ha-secret-key", "my-team"
PATH = f"/api/teams/{TEAM}/virtual_machines/available/"


@pytest.fixture
def body(recorded):
    return recorded("hotaisle", "available_vms.json")["response"]


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(
            fetch.AVAILABLE.pages(
                client, (KEY, TEAM), base=httpserver.url_for("/api"), policy=policy
            )
        )


def test_the_team_path_and_token_header_are_sent(httpserver, fast_retry, body):
    httpserver.expect_request(PATH, headers={"Authorization": f"Token {KEY}"}).respond_with_json(
        body
    )
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and KEY not in page.payload and KEY not in str(page.request)


@pytest.mark.parametrize("present", ["HOTAISLE_API_KEY", "HOTAISLE_TEAM_HANDLE", None])
def test_without_both_key_and_team_the_provider_is_skipped(monkeypatch, present):
    for var in ("HOTAISLE_API_KEY", "HOTAISLE_TEAM_HANDLE"):
        monkeypatch.delenv(var, raising=False)
    if present:
        monkeypatch.setenv(present, "x")
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)


def test_fetch_live_reads_key_and_team_from_the_environment(httpserver, monkeypatch, body):
    monkeypatch.setenv("HOTAISLE_API_KEY", KEY)
    monkeypatch.setenv("HOTAISLE_TEAM_HANDLE", TEAM)
    httpserver.expect_request(PATH).respond_with_json(body)
    ctx = FetchContext(settings={"hotaisle_url": httpserver.url_for("/api")})
    assert [type(i).__name__ for i in fetch.fetch_live(ctx)] == ["Page"]


def test_500_is_retried_then_succeeds(httpserver, fast_retry, body):
    httpserver.expect_ordered_request(PATH).respond_with_response(Response("err", status=500))
    httpserver.expect_ordered_request(PATH).respond_with_json(body)
    assert len(fetch_once(httpserver, fast_retry)) == 1 and len(httpserver.log) == 2


def test_an_item_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json([{"Specs": {}}])
    with pytest.raises(UnexpectedResponse, match="OnDemandPrice"):
        fetch_once(httpserver, fast_retry)
