"""RunPod fetch: the GraphQL gpuTypes query through httpx against a local server."""

from __future__ import annotations

import json

import pytest
from werkzeug import Response

from connectors.errors import UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext, FetchFailure
from connectors.runpod import fetch

PATH = "/graphql"


def fetch_once(httpserver, policy, key=None):
    with make_client() as client:
        return list(fetch.fetch_gpu_types(client, key, url=httpserver.url_for(PATH), policy=policy))


def test_gpu_types_are_queried_without_a_key_as_gpuhunt_does(httpserver, fast_retry, recorded):
    body = recorded("runpod", "gpu_types.json")
    httpserver.expect_request(PATH, method="POST").respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    ((request, _),) = httpserver.log
    assert "Authorization" not in request.headers
    sent = json.loads(request.data)
    assert "gpuTypes" in sent["query"] and "communitySpotPrice" in sent["query"]
    assert page.body == body and page.request["query"] == sent["query"]


def test_missing_runpod_api_key_still_fetches_keyless(httpserver, monkeypatch, recorded):
    monkeypatch.delenv("RUNPOD_API_KEY", raising=False)
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        recorded("runpod", "gpu_types.json")
    )
    items = list(fetch.fetch_live(FetchContext(settings={"runpod_url": httpserver.url_for(PATH)})))
    assert [type(i).__name__ for i in items] == ["Page"]


def test_a_key_when_set_is_a_bearer_header_and_never_stored(httpserver, fast_retry, recorded):
    httpserver.expect_request(
        PATH, method="POST", headers={"Authorization": "Bearer rp-secret"}
    ).respond_with_json(recorded("runpod", "gpu_types.json"))
    (page,) = fetch_once(httpserver, fast_retry, key="rp-secret")
    assert "rp-secret" not in page.payload and "rp-secret" not in json.dumps(page.request)
    assert "api_key" not in httpserver.log[0][0].url


def test_graphql_errors_with_http_200_are_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        {"errors": [{"message": 'Cannot query field "secureSpotPrice" on type "GpuType".'}]}
    )
    with pytest.raises(UnexpectedResponse, match="GraphQL errors: Cannot query field"):
        fetch_once(httpserver, fast_retry)
    assert len(httpserver.log) == 1  # not retried


def test_429_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(recorded("runpod", "gpu_types.json"))
    (page,) = fetch_once(httpserver, fast_retry)
    assert len(page.body["data"]["gpuTypes"]) == 5
    assert len(httpserver.log) == 2


def test_a_body_without_data_gpu_types_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"data": {"gpuTypes": None}})
    with pytest.raises(UnexpectedResponse, match=r"no data\.gpuTypes list"):
        fetch_once(httpserver, fast_retry)


def test_a_failed_fetch_is_yielded_as_a_failure_not_raised(httpserver):
    httpserver.expect_request(PATH).respond_with_data("not json", status=200)
    (failure,) = list(
        fetch.fetch_live(FetchContext(settings={"runpod_url": httpserver.url_for(PATH)}))
    )
    assert isinstance(failure, FetchFailure) and isinstance(failure.error, UnexpectedResponse)
