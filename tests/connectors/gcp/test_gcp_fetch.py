"""GCP fetch through the real google-cloud-billing client (REST transport) against a local
server serving recorded-shape pages."""

from __future__ import annotations

import json
import socket

import google.auth.credentials
import google.auth.exceptions
import pytest
from werkzeug import Response

from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.gcp import fetch, parse, settings
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchContext, FetchFailure, Page, pages_frame
from tests.conftest import FIXTURES

SKUS_PATH = "/v1/services/6F81-5844-456A/skus"
SECRET = "AIza-test-key-never-stored"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / "gcp" / f"{name}.json").read_text())


def fast_retry():
    return fetch.default_retry(initial=0.01, maximum=0.02, timeout=0.5)


def local_client(httpserver, api_key: str = SECRET):
    return fetch.make_client(api_key=api_key, api_endpoint=httpserver.url_for("").rstrip("/"))


def serve_catalog(httpserver) -> None:
    """Page 1 (the opencost recording, with its real nextPageToken), then page 2 (last)."""
    first, second = fixture("skus_page_1"), fixture("skus_page_2")

    def handler(request):
        body = second if request.args.get("pageToken") == first["nextPageToken"] else first
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request(SKUS_PATH).respond_with_handler(handler)


def walk(httpserver, **kwargs) -> list[Page]:
    return list(fetch.fetch_skus(local_client(httpserver), retry=fast_retry(), **kwargs))


def json_error(status: int, body: dict) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")


def google_error(code: int, status: str, message: str, reason: str = "") -> dict:
    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason}]
    return {"error": {"code": code, "message": message, "status": status, "details": details}}


def test_walk_follows_next_page_token_until_it_is_empty(httpserver):
    serve_catalog(httpserver)
    pages = walk(httpserver)
    assert [len(p.body["skus"]) for p in pages] == [3, 31]
    assert [p.request["pageToken"] for p in pages] == ["", fixture("skus_page_1")["nextPageToken"]]
    assert pages[-1].body["nextPageToken"] == ""
    assert {p.scope for p in pages} == {settings.SERVICE}
    assert [r.args.get("pageSize") for r, _ in httpserver.log] == ["5000", "5000"]
    assert all(r.args.get("currencyCode") == "USD" for r, _ in httpserver.log)


def test_page_body_is_the_rest_json_of_the_recording(httpserver):
    serve_catalog(httpserver)
    body = walk(httpserver)[0].body
    recorded = fixture("skus_page_1")
    # same keys and values as the recording: camelCase, int64 units as strings, enum names
    assert body["skus"] == recorded["skus"]
    assert body["nextPageToken"] == recorded["nextPageToken"]
    money = body["skus"][0]["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]
    assert money["unitPrice"] == {"currencyCode": "USD", "units": "2", "nanos": 933908000}
    assert body["skus"][0]["geoTaxonomy"]["type"] == "MULTI_REGIONAL"


def test_recorded_pages_replay_through_a_snapshot_to_the_same_offers(httpserver, tmp_path):
    from polars.testing import assert_frame_equal

    serve_catalog(httpserver)
    live = walk(httpserver)
    kit_snapshot.write_pages(tmp_path, live)
    replayed = list(kit_snapshot.read_provider(tmp_path, "gcp"))
    assert [p.decoded() for p in replayed] == [p.body for p in live]

    assert_frame_equal(parse.parse(pages_frame(replayed)), parse.parse(pages_frame(live)))


def test_api_key_is_sent_as_a_header_and_never_stored(httpserver, monkeypatch, tmp_path):
    serve_catalog(httpserver)
    monkeypatch.setenv(settings.API_KEY_ENV, SECRET)
    client = fetch.client_from_env(api_endpoint=httpserver.url_for("").rstrip("/"))
    pages = list(fetch.fetch_skus(client, retry=fast_retry()))
    request, _ = httpserver.log[0]
    assert request.headers.get("X-Goog-Api-Key") == SECRET
    assert SECRET not in request.url
    kit_snapshot.write_pages(tmp_path, pages)
    written = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    assert SECRET not in written
    assert all(SECRET not in json.dumps(p.request) + (p.source_url or "") for p in pages)


def test_no_api_key_and_no_adc_is_missing_credentials(monkeypatch, tmp_path):
    from google.auth.compute_engine import _metadata

    monkeypatch.delenv(settings.API_KEY_ENV, raising=False)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file here
    monkeypatch.setattr(_metadata, "_NO_GCE_CHECK", True)  # and no metadata server probe
    with pytest.raises(MissingCredentials, match="Application Default Credentials"):
        fetch.client_from_env()
    failures = list(fetch.fetch_live(FetchContext()))
    assert len(failures) == 1 and isinstance(failures[0], FetchFailure)
    assert isinstance(failures[0].error, MissingCredentials)
    assert failures[0].scope == settings.SERVICE  # the same scope a page would carry


def test_invalid_api_key_is_missing_credentials(httpserver):
    recorded = fixture("api_key_invalid")  # the recorded answer to a bad key
    httpserver.expect_request(SKUS_PATH).respond_with_response(json_error(400, recorded))
    with pytest.raises(MissingCredentials, match="API_KEY_INVALID"):
        walk(httpserver)


def test_429_is_retried_then_succeeds(httpserver):
    httpserver.expect_ordered_request(SKUS_PATH).respond_with_response(
        json_error(
            429, google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", "RATE_LIMIT_EXCEEDED")
        )
    )
    httpserver.expect_ordered_request(SKUS_PATH).respond_with_json(fixture("skus_page_2"))
    pages = walk(httpserver)
    assert len(pages) == 1 and len(pages[0].body["skus"]) == 31
    assert len(httpserver.log) == 2


@pytest.mark.parametrize("status", [429, 503])
def test_persistent_throttling_or_5xx_raises_source_unavailable(httpserver, status):
    httpserver.expect_request(SKUS_PATH).respond_with_response(
        json_error(status, google_error(status, "UNAVAILABLE", "try later"))
    )
    with pytest.raises(SourceUnavailable, match=f"retries exhausted.*{status}"):
        walk(httpserver)
    assert len(httpserver.log) >= 2  # retried, not given up at the first answer


def test_permission_denied_is_unexpected_response_and_not_retried(httpserver):
    body = google_error(
        403,
        "PERMISSION_DENIED",
        "Cloud Billing API has not been used in project 1",
        "SERVICE_DISABLED",
    )
    httpserver.expect_request(SKUS_PATH).respond_with_response(json_error(403, body))
    with pytest.raises(UnexpectedResponse, match="HTTP 403 SERVICE_DISABLED") as info:
        walk(httpserver)
    assert "has not been used" in info.value.excerpt
    assert len(httpserver.log) == 1


@pytest.mark.parametrize("body", ["<html>proxy error</html>", json.dumps({"skus": 5})])
def test_a_body_that_is_not_a_list_skus_response_is_unexpected(httpserver, body):
    httpserver.expect_request(SKUS_PATH).respond_with_data(body, content_type="application/json")
    with pytest.raises(UnexpectedResponse, match="not a ListSkusResponse"):
        walk(httpserver)


def test_sku_without_a_description_is_schema_drift(httpserver):
    page = fixture("skus_page_1")
    del page["skus"][1]["description"]
    httpserver.expect_request(SKUS_PATH).respond_with_json({**page, "nextPageToken": ""})
    with pytest.raises(UnexpectedResponse, match=r"SKU 1: lacks \['description'\]"):
        walk(httpserver)


def test_an_empty_catalog_is_unexpected_not_an_empty_price_list(httpserver):
    httpserver.expect_request(SKUS_PATH).respond_with_json({"skus": [], "nextPageToken": ""})
    with pytest.raises(UnexpectedResponse, match="returned no SKUs"):
        walk(httpserver)


def test_connection_refused_is_source_unavailable():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = fetch.make_client(api_key="k", api_endpoint=f"http://127.0.0.1:{port}")
    with pytest.raises(SourceUnavailable, match="ConnectionError"):
        list(fetch.fetch_skus(client, retry=fast_retry()))


def test_a_walk_failing_half_way_yields_its_pages_then_a_failure_of_the_scope(
    httpserver, monkeypatch
):
    first = fixture("skus_page_1")
    httpserver.expect_ordered_request(SKUS_PATH).respond_with_json(first)
    httpserver.expect_ordered_request(SKUS_PATH).respond_with_response(
        json_error(403, google_error(403, "PERMISSION_DENIED", "denied", "IAM_PERMISSION_DENIED"))
    )
    monkeypatch.setattr(fetch, "client_from_env", lambda: local_client(httpserver))
    items = list(fetch.fetch_live(FetchContext()))
    assert isinstance(items[0], Page) and isinstance(items[1], FetchFailure)
    assert items[1].scope == items[0].scope == settings.SERVICE
    assert isinstance(items[1].error, UnexpectedResponse)


def test_a_page_where_no_sku_has_a_price_is_schema_drift(httpserver):
    page = fixture("skus_page_1")
    for sku in page["skus"]:  # as if pricingInfo had been renamed
        sku["pricing"] = sku.pop("pricingInfo")
    httpserver.expect_request(SKUS_PATH).respond_with_json({**page, "nextPageToken": ""})
    with pytest.raises(UnexpectedResponse, match="none of its 3 SKUs has pricingInfo"):
        walk(httpserver)


class _CredentialsThatFailToRefresh(google.auth.credentials.Credentials):
    def __init__(self, exc: Exception) -> None:
        super().__init__()
        self.exc = exc

    def refresh(self, request) -> None:
        raise self.exc

    @property
    def expired(self) -> bool:
        return True

    @property
    def valid(self) -> bool:
        return False


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (google.auth.exceptions.RefreshError("token revoked"), MissingCredentials),
        (google.auth.exceptions.TransportError("token endpoint down"), SourceUnavailable),
    ],
)
def test_credentials_that_fail_to_refresh_map_to_our_error_types(exc, expected):
    from google.cloud import billing_v1

    client = billing_v1.CloudCatalogClient(
        credentials=_CredentialsThatFailToRefresh(exc),
        transport="rest",
        client_options={"api_endpoint": "http://127.0.0.1:9"},  # never reached
    )
    with pytest.raises(expected, match="gcp/skus"):
        list(fetch.fetch_skus(client))


def test_a_next_page_token_that_comes_back_is_a_paging_cycle(httpserver):
    first = fixture("skus_page_1")  # every request answered with page 1 and its token
    httpserver.expect_request(SKUS_PATH).respond_with_json(first)
    with pytest.raises(UnexpectedResponse, match="repeats an earlier nextPageToken"):
        walk(httpserver)
    assert len(httpserver.log) == 2


@pytest.mark.parametrize(
    ("status", "body", "error", "text"),
    [
        (400, '"bad request"', UnexpectedResponse, "HTTP 400"),
        (403, '{"error": "forbidden by a proxy"}', UnexpectedResponse, "HTTP 403"),
        (404, "<html>not here</html>", UnexpectedResponse, "HTTP 404"),
        (502, "<html>Bad gateway</html>", SourceUnavailable, "502"),
    ],
)
def test_an_error_body_not_shaped_like_googles_keeps_its_status(httpserver, status, body, error, text):
    """A gateway's or proxy's body is one line naming the status, not an AttributeError."""
    httpserver.expect_request(SKUS_PATH).respond_with_response(Response(body, status))
    with pytest.raises(error, match=text):
        walk(httpserver)
