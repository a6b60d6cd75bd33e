"""CloudRift fetch through the real httpx client against a local server (no auth)."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.cloudrift import fetch
from connectors.errors import UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

PATH = "/api/v1/instance-types/list"
REQUEST = {
    "version": "2025-03-21",
    "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}},
}


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(fetch.fetch_instance_types(client, url=httpserver.url_for(PATH), policy=policy))


def test_the_versioned_rpc_body_is_posted_and_the_answer_kept(httpserver, fast_retry, recorded):
    body = recorded("cloudrift", "instance_types.json")
    httpserver.expect_request(PATH, method="POST", json=REQUEST).respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and page.request["body"] == REQUEST


def test_fetch_live_needs_no_credentials(httpserver, recorded):
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        recorded("cloudrift", "instance_types.json")
    )
    items = list(
        fetch.fetch_live(FetchContext(settings={"cloudrift_url": httpserver.url_for(PATH)}))
    )
    assert [type(i).__name__ for i in items] == ["Page"]


def test_503_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(Response("down", status=503))
    httpserver.expect_ordered_request(PATH).respond_with_json(
        recorded("cloudrift", "instance_types.json")
    )
    assert len(fetch_once(httpserver, fast_retry)) == 1 and len(httpserver.log) == 2


def test_a_bare_string_answer_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json("Invalid version")
    with pytest.raises(UnexpectedResponse, match=r"no data\.instance_types list"):
        fetch_once(httpserver, fast_retry)


def test_an_instance_type_without_variants_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json(
        {"data": {"instance_types": [{"brand_short": "RTX 4090"}]}}
    )
    with pytest.raises(UnexpectedResponse, match="variants"):
        fetch_once(httpserver, fast_retry)
