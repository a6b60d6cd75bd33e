"""Crusoe fetch through the real httpx client against a local server: signed requests."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime

import pytest
from werkzeug import Response

from connectors.crusoe import fetch
from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

ACCESS, PROJECT = "AK123", "proj-42"
SECRET = base64.urlsafe_b64encode(b"crusoe-secret-bytes").decode().rstrip("=")
NOW = datetime(2026, 11, 20, 2, 0, 0, 123456, tzinfo=UTC)
TYPES = f"/v1alpha5/projects/{PROJECT}/compute/vms/types"


@pytest.fixture
def catalog(recorded):
    return recorded("crusoe", "catalog.json")


def fetch_all(httpserver, policy):
    auth = fetch.CrusoeAuth(ACCESS, SECRET, clock=lambda: NOW)
    base = httpserver.url_for("").rstrip("/")
    with make_client() as client:
        return [
            page
            for endpoint in fetch.ENDPOINTS
            for page in endpoint.pages(
                client,
                (PROJECT,) if endpoint.credentials else (),
                auth=auth,
                base=base,
                policy=policy,
            )
        ]


def expected_authorization(path: str) -> str:
    message = f"{path}\n\nGET\n2026-11-20T02:00:00+00:00\n".encode()
    digest = hmac.new(b"crusoe-secret-bytes", message, hashlib.sha256).digest()
    return f"Bearer 1.0:{ACCESS}:" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def test_both_endpoints_are_fetched_with_signed_requests(httpserver, fast_retry, catalog):
    for path, body in (
        (TYPES, catalog["vm_types"]),
        ("/v1alpha5/capacities", catalog["capacities"]),
    ):
        httpserver.expect_request(
            path,
            headers={
                "X-Crusoe-Timestamp": "2026-11-20T02:00:00+00:00",
                "Authorization": expected_authorization(path),
            },
        ).respond_with_json(body)
    pages = fetch_all(httpserver, fast_retry)
    assert [p.endpoint for p in pages] == ["vm_types", "capacities"]
    assert all(SECRET not in p.payload and ACCESS not in str(p.request) for p in pages)


def test_a_retry_is_signed_again(httpserver, fast_retry, catalog):
    httpserver.expect_ordered_request(TYPES).respond_with_response(Response("busy", status=503))
    httpserver.expect_ordered_request(
        TYPES, headers={"Authorization": expected_authorization(TYPES)}
    ).respond_with_json(catalog["vm_types"])
    httpserver.expect_ordered_request("/v1alpha5/capacities").respond_with_json(
        catalog["capacities"]
    )
    assert len(fetch_all(httpserver, fast_retry)) == 2
    assert all("Authorization" in req.headers for req, _ in httpserver.log)


@pytest.mark.parametrize("missing", ["CRUSOE_ACCESS_KEY", "CRUSOE_SECRET_KEY", "CRUSOE_PROJECT_ID"])
def test_without_all_three_credentials_the_provider_is_skipped(monkeypatch, missing):
    for var in ("CRUSOE_ACCESS_KEY", "CRUSOE_SECRET_KEY", "CRUSOE_PROJECT_ID"):
        monkeypatch.setenv(var, "x")
    monkeypatch.delenv(missing)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)


def test_a_body_without_items_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(TYPES).respond_with_json({"types": []})
    with pytest.raises(UnexpectedResponse, match="no 'items' list"):
        fetch_all(httpserver, fast_retry)
