"""Nebius fetch through the real `nebius` SDK against a local gRPC server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.kit.page import FetchContext, FetchFailure, Page
from connectors.nebius import fetch
from tests.connectors.nebius.nebius_server import serve

TOKEN = "nebius-iam-secret-token"


def fetch_all(address: str) -> list:
    return list(fetch.fetch_live(FetchContext(settings={"nebius_address": address})))


def test_a_page_per_region_with_platforms_and_estimates(monkeypatch):
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", TOKEN)
    with serve() as fake:
        pages = fetch_all(fake.address)
    assert [p.request["region"] for p in pages] == ["eu-north1", "us-central1"]
    north = pages[0].body
    assert north["project_id"] == "project-e00north"
    assert [p["metadata"]["name"] for p in north["platforms"]] == [
        "gpu-h100-sxm", "gpu-l40s-a", "cpu-d3"]  # fmt: skip
    # GPU presets only; a preemptible estimate only where the platform allows it
    keys = [(e["platform"], e["preset"], e["preemptible"]) for e in north["estimates"]]
    assert keys == [
        ("gpu-h100-sxm", "1gpu-16vcpu-200gb", False),
        ("gpu-h100-sxm", "1gpu-16vcpu-200gb", True),
        ("gpu-h100-sxm", "8gpu-128vcpu-1600gb", False),
        ("gpu-h100-sxm", "8gpu-128vcpu-1600gb", True),
        ("gpu-l40s-a", "1gpu-8vcpu-32gb", False),
    ]
    h100x8 = north["estimates"][2]["response"]["hourly_cost"]["general"]["total"]["cost"]
    assert h100x8 == "23.60"
    # the SDK sent the token as a Bearer credential; no page stores it
    assert {auth for _, auth in fake.calls} == {f"Bearer {TOKEN}"}
    assert [c for c, _ in fake.calls][:3] == [
        "nebius.iam.v1.TenantService/List", "nebius.iam.v1.ProjectService/List",
        "nebius.compute.v1.PlatformService/List"]  # fmt: skip
    for page in pages:
        assert TOKEN not in page.payload and TOKEN not in json.dumps(page.request)


def test_without_a_token_the_provider_is_skipped(monkeypatch):
    monkeypatch.delenv("NEBIUS_IAM_TOKEN", raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)
    assert "NEBIUS_IAM_TOKEN is not set" in str(failure.error)


def test_a_token_with_several_tenants_fails_with_the_count(monkeypatch):
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", TOKEN)
    with serve(tenants=2) as fake:
        (failure,) = fetch_all(fake.address)
    assert isinstance(failure, FetchFailure) and not failure.skipped
    assert "expected 1 tenant for the token, found 2" in str(failure.error)


def test_a_rejected_token_fails_with_the_grpc_code_and_never_shows_the_token(monkeypatch):
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", TOKEN)
    with serve(token="the-right-token") as fake:
        (failure,) = fetch_all(fake.address)
    assert isinstance(failure.error, UnexpectedResponse) and not failure.skipped
    assert "UNAUTHENTICATED" in str(failure.error) and TOKEN not in str(failure.error)


def test_an_unreachable_endpoint_is_one_failed_scope_without_the_token(monkeypatch):
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", TOKEN)
    monkeypatch.setattr(fetch.s, "TIMEOUT", 1)
    items = fetch_all("127.0.0.1:1")
    assert len(items) == 1 and isinstance(items[0].error, SourceUnavailable)
    assert not items[0].skipped and TOKEN not in str(items[0].error)
    assert not any(isinstance(i, Page) for i in items)


@pytest.fixture(scope="module")
def recorded_page() -> dict:
    """The fixture the parse tests read is what this fetch produced (regenerate with
    `uv run python -m tests.connectors.nebius.test_nebius_fetch`)."""
    from tests.conftest import FIXTURES

    return json.loads((FIXTURES / "nebius" / "regions.json").read_text())


def test_the_parse_fixture_is_what_the_sdk_fetch_produces(monkeypatch, recorded_page):
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", TOKEN)
    with serve() as fake:
        bodies = [p.body for p in fetch_all(fake.address)]
    assert {"pages": bodies} == {"pages": recorded_page["pages"]}


if __name__ == "__main__":
    import os

    from tests.conftest import FIXTURES

    os.environ["NEBIUS_IAM_TOKEN"] = TOKEN
    with serve() as fake:
        bodies = [p.body for p in fetch_all(fake.address)]
    out = {"_source": "Built by tests/connectors/nebius/test_nebius_fetch.py: the nebius SDK's fetch "
           "against tests/connectors/nebius/nebius_server.py (published protos, illustrative values).",
           "pages": bodies}  # fmt: skip
    (FIXTURES / "nebius" / "regions.json").write_text(json.dumps(out, indent=1) + "\n")
