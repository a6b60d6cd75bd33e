"""Hot Aisle parse (connectors.hotaisle.parse) on the consumer-read available-VMs shape."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.hotaisle import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def body(recorded):
    return recorded("hotaisle", "available_vms.json")["response"]


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("available_vms", body)))


def test_a_configuration_is_one_offer_priced_from_cents_and_split_per_gpu(pages_frame, body):
    offers = run(pages_frame, body).offers
    eight = offers.filter(pl.col("instance_type") == "8x MI300X 104c").row(0, named=True)
    # 1592 cents = 15.92 USD/h for 8 MI300X -> 1.99 per GPU-hour
    assert (eight["price_usd_per_hour"], eight["price_usd_per_gpu_hour"]) == (15.92, 1.99)
    assert (eight["gpu_name"], eight["gpu_memory_gib"], eight["gpu_count"]) == (
        "MI300X",
        192.0,
        8.0,
    )
    assert (eight["vcpus"], eight["memory_gib"], eight["region"]) == (
        104.0,
        1792.0,
        "us-michigan-1",
    )


def test_unmapped_gpus_are_counted_and_gpu_less_configurations_excluded(pages_frame, body):
    res = run(pages_frame, body)
    assert res.unknown_gpu["n"].sum() == 1  # MI355X
    assert dict(res.excluded.select("reason", "n").rows()) == {"VM configuration without GPUs": 1}


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, body):
    body[0]["OnDemandPrice"] = "1.99$"
    res = run(pages_frame, body)
    assert res.rejected["reason"].to_list() == ["OnDemandPrice 1.99$ is not a number"]
