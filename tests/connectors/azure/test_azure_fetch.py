"""Azure fetch through the real clients (httpx; azure-mgmt-compute) against local servers."""

from __future__ import annotations

import json

import pytest
from azure.core.credentials import AccessToken
from azure.mgmt.compute import ComputeManagementClient
from werkzeug import Response

from connectors.azure import fetch
from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.kit.http import RetryPolicy, make_client
from connectors.kit.page import FetchContext, FetchFailure
from tests.conftest import FIXTURES

FAST = RetryPolicy(attempts=3, backoff_s=0.01, max_retry_after_s=0.05)


def page(name: str, next_link: str | None = None) -> dict:
    body = json.loads((FIXTURES / "azure" / f"{name}.json").read_text())
    body["NextPageLink"] = next_link
    return body


def serve_walk(httpserver, pages: list[dict]) -> None:
    """First page at /api/retail/prices, the next ones at /next/<n> (as NextPageLink)."""
    for n, body in enumerate(pages):
        nxt = httpserver.url_for(f"/next/{n + 1}") if n + 1 < len(pages) else None
        body = {**body, "NextPageLink": nxt}
        path = "/api/retail/prices" if n == 0 else f"/next/{n}"
        httpserver.expect_ordered_request(path).respond_with_json(body)


def walk(httpserver, region: str = "eastus") -> list:
    with make_client() as client:
        return list(
            fetch.fetch_retail_prices(
                client, region, base_url=httpserver.url_for("/api/retail/prices"), policy=FAST
            )
        )


def test_walk_follows_next_page_link_until_it_is_null(httpserver):
    serve_walk(httpserver, [page("retail_page_1"), page("retail_page_2_new_fields")])
    pages = walk(httpserver)
    assert [len(p.body["Items"]) for p in pages] == [4, 2]
    assert pages[0].request["region"] == "eastus" and pages[0].scope == "eastus"
    assert "armRegionName eq 'eastus'" in pages[0].request["params"]["$filter"]
    httpserver.check_assertions()


def test_walk_stops_on_an_empty_items_page_even_with_a_next_link(httpserver):
    httpserver.expect_ordered_request("/api/retail/prices").respond_with_json(
        page("retail_page_1", httpserver.url_for("/next/1"))
    )
    httpserver.expect_ordered_request("/next/1").respond_with_json(
        page("retail_page_3_empty", httpserver.url_for("/next/2"))
    )
    pages = walk(httpserver)
    assert len(pages) == 2 and pages[-1].body["Items"] == []


def test_429_with_retry_after_is_retried_then_succeeds(httpserver):
    httpserver.expect_ordered_request("/api/retail/prices").respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request("/api/retail/prices").respond_with_json(page("retail_page_3_empty"))
    pages = walk(httpserver)
    assert len(pages) == 1
    assert len(httpserver.log) == 2


def test_persistent_5xx_raises_source_unavailable_after_the_retries(httpserver):
    httpserver.expect_request("/api/retail/prices").respond_with_data("boom", status=503)
    with pytest.raises(SourceUnavailable, match="HTTP 503"):
        walk(httpserver)
    assert len(httpserver.log) == FAST.attempts


def test_unknown_fields_are_kept_in_the_body_and_do_not_fail_the_fetch(httpserver):
    serve_walk(httpserver, [page("retail_page_2_new_fields")])
    (only,) = walk(httpserver)
    assert only.body["Items"][0]["aBrandNewField"] == {"nested": True}


def test_a_page_missing_a_required_field_raises_unexpected_response_with_an_excerpt(httpserver):
    serve_walk(httpserver, [page("retail_page_missing_price")])
    with pytest.raises(UnexpectedResponse) as info:
        walk(httpserver)
    message = str(info.value)
    assert message.startswith("azure/retail_prices: region eastus")
    assert "retailPrice" in message and "excerpt:" in message and "NV6ads" in message


def test_a_client_error_is_not_retried_and_names_the_status(httpserver):
    httpserver.expect_request("/api/retail/prices").respond_with_data("bad filter", status=400)
    with pytest.raises(UnexpectedResponse, match="HTTP 400"):
        walk(httpserver)
    assert len(httpserver.log) == 1


def test_a_failing_region_is_recorded_and_the_next_region_still_runs(httpserver):
    httpserver.expect_request("/api/retail/prices", query_string={
        "api-version": "2023-01-01-preview",
        "$filter": "serviceName eq 'Virtual Machines' and armRegionName eq 'westus2' "
                   "and contains(armSkuName, 'Standard_N')",
    }).respond_with_data("bad", status=400)
    httpserver.expect_request("/api/retail/prices").respond_with_json(page("retail_page_3_empty"))
    ctx = FetchContext(regions=("westus2", "eastus"),
                       settings={"retail_url": httpserver.url_for("/api/retail/prices")})
    items = list(fetch.fetch_live(ctx))
    failures = [i for i in items if isinstance(i, FetchFailure)]
    assert [(f.endpoint, f.scope) for f in failures if f.endpoint == "retail_prices"] == [
        ("retail_prices", "westus2")
    ]
    assert any(getattr(i, "scope", None) == "eastus" and not isinstance(i, FetchFailure) for i in items)
    # no subscription id in the environment: resource SKUs are skipped, not failed
    (skus,) = [f for f in failures if f.endpoint == "resource_skus"]
    assert isinstance(skus.error, MissingCredentials)


class FakeCredential:
    def get_token(self, *scopes, **kwargs):
        return AccessToken("not-a-real-token", 9_999_999_999)


def test_resource_skus_pages_through_the_real_sdk_client(httpserver):
    recorded = json.loads((FIXTURES / "azure" / "resource_skus_page.json").read_text())
    recorded.pop("_source")
    second = {"value": [{**recorded["value"][0], "name": "Standard_NC24ads_A100_v4",
                         "capabilities": [{"name": "vCPUs", "value": "24"},
                                          {"name": "MemoryGB", "value": "220"},
                                          {"name": "GPUs", "value": "1"}]}]}
    path = "/subscriptions/sub-id/providers/Microsoft.Compute/skus"
    httpserver.expect_ordered_request(path).respond_with_json(
        {**recorded, "nextLink": httpserver.url_for("/skus-page-2")}
    )
    httpserver.expect_ordered_request("/skus-page-2").respond_with_json(second)
    client = ComputeManagementClient(FakeCredential(), "sub-id", base_url=httpserver.url_for(""))
    # the SDK refuses bearer tokens over plain http unless told: the local server is http
    pages = list(fetch.fetch_resource_skus(client, "westus", enforce_https=False))
    assert [p.endpoint for p in pages] == ["resource_skus", "resource_skus"]
    assert pages[0].body["value"][0]["resourceType"] == "virtualMachines"
    assert pages[1].body["value"][0]["capabilities"][2] == {"name": "GPUs", "value": "1"}
    first_request = httpserver.log[0][0]
    assert first_request.args["$filter"] == "location eq 'westus'"
    assert first_request.headers["Authorization"] == "Bearer not-a-real-token"


def test_resource_skus_throttling_maps_to_source_unavailable(httpserver):
    httpserver.expect_request("/subscriptions/sub-id/providers/Microsoft.Compute/skus").respond_with_data(
        "{}", status=429, headers={"Retry-After": "0"}
    )
    client = ComputeManagementClient(FakeCredential(), "sub-id", base_url=httpserver.url_for(""),
                                     retry_total=0)
    with pytest.raises(SourceUnavailable, match="HTTP 429"):
        list(fetch.fetch_resource_skus(client, "westus", enforce_https=False))


def test_missing_subscription_id_is_missing_credentials(monkeypatch):
    monkeypatch.delenv("AZURE_SUBSCRIPTION_ID", raising=False)
    with pytest.raises(MissingCredentials, match="AZURE_SUBSCRIPTION_ID"):
        fetch.compute_client_from_env()


def test_a_next_page_link_pointing_at_itself_fails_the_region_naming_the_link(httpserver):
    loop = httpserver.url_for("/next/1")
    httpserver.expect_request("/api/retail/prices").respond_with_json(page("retail_page_1", loop))
    httpserver.expect_request("/next/1").respond_with_json(page("retail_page_1", loop))
    with pytest.raises(UnexpectedResponse, match="paging cycle") as info:
        walk(httpserver)
    assert loop in str(info.value)
    assert len(httpserver.log) == 2  # page 1, then /next/1 once: the repeat is not requested


def test_a_two_page_cycle_back_to_the_first_page_is_stopped(httpserver):
    first = httpserver.url_for("/api/retail/prices") + (
        "?api-version=2023-01-01-preview&%24filter=serviceName+eq+%27Virtual+Machines%27+and+"
        "armRegionName+eq+%27eastus%27+and+contains%28armSkuName%2C+%27Standard_N%27%29"
    )
    httpserver.expect_request("/api/retail/prices").respond_with_json(
        page("retail_page_1", httpserver.url_for("/next/1"))
    )
    httpserver.expect_request("/next/1").respond_with_json(page("retail_page_1", first))
    with pytest.raises(UnexpectedResponse, match="already requested for page 1"):
        walk(httpserver)
    assert len(httpserver.log) == 2


def test_a_walk_that_never_ends_stops_at_the_page_limit(httpserver):
    # every page links to a new one (/next/1, /next/2, ...): no cycle, no end
    def handler(request):
        n = int(request.path.rsplit("/", 1)[-1]) if request.path.startswith("/next/") else 0
        return Response(json.dumps(page("retail_page_1", httpserver.url_for(f"/next/{n + 1}"))),
                        content_type="application/json")

    httpserver.expect_request(__import__("re").compile("/.*")).respond_with_handler(handler)
    with make_client() as client, pytest.raises(UnexpectedResponse, match="after 5 pages") as info:
        list(fetch.fetch_retail_prices(client, "eastus", base_url=httpserver.url_for(
            "/api/retail/prices"), policy=FAST, max_pages=5))
    assert "/next/5" in str(info.value)
    assert len(httpserver.log) == 5


@pytest.mark.parametrize("retry_after", ["soon", "Wed, 21 Oct 2015 07:28:00", "nan", ""])
def test_429_with_an_unreadable_retry_after_backs_off_and_retries(httpserver, retry_after):
    httpserver.expect_ordered_request("/api/retail/prices").respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": retry_after})
    )
    httpserver.expect_ordered_request("/api/retail/prices").respond_with_json(page("retail_page_3_empty"))
    pages = walk(httpserver)
    assert len(pages) == 1 and len(httpserver.log) == 2


def test_persistent_429_with_an_unreadable_retry_after_is_source_unavailable(httpserver):
    httpserver.expect_request("/api/retail/prices").respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "whenever"})
    )
    with pytest.raises(SourceUnavailable, match="HTTP 429"):
        walk(httpserver)
    assert len(httpserver.log) == FAST.attempts
