"""Hyperstack fetch through the real httpx client against a local server."""

from __future__ import annotations

import httpx
import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.hyperstack import fetch
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext, FetchFailure

PATH = "/v1/pricebook"
KEY = "secret-hyperstack-key-42"


@pytest.fixture
def body(recorded):
    return recorded("hyperstack", "pricebook.json")["response"]


def fetch_once(httpserver, policy, key=KEY):
    with make_client() as client:
        return list(fetch.fetch_pricebook(client, key, url=httpserver.url_for(PATH), policy=policy))


def test_the_pricebook_is_fetched_with_the_key_in_the_api_key_header(fast_retry, body):
    # httpx's MockTransport: werkzeug's server drops header names with underscores
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=body)

    with make_client(transport=httpx.MockTransport(handler)) as client:
        (page,) = fetch.fetch_pricebook(client, KEY, policy=fast_retry)
    assert seen[0].headers["api_key"] == KEY
    assert str(seen[0].url) == "https://infrahub-api.nexgencloud.com/v1/pricebook"
    assert (page.provider, page.endpoint) == ("hyperstack", "pricebook")
    assert page.body == body
    assert KEY not in page.payload and KEY not in str(page.request)


def test_without_hyperstack_api_key_the_provider_is_skipped(monkeypatch):
    monkeypatch.delenv("HYPERSTACK_API_KEY", raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert isinstance(failure, FetchFailure) and failure.skipped
    assert isinstance(failure.error, MissingCredentials)
    assert "HYPERSTACK_API_KEY" in str(failure.error)


def test_fetch_live_reads_the_key_from_the_environment(httpserver, monkeypatch, body):
    monkeypatch.setenv("HYPERSTACK_API_KEY", KEY)
    httpserver.expect_request(PATH).respond_with_json(body)
    items = list(
        fetch.fetch_live(FetchContext(settings={"hyperstack_url": httpserver.url_for(PATH)}))
    )
    assert [type(i).__name__ for i in items] == ["Page"]


def test_500_then_429_are_retried_then_succeed(httpserver, fast_retry, body):
    httpserver.expect_ordered_request(PATH).respond_with_response(Response("oops", status=500))
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body[0]["name"] == "RTX-A4000"
    assert len(httpserver.log) == 3


def test_an_enveloped_body_instead_of_a_bare_array_is_an_unexpected_response(
    httpserver, fast_retry
):
    httpserver.expect_request(PATH).respond_with_json({"status": True, "pricebook": []})
    with pytest.raises(UnexpectedResponse, match="hyperstack/pricebook: response is not a JSON"):
        fetch_once(httpserver, fast_retry)


def test_an_entry_without_a_value_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json([{"id": 1, "name": "L40"}])
    with pytest.raises(UnexpectedResponse, match=r"lacks required field\(s\) \['value'\]"):
        fetch_once(httpserver, fast_retry)


def test_a_rejected_key_is_not_retried_and_not_echoed(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        {"status": False, "message": "Unauthorized"}, status=401
    )
    with pytest.raises(UnexpectedResponse, match="HTTP 401") as info:
        fetch_once(httpserver, fast_retry)
    assert KEY not in str(info.value)
    assert len(httpserver.log) == 1
