"""Vast.ai parse (connectors.vastai.parse) on the recorded-shape bundles page."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.vastai import parse


@pytest.fixture
def body(recorded):
    return recorded("vastai", "bundles.json")


def offers(pages) -> pl.DataFrame:
    return normalise(parse.parse(pages)).offers


def one(rows: pl.DataFrame, instance_type: str, model: str) -> dict:
    return rows.filter(
        (pl.col("instance_type") == instance_type) & (pl.col("pricing_model") == model)
    ).row(0, named=True)


def test_each_offer_is_an_on_demand_row_at_dph_total_for_the_whole_offer(pages_frame, body):
    row = one(offers(pages_frame("bundles", body)), "offer-18345511", "on_demand")
    # 8x H100 SXM at 17.8778 USD/h: 17.8778 / 8 = 2.234725 per GPU-hour
    assert row["price_usd_per_hour"] == 17.8778
    assert row["price_usd_per_gpu_hour"] == pytest.approx(2.234725)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("H100", 80.0, 8.0)
    assert (row["provider"], row["region"], row["pricing_detail"]) == ("vastai", "us", None)
    assert row["capacity_instances"] == 1.0  # a listing is one machine


def test_min_bid_is_a_spot_row_with_the_same_storage_share(pages_frame, body):
    row = one(offers(pages_frame("bundles", body)), "offer-18345511", "spot")
    # min_bid 12.0 + (dph_total 17.8778 - dph_base 17.6) = 12.2778
    assert row["price_usd_per_hour"] == pytest.approx(12.2778)
    assert row["source_price"] == 12.0
    assert row["pricing_detail"] == "interruptible (min_bid + storage)"


def test_an_offer_without_min_bid_has_no_spot_row(pages_frame, body):
    rows = offers(pages_frame("bundles", body)).filter(pl.col("instance_type") == "offer-18345800")
    assert rows["pricing_model"].to_list() == ["on_demand"]


@pytest.mark.parametrize(
    ("instance_type", "region"),
    [("offer-18345600", "ca"), ("offer-18345700", "no"), ("offer-18345800", "any")],
)
def test_region_is_the_country_of_geolocation_or_any(pages_frame, body, instance_type, region):
    assert one(offers(pages_frame("bundles", body)), instance_type, "on_demand")["region"] == region


@pytest.mark.parametrize(
    ("instance_type", "gpu_name", "memory"),
    [
        ("offer-18345700", "A100", 40.0),  # A100 PCIE, gpu_ram 40960 MB
        ("offer-18345800", "A100", 80.0),  # A100 SXM4, gpu_ram 81920 MB
        ("offer-18345600", "H100", 80.0),  # H100 SXM, 81559 MB = 79.6 GiB snapped to 80
        ("offer-18345900", "RTX 4090", 24.0),
    ],
)
def test_gpu_names_map_and_memory_snaps_to_the_marketed_size(
    pages_frame, body, instance_type, gpu_name, memory
):
    row = one(offers(pages_frame("bundles", body)), instance_type, "on_demand")
    assert (row["gpu_name"], row["gpu_memory_gib"]) == (gpu_name, memory)


def test_memory_far_from_every_marketed_size_is_left_null(pages_frame, body):
    body["offers"][2]["gpu_ram"] = 61440  # an "A100 PCIE" reporting 60 GiB: neither 40 nor 80
    row = one(offers(pages_frame("bundles", body)), "offer-18345700", "on_demand")
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("A100", None)


def test_a_gpu_outside_the_map_is_named_by_the_shared_rule(pages_frame, body):
    res = normalise(parse.parse(pages_frame("bundles", body)))
    rows = res.offers.filter(pl.col("instance_type") == "offer-18346000")
    # not in Vast's map: named by the shared GPU rule from Vast's own gpu_name
    assert rows["gpu_name"].to_list() == ["RTX 5090", "RTX 5090"]
    assert res.unknown_gpu["n"].sum() == 0


def test_host_memory_is_scaled_to_the_offer_share_of_cpu_cores(pages_frame, body):
    row = one(offers(pages_frame("bundles", body)), "offer-18345600", "on_demand")
    # cpu_ram 515000 MB x 16 of 64 cores / 1024 = 125.73 GiB
    assert row["vcpus"] == 16.0
    assert row["memory_gib"] == pytest.approx(515000 * 16 / 64 / 1024)


def test_an_offer_repeated_on_the_next_page_is_kept_once(pages_frame, body):
    second_page = {"offers": [body["offers"][0]]}
    rows = offers(pages_frame("bundles", body, second_page))
    assert rows.filter(pl.col("instance_type") == "offer-18345511").height == 2  # od + spot
    assert rows.height == 11


def test_a_rented_offer_is_excluded_with_a_reason(pages_frame, body):
    body["offers"][1]["rented"] = True
    res = normalise(parse.parse(pages_frame("bundles", body)))
    assert res.offers.filter(pl.col("instance_type") == "offer-18345600").is_empty()
    assert res.excluded["reason"].to_list() == [
        "not rentable at fetch time (rented, or rentable false)"
    ]


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, body):
    body["offers"][3]["dph_total"] = "call us"
    res = normalise(parse.parse(pages_frame("bundles", body)))
    assert res.rejected["reason"].to_list() == ["price call us is not a number"]
