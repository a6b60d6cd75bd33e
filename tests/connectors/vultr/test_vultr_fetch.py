"""Vultr fetch through the real httpx client against a local server (no auth)."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext, FetchFailure
from connectors.vultr import fetch


@pytest.fixture
def recorded_plans(recorded):
    return recorded("vultr", "plans.json")


def fetch_all(httpserver, policy, endpoint):
    declared = {e.endpoint: e for e in fetch.ENDPOINTS}[endpoint]
    with make_client() as client:
        return list(declared.pages(client, base=httpserver.url_for("/v2"), policy=policy))


def test_cloud_gpu_plans_are_paged_by_the_meta_links_next_cursor(
    httpserver, fast_retry, recorded_plans
):
    first, second = recorded_plans["plans"]
    httpserver.expect_ordered_request(
        "/v2/plans", query_string="type=vcg&per_page=500"
    ).respond_with_json(first)
    httpserver.expect_ordered_request(
        "/v2/plans", query_string={"type": "vcg", "per_page": "500", "cursor": "bmV4dF9fdmNnLWExMDAtMjQ="}
    ).respond_with_json(second)
    pages = fetch_all(httpserver, fast_retry, "plans")
    assert [len(p.body["plans"]) for p in pages] == [3, 3]
    assert pages[1].request["params"]["cursor"] == "bmV4dF9fdmNnLWExMDAtMjQ="
    assert "Authorization" not in str(httpserver.log[0][0].headers)  # public: no key sent


def test_a_cursor_that_never_moves_fails_the_walk(httpserver, fast_retry, recorded_plans):
    httpserver.expect_request("/v2/plans").respond_with_json(recorded_plans["plans"][0])
    with pytest.raises(UnexpectedResponse, match="page 3 repeats an earlier request"):
        fetch_all(httpserver, fast_retry, "plans")
    assert len(httpserver.log) == 2


def test_5xx_is_retried_then_succeeds(httpserver, fast_retry, recorded_plans):
    httpserver.expect_ordered_request("/v2/plans-metal").respond_with_response(
        Response("bad gateway", status=502)
    )
    httpserver.expect_ordered_request("/v2/plans-metal").respond_with_json(
        recorded_plans["plans_metal"][0]
    )
    (page,) = fetch_all(httpserver, fast_retry, "plans_metal")
    assert page.endpoint == "plans_metal" and len(httpserver.log) == 2


def test_a_failing_endpoint_does_not_stop_the_other(httpserver, recorded_plans):
    httpserver.expect_request("/v2/plans").respond_with_json({"error": "nope"}, status=400)
    httpserver.expect_request("/v2/plans-metal").respond_with_json(recorded_plans["plans_metal"][0])
    items = list(fetch.fetch_live(FetchContext(settings={"vultr_url": httpserver.url_for("/v2")})))
    assert [type(i).__name__ for i in items] == ["FetchFailure", "Page"]
    assert isinstance(items[0], FetchFailure) and not items[0].skipped
    assert isinstance(items[0].error, UnexpectedResponse)


def test_a_plan_without_hourly_cost_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request("/v2/plans").respond_with_json(
        {"plans": [{"id": "vcg-x", "locations": []}], "meta": {"links": {"next": ""}}}
    )
    with pytest.raises(UnexpectedResponse, match="hourly_cost"):
        fetch_all(httpserver, fast_retry, "plans")
