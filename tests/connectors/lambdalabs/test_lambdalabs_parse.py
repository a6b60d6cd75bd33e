"""Lambda Cloud parse (connectors.lambdalabs.parse) on recorded-shape pages: pure, no
DuckDB, no network."""

from __future__ import annotations

import json

import polars as pl
import pytest

from connectors.kit.decode import PageDrift
from connectors.kit.normalise import normalise
from connectors.lambdalabs import parse


@pytest.fixture
def body(recorded):
    return recorded("lambdalabs", "instance_types.json")


def offers(pages) -> pl.DataFrame:
    return normalise(parse.parse(pages)).offers


def test_one_offer_per_region_that_lists_capacity(pages_frame, body):
    rows = offers(pages_frame("instance_types", body)).filter(
        pl.col("instance_type") == "gpu_8x_h100_sxm5"
    )
    assert sorted(rows["region"]) == ["us-east-1", "us-west-1"]
    assert rows["pricing_detail"].to_list() == [None, None]
    # Lambda says a region has capacity, not how much: no count
    assert rows["capacity_instances"].to_list() == [None, None]


def test_a_type_with_no_capacity_is_offered_in_region_any_and_says_so(pages_frame, body):
    (row,) = (
        offers(pages_frame("instance_types", body))
        .filter(pl.col("instance_type") == "gpu_1x_a10")
        .iter_rows(named=True)
    )
    assert (row["region"], row["pricing_detail"]) == ("any", "no capacity listed")
    assert row["capacity_instances"] == 0.0  # published: none available


def test_price_cents_become_usd_for_the_whole_instance_and_per_gpu(pages_frame, body):
    # 8x H100 at 3192 cents: 31.92 USD/h, 31.92 / 8 = 3.99 per GPU-hour
    row = (
        offers(pages_frame("instance_types", body))
        .filter(pl.col("instance_type") == "gpu_8x_h100_sxm5")
        .row(0, named=True)
    )
    assert row["price_usd_per_hour"] == pytest.approx(31.92)
    assert row["price_usd_per_gpu_hour"] == pytest.approx(3.99)
    assert (row["source_price"], row["source_unit"]) == (3192.0, "US cents per hour")
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("H100", 80.0, 8.0)
    assert (row["vcpus"], row["memory_gib"], row["pricing_model"]) == (208.0, 1800.0, "on_demand")


@pytest.mark.parametrize(
    ("instance_type", "gpu_name", "memory"),
    [
        ("gpu_8x_v100", "V100", 16.0),  # "8x Tesla V100 (16 GB)": the Tesla prefix goes
        ("gpu_4x_a6000", "RTX A6000", 48.0),  # Lambda's "A6000" is the RTX A6000
        ("gpu_1x_a10", "A10", 24.0),
    ],
)
def test_gpu_name_and_memory_come_from_the_description(
    pages_frame, body, instance_type, gpu_name, memory
):
    row = (
        offers(pages_frame("instance_types", body))
        .filter(pl.col("instance_type") == instance_type)
        .row(0, named=True)
    )
    assert (row["gpu_name"], row["gpu_memory_gib"]) == (gpu_name, memory)


def test_the_quadro_rtx_6000_is_named_and_priced_to_the_cent(pages_frame, body):
    result = normalise(parse.parse(pages_frame("instance_types", body)))
    row = result.offers.filter(pl.col("instance_type") == "gpu_1x_rtx6000").row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("QUADRO RTX 6000", 24.0)
    # 69 cents: exactly 0.69, not the float division's 0.6900000000000001
    assert row["price_usd_per_hour"] == 0.69 and row["price_usd_per_gpu_hour"] == 0.69
    assert repr(row["price_usd_per_hour"]) == "0.69"
    assert result.unknown_gpu.is_empty()


def test_cents_become_dollars_without_float_noise_before_normalising(pages_frame, body):
    parsed = parse.parse(pages_frame("instance_types", body))
    prices = dict(zip(parsed["instance_type"], parsed["price_usd_per_hour"], strict=False))
    assert repr(prices["gpu_1x_rtx6000"]) == "0.69"


def test_a_gpu_outside_the_reference_keeps_its_offer_with_gpu_name_null_and_is_counted(
    pages_frame, body
):
    body["data"]["gpu_1x_rtx6000"]["instance_type"]["description"] = "1x Quadro RTX 5000 (16 GB)"
    result = normalise(parse.parse(pages_frame("instance_types", body)))
    row = result.offers.filter(pl.col("instance_type") == "gpu_1x_rtx6000").row(0, named=True)
    assert row["gpu_name"] is None and row["price_usd_per_hour"] == 0.69
    assert result.unknown_gpu["n"].sum() == 1


def test_an_instance_type_without_a_price_is_quarantined_with_its_record(pages_frame, body):
    del body["data"]["gpu_1x_a10"]["instance_type"]["price_cents_per_hour"]
    result = normalise(parse.parse(pages_frame("instance_types", body)))
    (reason,) = result.rejected["reason"].to_list()
    assert reason == "missing field instance_type.price_cents_per_hour"
    assert json.loads(result.rejected["record"][0])["instance_type"]["name"] == "gpu_1x_a10"


def test_a_page_without_a_data_object_fails_the_parse_not_the_offers(pages_frame, body):
    """Drift: the provider fails (keeping its last good data) instead of losing offers."""
    with pytest.raises(PageDrift, match="no 'data' object"):
        parse.parse(pages_frame("instance_types", body, {"error": "oops"}))


def test_every_row_keeps_its_page_lineage(pages_frame, body):
    rows = offers(pages_frame("instance_types", body))
    assert set(rows["load_id"]) == {"load-0"} and set(rows["endpoint"]) == {"instance_types"}
