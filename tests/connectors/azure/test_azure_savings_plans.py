"""Azure savings plans for compute: the Retail Prices `savingsPlan` array (api-version
2023-01-01-preview) on VM Consumption items -> savings_plan_1y / savings_plan_3y offers,
through the real fetch (httpx against a local server), the pure parse and the refresh."""

from __future__ import annotations

import json

import polars as pl
import pytest

from connectors.azure import fetch, parse, settings
from connectors.kit.http import make_client
from connectors.kit.normalise import normalise
from tests.conftest import FIXTURES
from tests.connectors.azure.test_azure_fetch import FAST
from tests.connectors.azure.test_azure_parse import item, parsed, retail_pages

PAGE = json.loads((FIXTURES / "azure" / "retail_page_savings_plan.json").read_text())


def test_fetch_asks_the_api_version_that_returns_savings_plans_and_keeps_them(httpserver):
    httpserver.expect_request("/api/retail/prices", method="GET").respond_with_json(PAGE)
    with make_client() as client:
        pages = list(
            fetch.fetch_retail_prices(
                client, "eastus", base_url=httpserver.url_for("/api/retail/prices"), policy=FAST
            )
        )
    assert pages[0].body["Items"][0]["savingsPlan"][1] == {
        "unitPrice": 20.9417,
        "retailPrice": 20.9417,
        "term": "1 Year",
    }
    (request, _), = httpserver.log
    assert request.args["api-version"] == "2023-01-01-preview"


def test_each_savings_plan_term_is_its_own_pricing_model_at_the_hourly_rate():
    offers = normalise(parse.parse(retail_pages(PAGE))).offers.sort("pricing_model")
    rows = offers.select(
        "pricing_model", "pricing_detail", "price_usd_per_hour", "price_usd_per_gpu_hour"
    ).rows()
    # ND96asr v4 (8 x A100 40GB): 27.197 on demand; 20.9417 / 15.7743 under 1y / 3y plans
    assert rows == [
        ("on_demand", None, 27.197, pytest.approx(27.197 / 8)),
        ("savings_plan_1y", "savings plan for compute, 1 Year", 20.9417, pytest.approx(20.9417 / 8)),
        ("savings_plan_3y", "savings plan for compute, 3 Years", 15.7743, pytest.approx(15.7743 / 8)),
        ("spot", None, 10.8788, pytest.approx(10.8788 / 8)),
    ]
    assert set(offers["instance_type"]) == {"Standard_ND96asr_v4"}


def test_a_windows_items_savings_plans_are_excluded_with_it():
    result = normalise(parse.parse(retail_pages(PAGE)))
    windows = result.excluded.filter(pl.col("reason") == settings.EXCLUDE_WINDOWS)
    assert windows["n"].to_list() == [3]  # the item and its two plans


def test_a_plan_price_that_is_not_a_number_is_rejected_and_an_odd_term_excluded():
    frame = parsed(
        item(
            savingsPlan=[
                {"unitPrice": "n/a", "retailPrice": "n/a", "term": "1 Year"},
                {"unitPrice": 12.0, "retailPrice": 12.0, "term": "5 Years"},
            ]
        )
    )
    result = normalise(frame)
    assert result.offers["pricing_model"].to_list() == ["on_demand"]
    assert result.rejected["reason"].to_list() == ["savingsPlan retailPrice n/a is not a number"]
    assert result.excluded["reason"].to_list() == [
        f"{settings.EXCLUDE_SAVINGS_PLAN_TERM} (5 Years)"
    ]


def test_items_without_savings_plans_parse_as_before():
    frame = parsed(item())
    assert frame["pricing_model"].to_list() == ["on_demand"]
