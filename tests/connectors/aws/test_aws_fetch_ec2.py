"""AWS fetch through real boto3 clients driven by botocore's Stubber: paging, both
end-of-paging signals, throttling then success, a failing region, missing credentials,
and the incremental spot walk starting at the stored watermark."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from botocore.stub import Stubber

from connectors.aws import fetch, settings
from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.kit.http import RetryPolicy
from connectors.kit.page import FetchContext, FetchFailure, Page
from samples.aws import aws_instance_type_item, aws_price_list_item

FAST = RetryPolicy(attempts=3, backoff_s=0.001, max_backoff_s=0.001)
NOW = datetime(2026, 11, 20, 2, 0)
TYPE_FILTER = [{"Name": "instance-type", "Values": ["p*", "g*", "trn*", "inf*", "dl*"]}]
# Capacity Block searches (tests/connectors/aws/test_aws_capacity_blocks.py) switched off where a test
# stubs only the other EC2 walks
NO_CAPACITY_BLOCKS = {"aws_capacity_block_types": {}}


def ec2_client(region: str = "us-east-1"):
    return boto3.client(
        "ec2",
        region_name=region,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def pricing_client():
    return boto3.client(
        "pricing",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def spot(zone: str, instance_type: str, price: str, at: datetime) -> dict:
    return {
        "AvailabilityZone": zone,
        "InstanceType": instance_type,
        "ProductDescription": "Linux/UNIX",
        "SpotPrice": price,
        "Timestamp": at.replace(tzinfo=UTC),
    }


def g5(n: int) -> dict:
    return aws_instance_type_item(
        instance_type=f"g5.{n}xlarge",
        vcpus=4 * n,
        memory_mib=16384 * n,
        gpu_name="A10G",
        gpu_memory_mib=22888,
    )


class StubClients:
    """What fetch_credentialed needs from BotoClients, with stubbed clients per region."""

    def __init__(self, ec2: dict, pricing=None, credentials: bool = True) -> None:
        self._ec2, self._pricing, self._credentials = ec2, pricing, credentials

    def has_credentials(self) -> bool:
        return self._credentials

    def available_regions(self) -> list[str]:
        return list(self._ec2)

    def ec2(self, region: str):
        return self._ec2[region]

    def pricing(self):
        return self._pricing


def empty_pricing(regions: list[str]):
    client = pricing_client()
    stub = Stubber(client)
    for region in regions:
        for family in settings.PRICING_INSTANCE_FAMILIES:
            stub.add_response(
                "get_products",
                {"FormatVersion": "aws_v1", "PriceList": []},
                {
                    "ServiceCode": "AmazonEC2",
                    "Filters": fetch.pricing_filters(region, family),
                    "FormatVersion": "aws_v1",
                    "MaxResults": 100,
                },
            )
    stub.activate()
    return client, stub


def test_instance_types_walk_follows_next_token_over_pages_until_it_is_absent():
    client = ec2_client()
    with Stubber(client) as stub:
        base = {"Filters": TYPE_FILTER, "MaxResults": 100}
        stub.add_response(
            "describe_instance_types", {"InstanceTypes": [g5(1)], "NextToken": "t2"}, base
        )
        stub.add_response(
            "describe_instance_types",
            {"InstanceTypes": [g5(2)], "NextToken": "t3"},
            {**base, "NextToken": "t2"},
        )
        stub.add_response(
            "describe_instance_types", {"InstanceTypes": [g5(4)]}, {**base, "NextToken": "t3"}
        )
        pages = list(fetch.fetch_instance_types(client, "us-east-1", policy=FAST))
        stub.assert_no_pending_responses()
    assert [p.request["page"] for p in pages] == [1, 2, 3]
    assert [p.body["InstanceTypes"][0]["InstanceType"] for p in pages] == [
        "g5.1xlarge",
        "g5.2xlarge",
        "g5.4xlarge",
    ]
    assert pages[1].request["NextToken"] == "t2" and pages[0].scope == "us-east-1"


@pytest.mark.parametrize("last_token", ["", None], ids=["empty-string", "null"])
def test_spot_walk_stops_on_either_end_of_paging_signal(last_token):
    client = ec2_client()
    since = NOW - timedelta(days=30)
    base = {
        "StartTime": since.replace(tzinfo=UTC),
        "ProductDescriptions": ["Linux/UNIX"],
        "Filters": TYPE_FILTER,
        "MaxResults": 1000,
    }
    last = {"SpotPriceHistory": [spot("us-east-1b", "g5.xlarge", "0.41", NOW)]}
    if last_token is not None:
        last["NextToken"] = last_token
    with Stubber(client) as stub:
        stub.add_response(
            "describe_spot_price_history",
            {"SpotPriceHistory": [spot("us-east-1a", "g5.xlarge", "0.40", NOW)], "NextToken": "n2"},
            base,
        )
        stub.add_response("describe_spot_price_history", last, {**base, "NextToken": "n2"})
        pages = list(fetch.fetch_spot_history(client, "us-east-1", since=since, policy=FAST))
        stub.assert_no_pending_responses()
    assert len(pages) == 2  # a third call would have found no stubbed response


def test_spot_timestamps_are_stored_as_iso_8601_text():
    client = ec2_client()
    since = NOW - timedelta(days=1)
    with Stubber(client) as stub:
        stub.add_response(
            "describe_spot_price_history",
            {
                "SpotPriceHistory": [spot("us-east-1a", "g5.xlarge", "0.400000", NOW)],
                "NextToken": "",
            },
        )
        (page,) = fetch.fetch_spot_history(client, "us-east-1", since=since, policy=FAST)
    assert page.body["SpotPriceHistory"][0]["Timestamp"] == "2026-11-20T02:00:00Z"
    assert page.request["StartTime"] == "2026-11-19T02:00:00Z"
    assert "ResponseMetadata" not in page.body
    json.loads(page.payload)  # plain JSON, no datetime objects left


def test_throttling_is_retried_then_the_walk_succeeds():
    client = ec2_client()
    with Stubber(client) as stub:
        stub.add_client_error(
            "describe_instance_types",
            service_error_code="RequestLimitExceeded",
            service_message="Request limit exceeded.",
            http_status_code=503,
        )
        stub.add_client_error(
            "describe_instance_types", service_error_code="Throttling", http_status_code=400
        )
        stub.add_response("describe_instance_types", {"InstanceTypes": [g5(1)], "NextToken": ""})
        pages = list(fetch.fetch_instance_types(client, "us-east-1", policy=FAST))
        stub.assert_no_pending_responses()
    assert len(pages) == 1


def test_throttling_that_persists_is_source_unavailable_naming_region_and_code():
    client = ec2_client("eu-west-1")
    with Stubber(client) as stub:
        for _ in range(FAST.attempts):
            stub.add_client_error(
                "describe_spot_price_history",
                service_error_code="RequestLimitExceeded",
                http_status_code=503,
            )
        with pytest.raises(SourceUnavailable, match=r"eu-west-1: RequestLimitExceeded"):
            list(fetch.fetch_spot_history(client, "eu-west-1", since=NOW, policy=FAST))
        stub.assert_no_pending_responses()


def test_a_failing_region_becomes_a_fetch_failure_and_the_others_go_on():
    good, bad = ec2_client("us-east-1"), ec2_client("af-south-1")
    good_stub, bad_stub = Stubber(good), Stubber(bad)
    good_stub.add_response("describe_instance_types", {"InstanceTypes": [g5(1)]})
    good_stub.add_response(
        "describe_spot_price_history",
        {"SpotPriceHistory": [spot("us-east-1a", "g5.xlarge", "0.40", NOW)], "NextToken": ""},
    )
    for operation in ("describe_instance_types", "describe_spot_price_history"):
        bad_stub.add_client_error(
            operation,
            service_error_code="AuthFailure",
            service_message="AWS was not able to validate the provided access credentials",
            http_status_code=401,
        )
    good_stub.activate()
    bad_stub.activate()
    pricing, pricing_stub = empty_pricing(["af-south-1", "us-east-1"])
    clients = StubClients({"af-south-1": bad, "us-east-1": good}, pricing)
    ctx = FetchContext(settings=NO_CAPACITY_BLOCKS)
    items = list(
        fetch.fetch_credentialed(ctx, ("af-south-1", "us-east-1"), clients, now=NOW, policy=FAST)
    )
    failures = [i for i in items if isinstance(i, FetchFailure)]
    pages = [i for i in items if isinstance(i, Page)]
    assert {(f.endpoint, f.scope) for f in failures} == {
        ("instance_types", "af-south-1"),
        ("spot_price_history", "af-south-1"),
    }
    assert all(isinstance(f.error, UnexpectedResponse) for f in failures)
    assert "opt-in region" in str(failures[0].error)
    assert {(p.endpoint, p.scope) for p in pages} >= {
        ("instance_types", "us-east-1"),
        ("spot_price_history", "us-east-1"),
        ("price_list", "us-east-1"),
        ("price_list", "af-south-1"),
    }
    for stub in (good_stub, bad_stub, pricing_stub):
        stub.assert_no_pending_responses()


def test_spot_walk_starts_at_the_stored_watermark():
    mark = datetime(2026, 11, 19, 23, 41, 7)
    client = ec2_client()
    stub = Stubber(client)
    stub.add_response("describe_instance_types", {"InstanceTypes": [g5(1)]})
    stub.add_response(
        "describe_spot_price_history",
        {"SpotPriceHistory": [spot("us-east-1a", "g5.xlarge", "0.40", NOW)], "NextToken": ""},
        {
            "StartTime": mark.replace(tzinfo=UTC),
            "ProductDescriptions": ["Linux/UNIX"],
            "Filters": TYPE_FILTER,
            "MaxResults": 1000,
        },
    )
    stub.activate()
    pricing, _ = empty_pricing(["us-east-1"])
    ctx = FetchContext(
        watermarks={("spot_price_history", "us-east-1"): mark}, settings=NO_CAPACITY_BLOCKS
    )
    list(
        fetch.fetch_credentialed(
            ctx, ("us-east-1",), StubClients({"us-east-1": client}, pricing), now=NOW, policy=FAST
        )
    )
    stub.assert_no_pending_responses()


def test_first_spot_walk_reaches_back_the_configured_number_of_days():
    ctx = FetchContext()
    assert fetch.spot_start(ctx, "us-east-1", NOW) == NOW - timedelta(days=30)
    ctx = FetchContext(settings={"aws_spot_lookback_days": 7})
    assert fetch.spot_start(ctx, "us-east-1", NOW) == NOW - timedelta(days=7)


def test_price_list_walks_each_accelerated_family_until_next_token_is_absent():
    client = pricing_client()
    item = aws_price_list_item(
        instance_type="g5.xlarge",
        region="us-west-2",
        vcpus=4,
        memory_gib=16,
        gpus=1,
        on_demand=1.006,
    )
    gpu = {
        "ServiceCode": "AmazonEC2",
        "Filters": fetch.pricing_filters("us-west-2", "GPU instance"),
        "FormatVersion": "aws_v1",
        "MaxResults": 100,
    }
    asic = {**gpu, "Filters": fetch.pricing_filters("us-west-2", "Machine Learning ASIC Instances")}
    with Stubber(client) as stub:
        stub.add_response(
            "get_products", {"FormatVersion": "aws_v1", "PriceList": [item], "NextToken": "p2"}, gpu
        )
        stub.add_response(
            "get_products",
            {"FormatVersion": "aws_v1", "PriceList": [item]},
            {**gpu, "NextToken": "p2"},
        )
        stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": []}, asic)
        pages = list(fetch.fetch_price_list(client, "us-west-2", policy=FAST))
        stub.assert_no_pending_responses()
    assert len(pages) == 3 and {p.scope for p in pages} == {"us-west-2"}
    assert isinstance(pages[0].body["PriceList"][0], str)  # each item stays a JSON string
    filters = {f["Field"]: f["Value"] for f in pages[0].request["Filters"]}
    assert filters["regionCode"] == "us-west-2" and filters["capacitystatus"] == "Used"


def test_pricing_throttling_exception_is_retried():
    client = pricing_client()
    with Stubber(client) as stub:
        stub.add_client_error(
            "get_products", service_error_code="ThrottlingException", http_status_code=429
        )
        stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": []})
        stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": []})
        pages = list(fetch.fetch_price_list(client, "us-east-1", policy=FAST))
    assert len(pages) == 2


def test_missing_credentials_skip_the_credentialed_endpoints_with_one_reason(monkeypatch):
    clients = StubClients({"us-east-1": None}, credentials=False)
    monkeypatch.setattr(fetch, "fetch_public", lambda *a, **k: iter(()))
    items = list(fetch.fetch_all(FetchContext(), clients, http=None))
    assert {f.endpoint for f in items} == set(settings.CREDENTIALED_ENDPOINTS)
    assert all(isinstance(f.error, MissingCredentials) for f in items)
    assert "offer CSV and Spot Advisor ran" in str(items[0].error)


def test_default_chain_without_any_source_has_no_credentials(monkeypatch, tmp_path):
    for var in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    clients = fetch.BotoClients()
    assert clients.has_credentials() is False
    assert "us-east-1" in clients.available_regions()


def test_regions_come_from_botocore_minus_skip_list_and_local_zone_codes(monkeypatch):
    available = ["us-east-1", "us-west-2", "af-south-1", "me-central-1"]
    ctx = FetchContext(settings={"aws_skip_regions": ["me-central-1"]})
    monkeypatch.setenv("GPU_PRICING_AWS_SKIP_REGIONS", "af-south-1")
    assert fetch.select_regions(available, ctx) == ("us-east-1", "us-west-2")
    asked = FetchContext(regions=("us-west-2", "us-east-1-nyc-1", "eastus"))
    assert fetch.select_regions([*available, "us-east-1-nyc-1"], asked) == ("us-west-2",)


def test_a_next_token_that_comes_back_is_a_paging_cycle_not_an_endless_walk():
    client = ec2_client()
    with Stubber(client) as stub:
        base = {"Filters": TYPE_FILTER, "MaxResults": 100}
        stub.add_response(
            "describe_instance_types", {"InstanceTypes": [g5(1)], "NextToken": "t2"}, base
        )
        stub.add_response(
            "describe_instance_types",
            {"InstanceTypes": [g5(2)], "NextToken": "t2"},
            {**base, "NextToken": "t2"},
        )
        with pytest.raises(UnexpectedResponse, match="repeats an earlier NextToken 't2'"):
            list(fetch.fetch_instance_types(client, "us-east-1", policy=FAST))
        stub.assert_no_pending_responses()
