"""Seeweb fetch through the real httpx client against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext
from connectors.seeweb import fetch

PATH = "/ecs/v2/plans"
TOKEN = "seeweb-secret-token"


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(fetch.fetch_plans(client, TOKEN, url=httpserver.url_for(PATH), policy=policy))


def test_plans_are_fetched_with_the_token_header(httpserver, fast_retry, recorded):
    body = recorded("seeweb", "plans.json")
    httpserver.expect_request(PATH, headers={"X-APITOKEN": TOKEN}).respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and TOKEN not in page.payload and TOKEN not in str(page.request)


def test_without_a_token_the_provider_is_skipped(monkeypatch):
    for var in ("SEEWEB_API_TOKEN", "SEEWEB_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)


def test_fetch_live_reads_the_token_from_the_environment(httpserver, monkeypatch, recorded):
    monkeypatch.setenv("SEEWEB_API_TOKEN", TOKEN)
    httpserver.expect_request(PATH, headers={"X-APITOKEN": TOKEN}).respond_with_json(
        recorded("seeweb", "plans.json")
    )
    ctx = FetchContext(settings={"seeweb_url": httpserver.url_for(PATH)})
    assert [type(i).__name__ for i in fetch.fetch_live(ctx)] == ["Page"]


def test_502_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(Response("x", status=502))
    httpserver.expect_ordered_request(PATH).respond_with_json(recorded("seeweb", "plans.json"))
    assert len(fetch_once(httpserver, fast_retry)) == 1 and len(httpserver.log) == 2


def test_a_body_without_plans_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"status": "error", "message": "nope"})
    with pytest.raises(UnexpectedResponse, match="no 'plans' list"):
        fetch_once(httpserver, fast_retry)
