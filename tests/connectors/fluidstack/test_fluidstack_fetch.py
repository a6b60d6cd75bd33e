"""FluidStack fetch through the real httpx client against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.fluidstack import fetch
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

PATH = "/list_available_configurations"
KEY = "fs-secret-key"


@pytest.fixture
def body(recorded):
    return recorded("fluidstack", "configurations.json")["response"]


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(
            fetch.fetch_configurations(client, KEY, url=httpserver.url_for(PATH), policy=policy)
        )


def test_configurations_are_fetched_with_the_api_key_header(httpserver, fast_retry, body):
    httpserver.expect_request(PATH, headers={"api-key": KEY}).respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and KEY not in page.payload and KEY not in str(page.request)


def test_without_a_key_the_provider_is_skipped(monkeypatch):
    monkeypatch.delenv("FLUIDSTACK_API_KEY", raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)


def test_fetch_live_reads_the_key_from_the_environment(httpserver, monkeypatch, body):
    monkeypatch.setenv("FLUIDSTACK_API_KEY", KEY)
    httpserver.expect_request(PATH, headers={"api-key": KEY}).respond_with_json(body)
    ctx = FetchContext(settings={"fluidstack_url": httpserver.url_for(PATH)})
    assert [type(i).__name__ for i in fetch.fetch_live(ctx)] == ["Page"]


def test_429_is_retried_then_succeeds(httpserver, fast_retry, body):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("slow", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(body)
    assert len(fetch_once(httpserver, fast_retry)) == 1 and len(httpserver.log) == 2


def test_an_item_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        [{"gpu_type": "H100_SXM5_80GB", "regions": []}]
    )
    with pytest.raises(UnexpectedResponse, match="price_per_gpu_hr"):
        fetch_once(httpserver, fast_retry)
