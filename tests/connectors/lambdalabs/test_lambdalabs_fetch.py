"""Lambda Cloud fetch through the real httpx client against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext, FetchFailure
from connectors.lambdalabs import fetch

PATH = "/api/v1/instance-types"
KEY = "secret-lambda-key-123"


def fetch_once(httpserver, policy, key=KEY):
    with make_client() as client:
        return list(
            fetch.fetch_instance_types(client, key, url=httpserver.url_for(PATH), policy=policy)
        )


def test_instance_types_are_fetched_with_the_key_as_a_bearer_header(
    httpserver, fast_retry, recorded
):
    body = recorded("lambdalabs", "instance_types.json")
    httpserver.expect_request(PATH, headers={"Authorization": f"Bearer {KEY}"}).respond_with_json(
        body
    )
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.provider == "lambdalabs" and page.endpoint == "instance_types"
    assert page.body == body
    assert page.source_url == httpserver.url_for(PATH)
    # the key is a credential: it never reaches what gets stored
    assert KEY not in page.payload and KEY not in str(page.request)


def test_without_lambda_api_key_the_provider_is_skipped_with_missing_credentials(monkeypatch):
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert isinstance(failure, FetchFailure)
    assert isinstance(failure.error, MissingCredentials)
    assert "LAMBDA_API_KEY" in str(failure.error)


def test_fetch_live_reads_the_key_from_the_environment(httpserver, monkeypatch, recorded):
    monkeypatch.setenv("LAMBDA_API_KEY", KEY)
    httpserver.expect_request(PATH, headers={"Authorization": f"Bearer {KEY}"}).respond_with_json(
        recorded("lambdalabs", "instance_types.json")
    )
    items = list(
        fetch.fetch_live(FetchContext(settings={"lambdalabs_url": httpserver.url_for(PATH)}))
    )
    assert [type(i).__name__ for i in items] == ["Page"]


def test_429_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("rate limited", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(
        recorded("lambdalabs", "instance_types.json")
    )
    (page,) = fetch_once(httpserver, fast_retry)
    assert "gpu_8x_h100_sxm5" in page.body["data"]
    assert len(httpserver.log) == 2


def test_a_body_without_a_data_object_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"instance_types": []})
    with pytest.raises(
        UnexpectedResponse, match="lambdalabs/instance_types: response has no 'data'"
    ):
        fetch_once(httpserver, fast_retry)


def test_an_instance_type_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        {"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10"}}}}
    )
    with pytest.raises(UnexpectedResponse, match="gpu_1x_a10"):
        fetch_once(httpserver, fast_retry)


def test_a_rejected_key_is_not_retried_and_the_error_does_not_echo_the_key(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        {"error": {"code": "global/invalid-api-key", "message": "API key was invalid"}},
        status=401,
    )
    with pytest.raises(UnexpectedResponse, match="HTTP 401") as info:
        fetch_once(httpserver, fast_retry)
    assert KEY not in str(info.value)
    assert len(httpserver.log) == 1
