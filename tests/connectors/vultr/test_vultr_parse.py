"""Vultr parse (connectors.vultr.parse) on the recorded plan pages."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.vultr import parse


@pytest.fixture
def bodies(recorded):
    return recorded("vultr", "plans.json")


def run(pages_frame, bodies):
    frame = pl.concat(
        [
            pages_frame("plans", *bodies["plans"]),
            pages_frame("plans_metal", *bodies["plans_metal"]).with_columns(
                load_id=pl.lit("load-metal")
            ),
        ]
    )
    return normalise(parse.parse(frame))


def rows(offers, plan, model="on_demand"):
    return offers.filter((pl.col("instance_type") == plan) & (pl.col("pricing_model") == model))


def test_a_whole_gpu_cloud_plan_counts_its_gpus_from_its_vram(pages_frame, bodies):
    offers = run(pages_frame, bodies).offers
    one = rows(offers, "vcg-a100-12c-120g-80vram").row(0, named=True)
    assert (one["gpu_name"], one["gpu_memory_gib"], one["gpu_count"]) == ("A100", 80.0, 1.0)
    assert (one["price_usd_per_hour"], one["region"], one["vcpus"]) == (2.397, "ewr", 12.0)
    two = rows(offers, "vcg-a100-24c-240g-160vram")
    assert sorted(two["region"]) == ["ewr", "sjc"]
    # 4.794 USD/h for 160 GB = 2 x A100 80 GB -> 2.397 per GPU-hour
    assert two.select("gpu_count", "price_usd_per_gpu_hour").unique().rows() == [(2.0, 2.397)]


def test_fractional_vgpu_plans_are_excluded(pages_frame, bodies):
    res = run(pages_frame, bodies)
    assert res.offers.filter(pl.col("instance_type").str.ends_with("-4vram")).is_empty()
    assert res.offers.filter(pl.col("instance_type").str.ends_with("-40vram")).is_empty()
    excluded = dict(res.excluded.select("reason", "n").rows())
    assert excluded["fractional GPU (a vGPU share of less than one whole GPU's memory)"] == 2


def test_bare_metal_gpu_plans_have_on_demand_and_preemptible_offers(pages_frame, bodies):
    offers = run(pages_frame, bodies).offers
    h100 = rows(offers, "vbm-112c-2048gb-8-h100-gpu").row(0, named=True)
    assert (h100["gpu_name"], h100["gpu_count"], h100["price_usd_per_gpu_hour"]) == ("H100", 8.0, 2.99)
    assert (h100["vcpus"], h100["memory_gib"]) == (224.0, 2048.0)
    spot = rows(offers, "vbm-256c-2048gb-8-mi300x-gpu", "spot").row(0, named=True)
    # 14.72 USD/h preemptible for 8 MI300X = 1.84 per GPU-hour
    assert (spot["price_usd_per_gpu_hour"], spot["pricing_detail"]) == (1.84, "preemptible bare metal")
    assert (spot["gpu_name"], spot["gpu_memory_gib"]) == ("MI300X", 192.0)


def test_cpu_metal_and_unlocated_plans_are_excluded_and_the_mi325x_counted(pages_frame, bodies):
    res = run(pages_frame, bodies)
    excluded = dict(res.excluded.select("reason", "n").rows())
    assert excluded["CPU bare-metal plan (no GPU in its id)"] == 1  # its preemptible 0 not offered
    assert excluded["no location offers this plan"] == 1
    mi325 = rows(res.offers, "vcg-mi325x-32c-256g-256vram").row(0, named=True)
    # 256 GB of VRAM = one MI325X of 256 GB
    assert (mi325["gpu_name"], mi325["gpu_count"]) == ("MI325X", 1.0)
    assert res.unknown_gpu["n"].sum() == 0


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, bodies):
    bodies["plans"][0]["plans"][1]["hourly_cost"] = "2.397 USD"
    res = run(pages_frame, bodies)
    assert res.rejected["reason"].to_list() == ["hourly_cost 2.397 USD is not a number"]
