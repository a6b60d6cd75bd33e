"""RunPod parse (connectors.runpod.parse) on the recorded-shape gpuTypes page."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.runpod import parse


@pytest.fixture
def body(recorded):
    return recorded("runpod", "gpu_types.json")


def result(pages_frame, body):
    return normalise(parse.parse(pages_frame("gpu_types", body)))


def offers_of(pages_frame, body, gpu_id: str) -> pl.DataFrame:
    return (
        result(pages_frame, body)
        .offers.filter(pl.col("instance_type") == gpu_id)
        .sort("pricing_model", "pricing_detail")
    )


def test_each_given_price_is_one_per_gpu_offer_named_after_its_cloud(pages_frame, body):
    rows = offers_of(pages_frame, body, "NVIDIA H100 80GB HBM3")
    assert rows.select("pricing_model", "pricing_detail", "price_usd_per_hour").rows() == [
        ("on_demand", "community", 2.69),
        ("on_demand", "secure", 3.99),
        ("spot", "community", 1.99),
        ("spot", "secure", 2.49),
    ]
    assert rows["price_usd_per_gpu_hour"].to_list() == rows["price_usd_per_hour"].to_list()
    assert set(rows["gpu_count"]) == {1.0} and set(rows["region"]) == {"global"}
    assert set(rows["gpu_name"]) == {"H100"} and set(rows["gpu_memory_gib"]) == {80.0}


def test_a_null_spot_price_is_no_spot_offer(pages_frame, body):
    rows = offers_of(pages_frame, body, "NVIDIA A100 80GB PCIe")
    # secureSpotPrice is null in the runpod docs example: only community spot exists
    assert rows.select("pricing_model", "pricing_detail").rows() == [
        ("on_demand", "community"),
        ("on_demand", "secure"),
        ("spot", "community"),
    ]


def test_a_price_in_a_cloud_whose_flag_is_false_is_not_an_offer(pages_frame, body):
    # H100 NVL: communityCloud false with communityPrice 0
    rows = offers_of(pages_frame, body, "NVIDIA H100 NVL")
    assert rows.select("pricing_detail", "gpu_name", "gpu_memory_gib").rows() == [
        ("secure", "H100NVL", 94.0)
    ]


def test_a_gpu_type_in_neither_cloud_is_excluded_and_counted(pages_frame, body):
    res = result(pages_frame, body)
    assert res.offers.filter(pl.col("instance_type") == "NVIDIA GeForce RTX 3070").is_empty()
    assert res.excluded.select("reason", "n").rows() == [
        ("no offer: neither cloud is flagged with a list price for this GPU type", 1)
    ]


def test_a_gpu_type_outside_the_map_is_named_by_the_shared_rule(pages_frame, body):
    res = result(pages_frame, body)
    row = res.offers.filter(pl.col("instance_type") == "NVIDIA RTX 6000 Ada Generation").row(
        0, named=True
    )
    # not in RunPod's map: named by the shared GPU rule from RunPod's own words
    assert row["gpu_name"] == "RTX 6000 ADA" and row["price_usd_per_hour"] == 0.77
    assert res.unknown_gpu["n"].sum() == 0


def test_a_price_sent_as_text_still_parses_and_garbage_is_quarantined(pages_frame, body):
    gpu = body["data"]["gpuTypes"][0]
    gpu["securePrice"], gpu["communityPrice"] = "1.89", "n/a"
    res = normalise(parse.parse(pages_frame("gpu_types", body)))
    a100 = res.offers.filter(pl.col("instance_type") == "NVIDIA A100 80GB PCIe")
    assert a100.filter(pl.col("pricing_detail") == "secure")["price_usd_per_hour"].to_list() == [
        1.89
    ]
    assert res.rejected["reason"].to_list() == ["communityPrice n/a is not a number"]
    assert '"id":"NVIDIA A100 80GB PCIe"' in res.rejected["record"][0]


@pytest.mark.parametrize(
    ("gpu_id", "expected"),
    [
        ("NVIDIA H100 PCIe", "H100"),
        ("NVIDIA A100-SXM4-80GB", "A100"),
        ("NVIDIA L40", "L40"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA GeForce RTX 4090", "RTX 4090"),
        ("AMD Instinct MI300X OAM", "MI300X"),
        ("NVIDIA H200 NVL", None),
        ("NVIDIA GeForce RTX 5090", "RTX 5090"),
        ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 ADA"),
    ],
)
def test_gpu_type_ids_are_named_by_the_shared_rule(pages_frame, gpu_id, expected):
    gpu = {"id": gpu_id, "memoryInGb": 80, "secureCloud": True, "securePrice": 1.0}
    page = {"data": {"gpuTypes": [gpu]}}
    rows = normalise(parse.parse(pages_frame("gpu_types", page))).offers
    assert rows["gpu_name"].to_list() == [expected]
