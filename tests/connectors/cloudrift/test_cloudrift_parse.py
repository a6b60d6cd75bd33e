"""CloudRift parse (connectors.cloudrift.parse) on the consumer-read instance-types shape."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.cloudrift import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def body(recorded):
    return recorded("cloudrift", "instance_types.json")


def run(pages_frame, *bodies):
    return normalise(parse.parse(pages_frame("instance_types", *bodies)))


def test_a_variant_is_one_offer_per_datacenter_priced_from_cents(pages_frame, body):
    offers = run(pages_frame, body).offers
    one = offers.filter(pl.col("instance_type") == "rtx49-7-50-500-nr.1").sort("region")
    assert one["region"].to_list() == ["eu-north-se-1", "us-east-nc-nr-1"]
    row = one.row(0, named=True)
    assert (row["price_usd_per_hour"], row["source_price"]) == (0.39, 39.0)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("RTX 4090", 24.0, 1.0)
    assert (row["vcpus"], row["memory_gib"]) == (14.0, 50.0)  # logical CPUs; dram bytes -> GiB


def test_a_multi_gpu_variant_is_split_per_gpu_exactly(pages_frame, body):
    row = (
        run(pages_frame, body)
        .offers.filter(pl.col("instance_type") == "rtx49-7-50-500-nr.8")
        .row(0, named=True)
    )
    assert (row["price_usd_per_hour"], row["price_usd_per_gpu_hour"]) == (3.12, 0.39)


def test_cpu_variants_and_variants_in_no_datacenter_are_excluded(pages_frame, body):
    excluded = dict(run(pages_frame, body).excluded.select("reason", "n").rows())
    assert excluded == {
        "variant without GPUs (gpu_count 0)": 1,
        "no datacenter lists nodes for this variant": 1,  # the MI350X variant
    }


def test_a_gpu_outside_the_map_is_named_by_the_shared_rule(pages_frame, body):
    res = run(pages_frame, body)
    # not in CloudRift's map: named by the shared GPU rule from brand_short
    assert res.offers.filter(pl.col("instance_type") == "rtx59-8-64-1000.1")[
        "gpu_name"
    ].to_list() == ["RTX 5090"]
    assert res.unknown_gpu["n"].sum() == 0


def test_pages_with_different_datacenters_parse_together(pages_frame, body):
    other = {"data": {"instance_types": [{"brand_short": "RTX 4090", "variants": [
        {"name": "rtx49-x.1", "gpu_count": 1, "cost_per_hour": 45, "cpu_count": 8,
         "dram": 0, "nodes_per_dc": {"ap-south-1": 1}}]}]}}  # fmt: skip
    offers = run(pages_frame, body, other).offers
    assert offers.filter(pl.col("instance_type") == "rtx49-x.1")["region"].to_list() == [
        "ap-south-1"
    ]


def test_a_price_that_is_not_a_number_is_quarantined_with_the_variant(pages_frame, body):
    body["data"]["instance_types"][1]["variants"][0]["cost_per_hour"] = "call us"
    res = run(pages_frame, body)
    assert res.rejected["reason"].to_list() == ["cost_per_hour call us is not a number"]
    assert "rtxpro6000-16-128-1000.1" in res.rejected["record"][0]
