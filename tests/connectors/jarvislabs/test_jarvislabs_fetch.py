"""JarvisLabs fetch through the real httpx client against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.jarvislabs import fetch
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

PATH = "/misc/server_meta"
KEY = "jl-secret-key-5"


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(
            fetch.fetch_server_meta(client, KEY, url=httpserver.url_for(PATH), policy=policy)
        )


def test_server_meta_is_fetched_with_the_key_as_a_bearer_header(httpserver, fast_retry, recorded):
    body = recorded("jarvislabs", "server_meta.json")
    httpserver.expect_request(PATH, headers={"Authorization": f"Bearer {KEY}"}).respond_with_json(
        body
    )
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and KEY not in page.payload and KEY not in str(page.request)


def test_without_a_key_the_provider_is_skipped(monkeypatch):
    for var in ("JL_API_KEY", "JARVISLABS_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)


def test_fetch_live_reads_the_key_from_the_environment(httpserver, monkeypatch, recorded):
    monkeypatch.setenv("JL_API_KEY", KEY)
    httpserver.expect_request(PATH, headers={"Authorization": f"Bearer {KEY}"}).respond_with_json(
        recorded("jarvislabs", "server_meta.json")
    )
    ctx = FetchContext(settings={"jarvislabs_url": httpserver.url_for(PATH)})
    assert [type(i).__name__ for i in fetch.fetch_live(ctx)] == ["Page"]


def test_429_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("slow", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(
        recorded("jarvislabs", "server_meta.json")
    )
    assert len(fetch_once(httpserver, fast_retry)) == 1 and len(httpserver.log) == 2


def test_a_row_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        {"server_meta": [{"gpu_type": "H100", "region": "europe-01"}]}
    )
    with pytest.raises(UnexpectedResponse, match="price_per_hour"):
        fetch_once(httpserver, fast_retry)
