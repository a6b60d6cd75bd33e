"""EC2 Capacity Blocks for ML: DescribeCapacityBlockOfferings through a real boto3 client
driven by botocore's Stubber (boto3's paginator over NextToken, request-side filters, a
throttled page resumed from its token), and the parse from the upfront fee of N instances
x a duration to USD per GPU-hour with the terms kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import polars as pl
import pytest
from botocore.stub import Stubber

from connectors.aws import fetch, parse, settings
from connectors.errors import SourceUnavailable
from connectors.kit.http import RetryPolicy
from connectors.kit.normalise import normalise
from connectors.kit.page import FetchContext, FetchFailure, Page, pages_frame
from tests.connectors.aws.conftest import AWS_FIXTURES, page
from tests.connectors.aws.test_aws_fetch_ec2 import StubClients, ec2_client, empty_pricing

FAST = RetryPolicy(attempts=3, backoff_s=0.001, max_backoff_s=0.001)
NOW = datetime(2026, 11, 20, 2, 0)
RECORDED = json.loads((AWS_FIXTURES / "describe_capacity_block_offerings.json").read_text())


def as_sdk(body: dict) -> dict:
    """The recorded body as boto3 returns it: timestamps as datetimes."""

    def when(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    offerings = [
        {**o, "StartDate": when(o["StartDate"]), "EndDate": when(o["EndDate"])}
        for o in body["CapacityBlockOfferings"]
    ]
    return {**body, "CapacityBlockOfferings": offerings}


def terms(**over) -> fetch.CapacityBlockTerms:
    base = dict(
        types={"p5.48xlarge": ("us-east-2",), "p4d.24xlarge": ("us-east-2", "us-west-2")},
        hours=(24,),
        instances=1,
        start=NOW,
        end=datetime(2027, 1, 15, 2, 0),
    )
    return fetch.CapacityBlockTerms(**{**base, **over})


def expected(instance_type: str, hours: int, **extra) -> dict:
    return {
        "InstanceType": instance_type,
        "InstanceCount": 1,
        "CapacityDurationHours": hours,
        "StartDateRange": NOW.replace(tzinfo=UTC),
        "EndDateRange": datetime(2027, 1, 15, 2, 0, tzinfo=UTC),
        "MaxResults": 1000,
        **extra,
    }


# --- fetch --------------------------------------------------------------------------------


def test_offerings_are_paged_with_the_paginator_and_filtered_on_the_request_side():
    client = ec2_client("us-east-2")
    token = RECORDED["body"]["NextToken"]
    with Stubber(client) as stub:
        stub.add_response(
            "describe_capacity_block_offerings",
            as_sdk(RECORDED["body"]),
            expected("p5.48xlarge", 24),
        )
        stub.add_response(
            "describe_capacity_block_offerings",
            as_sdk(RECORDED["second_page"]),
            expected("p5.48xlarge", 24, NextToken=token),
        )
        stub.add_response(
            "describe_capacity_block_offerings",
            {"CapacityBlockOfferings": []},
            expected("p4d.24xlarge", 24),
        )
        pages = list(fetch.fetch_capacity_blocks(client, "us-east-2", terms(), policy=FAST))
        stub.assert_no_pending_responses()
    assert [p.request["page"] for p in pages] == [1, 2, 1]
    assert pages[1].request["NextToken"] == token and "NextToken" not in pages[0].request
    assert pages[0].request["StartDateRange"] == "2026-11-20T02:00:00Z"
    assert pages[0].body["CapacityBlockOfferings"][0]["StartDate"] == "2026-11-21T11:30:00Z"
    assert "ResponseMetadata" not in pages[0].body
    assert {p.scope for p in pages} == {"us-east-2"}
    json.loads(pages[0].payload)  # plain JSON, no datetimes left


def test_a_throttled_page_is_retried_from_the_token_that_led_to_it():
    client = ec2_client("us-east-2")
    token = RECORDED["body"]["NextToken"]
    only_p5 = terms(types={"p5.48xlarge": ("us-east-2",)})
    with Stubber(client) as stub:
        stub.add_response(
            "describe_capacity_block_offerings",
            as_sdk(RECORDED["body"]),
            expected("p5.48xlarge", 24),
        )
        stub.add_client_error(
            "describe_capacity_block_offerings",
            service_error_code="RequestLimitExceeded",
            http_status_code=503,
        )
        stub.add_response(
            "describe_capacity_block_offerings",
            as_sdk(RECORDED["second_page"]),
            expected("p5.48xlarge", 24, NextToken=token),
        )
        pages = list(fetch.fetch_capacity_blocks(client, "us-east-2", only_p5, policy=FAST))
        stub.assert_no_pending_responses()
    ids = [o["CapacityBlockOfferingId"] for p in pages for o in p.body["CapacityBlockOfferings"]]
    assert len(ids) == 3 == len(set(ids))  # nothing repeated, nothing lost


def test_persistent_throttling_is_source_unavailable_naming_the_operation():
    client = ec2_client("us-east-2")
    with Stubber(client) as stub:
        for _ in range(FAST.attempts):
            stub.add_client_error(
                "describe_capacity_block_offerings",
                service_error_code="RequestLimitExceeded",
                http_status_code=503,
            )
        with pytest.raises(
            SourceUnavailable,
            match=r"describe_capacity_block_offerings in us-east-2: RequestLimitExceeded",
        ):
            list(fetch.fetch_capacity_blocks(client, "us-east-2", terms(hours=(24,), types={
                "p5.48xlarge": ("us-east-2",)}), policy=FAST))


def test_terms_come_from_settings_or_config():
    default = fetch.CapacityBlockTerms.from_context(FetchContext(), NOW)
    assert default.hours == (24, 168) and default.instances == 1
    assert (default.end - default.start).days == 56
    assert default.types_in("us-east-2") == [
        "p5.48xlarge",
        "p5e.48xlarge",
        "p5en.48xlarge",
        "p4d.24xlarge",
        "trn2.48xlarge",
    ]
    ctx = FetchContext(
        settings={
            "aws_capacity_block_hours": [336],
            "aws_capacity_block_instances": 8,
            "aws_capacity_block_days_ahead": 14,
            "aws_capacity_block_types": {"p6-b200.48xlarge": ["us-west-2"]},
        }
    )
    custom = fetch.CapacityBlockTerms.from_context(ctx, NOW)
    assert (custom.hours, custom.instances, (custom.end - custom.start).days) == ((336,), 8, 14)
    assert custom.types_in("us-west-2") == ["p6-b200.48xlarge"] and not custom.types_in("us-east-2")


def test_credentialed_walk_asks_only_regions_where_blocks_are_sold():
    """eu-west-1 sells no Capacity Blocks: no call there (the Stubber fails on any)."""
    east2, west = ec2_client("us-east-2"), ec2_client("eu-west-1")
    stubs = []
    for client in (east2, west):
        stub = Stubber(client)
        stub.add_response("describe_instance_types", {"InstanceTypes": []})
        stub.add_response("describe_spot_price_history", {"SpotPriceHistory": [], "NextToken": ""})
        stubs.append(stub)
    stubs[0].add_response(
        "describe_capacity_block_offerings", as_sdk(RECORDED["second_page"]), None
    )
    for stub in stubs:
        stub.activate()
    pricing, _ = empty_pricing(["us-east-2", "eu-west-1"])
    ctx = FetchContext(
        settings={"aws_capacity_block_types": {"p4d.24xlarge": ["us-east-2"]},
                  "aws_capacity_block_hours": [168]}
    )
    items = list(
        fetch.fetch_credentialed(
            ctx, ("us-east-2", "eu-west-1"), StubClients({"us-east-2": east2, "eu-west-1": west},
                                                         pricing), now=NOW, policy=FAST
        )
    )
    for stub in stubs:
        stub.assert_no_pending_responses()
    blocks = [i for i in items if isinstance(i, Page) and i.endpoint == "capacity_blocks"]
    assert [p.scope for p in blocks] == ["us-east-2"]
    assert not [i for i in items if isinstance(i, FetchFailure)]


# --- parse --------------------------------------------------------------------------------


def parsed(*bodies: dict, region: str = "us-east-2") -> pl.DataFrame:
    pages = [page(settings.CAPACITY_BLOCKS, b, region=region) for b in bodies]
    ids = [f"run-1:aws:capacity_blocks:{region}:{n}" for n in range(len(pages))]
    return parse.parse(pages_frame(pages, load_ids=ids)).filter(pl.col("pricing_model") == "capacity_block")


def test_upfront_fee_becomes_usd_per_instance_hour_and_per_gpu_hour():
    offers = normalise(parsed(RECORDED["body"], RECORDED["second_page"])).offers.sort(
        "instance_type", "zone"
    )
    rows = offers.select(
        "instance_type", "zone", "gpu_name", "gpu_count", "price_usd_per_hour",
        "price_usd_per_gpu_hour",
    ).rows()
    # p5.48xlarge: 943.92 USD for 1 instance x 24 h = 39.33 USD/h, 8 H100 -> 4.91625
    # p4d.24xlarge: 4956.00 USD for 2 instances x 168 h = 14.75 USD/h, 8 A100 -> 1.84375
    assert rows == [
        ("p4d.24xlarge", "us-east-2c", "A100", 8.0, 14.75, 1.84375),
        ("p5.48xlarge", "us-east-2a", "H100", 8.0, 39.33, 4.91625),
        ("p5.48xlarge", "us-east-2b", "H100", 8.0, 39.33, 4.91625),
    ]
    assert set(offers["pricing_model"]) == {"capacity_block"}


def test_terms_and_dates_are_kept_in_pricing_detail():
    offers = parsed(RECORDED["second_page"])
    (row,) = offers.select("pricing_detail", "source_price", "source_unit", "zone").rows()
    assert row == (
        "2 instance(s) x 168 h block, 2026-12-03 11:30 to 2026-12-10 11:30 UTC",
        4956.0,
        "upfront fee for 2 instance(s) x 168 h",
        "us-east-2c",
    )


def test_duration_minutes_add_to_the_hours():
    body = {
        "CapacityBlockOfferings": [
            {
                **RECORDED["body"]["CapacityBlockOfferings"][0],
                "StartDate": "2026-11-21T04:55:00Z",
                "EndDate": "2026-11-21T11:30:00Z",
                "CapacityBlockDurationHours": 6,
                "CapacityBlockDurationMinutes": 35,
                "UpfrontFee": "258.7125",  # 39.33 x 6.5833 h
            }
        ]
    }
    ((price, detail),) = parsed(body).select("price_usd_per_hour", "pricing_detail").rows()
    assert price == pytest.approx(258.7125 / (6 + 35 / 60))
    assert detail.startswith("1 instance(s) x 6 h 35 min block, 2026-11-21 04:55 to")


def test_ultraserver_and_dedicated_offerings_are_excluded_and_bad_fees_rejected():
    base = RECORDED["body"]["CapacityBlockOfferings"][0]
    body = {
        "CapacityBlockOfferings": [
            {**base, "CapacityBlockOfferingId": "cb-1", "UltraserverType": "u-p6e-gb200x72",
             "UltraserverCount": 1},
            {**base, "CapacityBlockOfferingId": "cb-2", "Tenancy": "dedicated"},
            {**base, "CapacityBlockOfferingId": "cb-3", "UpfrontFee": "n/a"},
            {**base, "CapacityBlockOfferingId": "cb-4", "InstanceCount": 0},
        ]
    }
    result = normalise(parsed(body))
    assert result.offers.is_empty()
    reasons = dict(zip(result.excluded["reason"], result.excluded["n"], strict=True))
    assert reasons == {
        "UltraServer offering u-p6e-gb200x72: priced per UltraServer, not per instance": 1,
        "Capacity Block tenancy dedicated: dedicated tenancy carries its own fee": 1,
    }
    rejected = sorted(result.rejected["reason"])
    assert rejected == [
        "InstanceCount 0 is not a positive integer",
        "UpfrontFee n/a is not a positive decimal",
    ]
    assert all('"CapacityBlockOfferingId"' in r for r in result.rejected["record"])


# --- refresh from the demo snapshot ----------------------------------------------------------


def test_demo_capacity_blocks_reach_the_marts_and_rates(demo_warehouse):
    from typer.testing import CliRunner

    from gpu_pricing.cli import app
    from warehouse import db

    con = db.connect_readonly(demo_warehouse)
    try:
        cheapest = db.run(
            con,
            """SELECT gpu_name, provider, instance_type, price_usd_per_gpu_hour
               FROM mart_cheapest_gpu_hour WHERE pricing_model = 'capacity_block'
               ORDER BY gpu_name""",
        )
    finally:
        con.close()
    # p4d 14.75 / 8, p5 39.33 / 8, p5e 43.26 / 8 (the demo's published block rates)
    assert cheapest == [
        ("A100", "aws", "p4d.24xlarge", 1.84375),
        ("H100", "aws", "p5.48xlarge", 4.91625),
        ("H200", "aws", "p5e.48xlarge", 5.4075),
    ]
    result = CliRunner().invoke(
        app,
        ["rates", "--gpu", "H100", "--pricing", "capacity_block", "--json",
         "--warehouse", str(demo_warehouse)],
    )
    assert result.exit_code == 0, result.output
    rates = json.loads(result.output)["rates"]
    assert {r["pricing_model"] for r in rates} == {"capacity_block"}
    assert {r["instance_type"] for r in rates} == {"p5.48xlarge"}
    assert all(" h block, 2026-" in r["pricing_detail"] for r in rates)


def test_the_block_size_is_the_offers_published_capacity():
    offers = parsed(RECORDED["second_page"])
    assert offers["capacity_instances"].to_list() == [2.0]  # InstanceCount 2
