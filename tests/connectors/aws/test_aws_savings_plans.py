"""AWS Savings Plans from the public bulk price list (AWSComputeSavingsPlan: Compute and
EC2 Instance Savings Plans): the region index (a list), the region file through httpx
against a local server with its accelerated Linux shared-tenancy rates kept, and the parse
to savings_plan_1y / savings_plan_3y per instance type."""

from __future__ import annotations

import json

import httpx
import polars as pl
import pytest
from werkzeug import Response

from connectors.aws import fetch, parse, settings
from connectors.errors import UnexpectedResponse
from connectors.kit.http import RetryPolicy
from connectors.kit.normalise import normalise
from connectors.kit.page import pages_frame
from tests.connectors.aws.conftest import AWS_FIXTURES, page

FAST = RetryPolicy(attempts=3, backoff_s=0.001, max_backoff_s=0.001)
RECORDED = json.loads((AWS_FIXTURES / "savings_plan_us_east_1.json").read_text())
FILE = {k: v for k, v in RECORDED.items() if k != "_source"}
SP_PATH = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261118170000/us-east-1/index.json"
SP_INDEX = {
    "disclaimer": "This pricing list is for informational purposes only.",
    "publicationDate": "2026-11-18T17:00:00Z",
    "formatVersion": "v1.0",
    "regions": [
        {"regionCode": "us-east-1", "versionUrl": SP_PATH},
        {"regionCode": "us-west-2-den-1", "versionUrl": SP_PATH.replace("us-east-1", "den")},
    ],
}


def serve_index(httpserver, body=SP_INDEX) -> str:
    httpserver.expect_request(settings.SAVINGS_PLAN_INDEX_PATH).respond_with_json(body)
    return httpserver.url_for("").rstrip("/")


def test_index_lists_regions_as_a_list_of_region_code_and_version_url(httpserver):
    base = serve_index(httpserver)
    with httpx.Client() as client:
        versions = fetch.savings_plan_versions(client, base_url=base, policy=FAST)
    assert versions["us-east-1"] == base + SP_PATH


def test_an_index_without_a_regions_list_is_an_unexpected_response(httpserver):
    base = serve_index(httpserver, {"regions": {"us-east-1": {"regionCode": "us-east-1"}}})
    with httpx.Client() as client, pytest.raises(UnexpectedResponse, match="'regions' list"):
        fetch.savings_plan_versions(client, base_url=base, policy=FAST)


def test_region_file_keeps_only_accelerated_linux_shared_tenancy_ec2_rates(httpserver):
    httpserver.expect_ordered_request(SP_PATH).respond_with_response(Response("busy", status=503))
    httpserver.expect_ordered_request(SP_PATH).respond_with_json(FILE)
    url = httpserver.url_for(SP_PATH)
    with httpx.Client() as client:
        (got,) = fetch.fetch_savings_plans(client, "us-east-1", url, policy=FAST)
    kept = [
        (t["sku"], r["discountedUsageType"], r["discountedOperation"])
        for t in got.body["terms"]["savingsPlan"]
        for r in t["rates"]
    ]
    # Windows (RunInstances:0002), dedicated, m5.large and Fargate rates are not kept
    assert sorted(kept) == sorted(
        [
            ("8GU23DFTKP2N43SA", "BoxUsage:p5.48xlarge", "RunInstances"),
            ("8GU23DFTKP2N43SA", "BoxUsage:p4d.24xlarge", "RunInstances"),
            ("9HV34EGULQ3O54TB", "BoxUsage:p5.48xlarge", "RunInstances"),
            ("9HV34EGULQ3O54TB", "BoxUsage:p4d.24xlarge", "RunInstances"),
            ("7FT12CESJO1M32RC", "BoxUsage:p5.48xlarge", "RunInstances"),
        ]
    )
    assert got.request["rates_total"] == 9 and got.request["rates_kept"] == 5
    assert got.request["source_version"] == "20261118170000" and got.scope == "us-east-1"
    assert {p["sku"] for p in got.body["products"]} == {
        "8GU23DFTKP2N43SA",
        "9HV34EGULQ3O54TB",
        "7FT12CESJO1M32RC",
    }
    # the terms keep the file's own keys (description, leaseContractLength ...)
    term = got.body["terms"]["savingsPlan"][0]
    assert term["leaseContractLength"] == {"duration": 1, "unit": "year"}
    assert term["description"] == "1 year No Upfront Compute Savings Plan"
    assert len(httpserver.log) == 2  # the 503 was retried


def parsed_offers(body: dict) -> pl.DataFrame:
    pages = [page(settings.SAVINGS_PLANS, body, region="us-east-1")]
    return parse.parse(pages_frame(pages)).filter(pl.col("pricing_model").str.starts_with("savings"))


def test_each_rate_is_a_savings_plan_offer_with_plan_type_and_payment_option():
    offers = normalise(parsed_offers(FILE)).offers.sort("instance_type", "pricing_model", "pricing_detail")
    rows = offers.select(
        "instance_type", "pricing_model", "pricing_detail", "price_usd_per_hour",
        "price_usd_per_gpu_hour", "gpu_name",
    ).rows()
    assert rows == [
        ("p4d.24xlarge", "savings_plan_1y", "Compute Savings Plan, No Upfront", 24.8872,
         pytest.approx(24.8872 / 8), "A100"),
        ("p4d.24xlarge", "savings_plan_3y", "Compute Savings Plan, All Upfront", 15.0731,
         pytest.approx(15.0731 / 8), "A100"),
        ("p5.48xlarge", "savings_plan_1y", "Compute Savings Plan, No Upfront", 45.1328,
         pytest.approx(45.1328 / 8), "H100"),
        ("p5.48xlarge", "savings_plan_1y", "EC2 Instance Savings Plan, No Upfront", 41.4472,
         pytest.approx(41.4472 / 8), "H100"),
        ("p5.48xlarge", "savings_plan_3y", "Compute Savings Plan, All Upfront", 30.2784,
         pytest.approx(30.2784 / 8), "H100"),
    ]
    assert set(offers["region"]) == {"us-east-1"}


def test_an_unfiltered_file_accounts_for_every_rate():
    """A hand-made snapshot of the whole file: the rates the fetch would drop are
    excluded with their reason, never priced."""
    result = normalise(parsed_offers(FILE))
    reasons = dict(zip(result.excluded["reason"], result.excluded["n"], strict=True))
    assert reasons == {
        "not a Linux shared-tenancy EC2 instance rate (BoxUsage:p5.48xlarge / RunInstances:0002)": 1,
        "not a Linux shared-tenancy EC2 instance rate (DedicatedUsage:p5.48xlarge / RunInstances)": 1,
        "not a Linux shared-tenancy EC2 instance rate (USE1-Fargate-vCPU-Hours:perCPU / )": 1,
        "not an accelerated instance type (no GPU or Neuron device)": 1,  # m5.large
    }


def test_a_rate_that_is_not_a_positive_price_is_rejected():
    body = json.loads(json.dumps(FILE))
    body["terms"]["savingsPlan"][2]["rates"][0]["discountedRate"]["price"] = "-1"
    result = normalise(parsed_offers(body))
    assert result.rejected["reason"].to_list() == [
        "discountedRate.price -1 is not a positive decimal"
    ]
    assert '"discountedUsageType":"BoxUsage:p5.48xlarge"' in result.rejected["record"][0]


def test_demo_savings_plans_reach_rates(demo_counted_warehouse):
    from typer.testing import CliRunner

    from gpu_pricing.cli import app

    for model in ("savings_plan_1y", "savings_plan_3y"):
        result = CliRunner().invoke(
            app, ["rates", "--gpu", "H100", "--pricing", model, "--json",
                  "--warehouse", str(demo_counted_warehouse)],
        )
        assert result.exit_code == 0, result.output
        rates = json.loads(result.output)["rates"]
        assert {"aws", "azure"} <= {r["provider"] for r in rates}
        assert all(r["pricing_model"] == model for r in rates)
