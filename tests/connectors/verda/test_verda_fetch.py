"""Verda fetch through the real httpx client against a local server: the OAuth2 token
exchange, then instance types and locations with the bearer token."""

from __future__ import annotations

import json

import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.auth import BearerAuth
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext
from connectors.verda import fetch

CLIENT_ID, SECRET, TOKEN = "client-abc", "secret-verda-99", "token-verda-77"
TOKEN_BODY = {
    "access_token": TOKEN,
    "refresh_token": "refresh-1",
    "scope": "cloud-api-v1",
    "token_type": "Bearer",
    "expires_in": 3600,
}


@pytest.fixture
def bodies(recorded):
    return (
        recorded("verda", "instance_types.json")["response"],
        recorded("verda", "locations.json")["response"],
    )


def serve(httpserver, bodies):
    types, locations = bodies
    httpserver.expect_request(
        "/v1/oauth2/token",
        method="POST",
        json={"grant_type": "client_credentials", "client_id": CLIENT_ID, "client_secret": SECRET},
    ).respond_with_json(TOKEN_BODY)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    httpserver.expect_request(
        "/v1/instance-types", query_string="currency=usd", headers=bearer
    ).respond_with_json(types)
    httpserver.expect_request("/v1/locations", headers=bearer).respond_with_json(locations)


def test_fetch_live_exchanges_the_client_credentials_then_fetches_both_endpoints(
    httpserver, monkeypatch, bodies
):
    monkeypatch.setenv("VERDA_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("VERDA_CLIENT_SECRET", SECRET)
    serve(httpserver, bodies)
    items = list(fetch.fetch_live(FetchContext(settings={"verda_url": httpserver.url_for("/v1")})))
    assert [(p.endpoint, len(p.body)) for p in items] == [("instance_types", 5), ("locations", 3)]
    stored = json.dumps([(p.request, p.payload) for p in items])
    assert SECRET not in stored and TOKEN not in stored


def test_without_client_credentials_the_provider_is_skipped(monkeypatch):
    for var in ("VERDA_CLIENT_ID", "VERDA_CLIENT_SECRET", "DATACRUNCH_CLIENT_ID",
                "DATACRUNCH_CLIENT_SECRET"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)
    assert "VERDA_CLIENT_ID" in str(failure.error)


def catalog(httpserver, policy):
    """Both endpoints walked with the token, as the fetch does after the token step."""
    with make_client() as client:
        return [
            page
            for endpoint in fetch.ENDPOINTS
            for page in endpoint.pages(
                client, auth=BearerAuth(TOKEN), base=httpserver.url_for("/v1"), policy=policy
            )
        ]


def test_the_token_is_asked_once_for_both_endpoints(httpserver, monkeypatch, bodies):
    monkeypatch.setenv("VERDA_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("VERDA_CLIENT_SECRET", SECRET)
    serve(httpserver, bodies)
    list(fetch.fetch_live(FetchContext(settings={"verda_url": httpserver.url_for("/v1")})))
    asked = [request.path for request, _ in httpserver.log]
    assert asked == ["/v1/oauth2/token", "/v1/instance-types", "/v1/locations"]


def test_a_refused_token_is_one_failure_and_no_catalog_request(httpserver, monkeypatch):
    monkeypatch.setenv("VERDA_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("VERDA_CLIENT_SECRET", SECRET)
    httpserver.expect_request("/v1/oauth2/token").respond_with_json({"message": "no"}, status=401)
    ctx = FetchContext(settings={"verda_url": httpserver.url_for("/v1")})
    (failure,) = list(fetch.fetch_live(ctx))
    assert failure.endpoint == "instance_types" and not failure.skipped
    assert "HTTP 401" in str(failure.error) and SECRET not in str(failure.error)
    assert len(httpserver.log) == 1


def test_a_5xx_on_the_catalog_is_retried(httpserver, fast_retry, bodies):
    types, _ = bodies
    httpserver.expect_ordered_request("/v1/instance-types").respond_with_response(
        Response("busy", status=503)
    )
    httpserver.expect_ordered_request("/v1/instance-types").respond_with_json(types)
    httpserver.expect_ordered_request("/v1/locations").respond_with_json([])
    pages = catalog(httpserver, fast_retry)
    assert [p.endpoint for p in pages] == ["instance_types", "locations"]
    assert len(httpserver.log) == 3


def test_a_rejected_secret_fails_without_echoing_it(httpserver, fast_retry):
    httpserver.expect_request("/v1/oauth2/token").respond_with_json(
        {"code": "unauthorized_request", "message": "Invalid client credentials"}, status=401
    )
    with make_client() as client, pytest.raises(UnexpectedResponse, match="HTTP 401") as info:
        fetch.TOKEN.token(
            client, "verda", (CLIENT_ID, SECRET), base=httpserver.url_for("/v1"), policy=fast_retry
        )
    assert SECRET not in str(info.value)


def test_a_token_response_without_a_token_names_only_its_keys(httpserver, fast_retry):
    httpserver.expect_request("/v1/oauth2/token").respond_with_json({"token_type": "Bearer"})
    with make_client() as client, pytest.raises(UnexpectedResponse, match=r"\['token_type'\]"):
        fetch.TOKEN.token(
            client, "verda", (CLIENT_ID, SECRET), base=httpserver.url_for("/v1"), policy=fast_retry
        )


def test_an_instance_type_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request("/v1/instance-types").respond_with_json(
        [{"instance_type": "1H100.80S.30V", "gpu": {}}]
    )
    with pytest.raises(UnexpectedResponse, match="price_per_hour"):
        catalog(httpserver, fast_retry)
