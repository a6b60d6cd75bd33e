"""Crusoe parse (connectors.crusoe.parse): VM types x capacities, priced from the
published per-GPU-hour table."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.crusoe import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def catalog(recorded):
    return recorded("crusoe", "catalog.json")


def run(pages_frame, catalog):
    frame = pl.concat(
        [
            pages_frame("vm_types", catalog["vm_types"]),
            pages_frame("capacities", catalog["capacities"]).with_columns(load_id=pl.lit("load-c")),
        ]
    )
    return normalise(parse.parse(frame))


def test_a_type_is_priced_per_gpu_from_the_table_in_each_location_with_capacity(
    pages_frame, catalog
):
    offers = run(pages_frame, catalog).offers
    h100 = offers.filter(pl.col("instance_type") == "h100-80gb-sxm-ib.8x")
    assert sorted(h100.select("region", "pricing_model", "price_usd_per_hour").rows()) == [
        ("us-east1-a", "on_demand", 31.2),  # 8 x 3.90
        ("us-east1-a", "spot", 12.8),  # 8 x 1.60
        ("us-southcentral1-a", "on_demand", 31.2),
        ("us-southcentral1-a", "spot", 12.8),
    ]
    row = h100.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["price_usd_per_gpu_hour"]) == (
        "H100",
        80.0,
        3.9,
    )
    assert row["source_unit"] == "USD per GPU-hour (crusoe.ai/cloud/pricing, 2026-08-19)"


def test_no_spot_offer_where_no_spot_price_is_published(pages_frame, catalog):
    h200 = run(pages_frame, catalog).offers.filter(pl.col("gpu_name") == "H200")
    assert h200.select("pricing_model", "price_usd_per_hour").rows() == [("on_demand", 34.32)]


def test_unpriced_cpu_and_capacity_less_types_are_excluded_with_reasons(pages_frame, catalog):
    excluded = dict(run(pages_frame, catalog).excluded.select("reason", "n").rows())
    assert excluded == {
        "no published price for this GPU type (B200-SXM-180GB)": 1,
        "CPU-only VM type (no GPU)": 1,
        "no location lists capacity for this VM type": 2,  # A100: on demand and spot
    }


def test_each_location_carries_its_published_capacity_in_instances(pages_frame, catalog):
    offers = run(pages_frame, catalog).offers.filter(pl.col("pricing_model") == "on_demand")
    capacity = dict(
        offers.filter(pl.col("instance_type") == "h100-80gb-sxm-ib.8x")
        .select("region", "capacity_instances")
        .rows()
    )
    # the capacities page: 4 in us-east1-a; 2 and 0 listed for us-southcentral1-a
    assert capacity == {"us-east1-a": 4.0, "us-southcentral1-a": 2.0}
    h200 = offers.filter(pl.col("gpu_name") == "H200").row(0, named=True)
    assert (h200["region"], h200["capacity_instances"]) == ("eu-iceland1-a", 3.0)
