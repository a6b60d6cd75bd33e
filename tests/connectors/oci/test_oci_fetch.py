"""OCI fetch: the public cetools price list through httpx against a local server."""

from __future__ import annotations

import pytest
from werkzeug import Response

from connectors.errors import SourceUnavailable, UnexpectedResponse
from connectors.kit.http import RetryPolicy, make_client
from connectors.kit.page import FetchContext, FetchFailure
from connectors.oci import fetch

PATH = "/pls/apex/cetools/api/v1/products/"


def fetch_once(httpserver, policy):
    with make_client() as client:
        return list(fetch.fetch_products(client, url=httpserver.url_for(PATH), policy=policy))


def test_the_price_list_is_asked_for_in_usd_without_credentials(httpserver, fast_retry, recorded):
    body = recorded("oci", "products.json")
    httpserver.expect_request(PATH, query_string={"currencyCode": "USD"}).respond_with_json(body)
    (page,) = fetch_once(httpserver, fast_retry)
    assert page.body == body and page.request["params"] == {"currencyCode": "USD"}
    assert "Authorization" not in httpserver.log[0][0].headers


def test_fetch_live_needs_no_key(httpserver, recorded):
    httpserver.expect_request(PATH).respond_with_json(recorded("oci", "products.json"))
    items = list(fetch.fetch_live(FetchContext(settings={"oci_url": httpserver.url_for(PATH)})))
    assert [type(i).__name__ for i in items] == ["Page"]


def test_429_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(recorded("oci", "products.json"))
    (page,) = fetch_once(httpserver, fast_retry)
    assert len(page.body["items"]) == 8 and len(httpserver.log) == 2


def test_persistent_5xx_is_source_unavailable_and_becomes_a_fetch_failure(httpserver):
    httpserver.expect_request(PATH).respond_with_data("maintenance", status=503)
    with make_client() as client, pytest.raises(SourceUnavailable, match="HTTP 503"):
        list(
            fetch.fetch_products(
                client, url=httpserver.url_for(PATH), policy=RetryPolicy(attempts=2, backoff_s=0.01)
            )
        )


def test_a_body_without_items_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"message": "ORA-20987: APEX"})
    with pytest.raises(UnexpectedResponse, match="oci/products: response has no 'items' list"):
        fetch_once(httpserver, fast_retry)


def test_an_item_without_its_price_fields_is_an_unexpected_response(httpserver):
    httpserver.expect_request(PATH).respond_with_json({"items": [{"partNumber": "B98415"}]})
    (failure,) = list(
        fetch.fetch_live(FetchContext(settings={"oci_url": httpserver.url_for(PATH)}))
    )
    assert isinstance(failure, FetchFailure) and isinstance(failure.error, UnexpectedResponse)
    assert "currencyCodeLocalizations" in str(failure.error)
