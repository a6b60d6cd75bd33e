"""Nebius parse (connectors.nebius.parse): platform presets joined to their calculator
estimates, one on-demand (and, where allowed, spot) offer per GPU preset and region."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.nebius import parse


@pytest.fixture
def bodies(recorded):
    return recorded("nebius", "regions.json")["pages"]


def run(pages_frame, bodies):
    frame = pages_frame("estimates", *bodies, scopes=[b["region"] for b in bodies])
    return normalise(parse.parse(frame))


def test_each_gpu_preset_is_priced_per_region_on_demand_and_spot(pages_frame, bodies):
    res = run(pages_frame, bodies)
    assert res.rejected.is_empty()
    got = {
        (r["region"], r["instance_type"], r["pricing_model"]): (
            r["price_usd_per_hour"], r["price_usd_per_gpu_hour"])
        for r in res.offers.rows(named=True)
    }  # fmt: skip
    assert got == {
        ("eu-north1", "gpu-h100-sxm 1gpu-16vcpu-200gb", "on_demand"): (2.95, 2.95),
        ("eu-north1", "gpu-h100-sxm 1gpu-16vcpu-200gb", "spot"): (1.25, 1.25),
        ("eu-north1", "gpu-h100-sxm 8gpu-128vcpu-1600gb", "on_demand"): (23.6, 2.95),
        ("eu-north1", "gpu-h100-sxm 8gpu-128vcpu-1600gb", "spot"): (10.0, 1.25),
        ("eu-north1", "gpu-l40s-a 1gpu-8vcpu-32gb", "on_demand"): (1.55, 1.55),
        ("us-central1", "gpu-h200-sxm 1gpu-16vcpu-200gb", "on_demand"): (3.5, 3.5),
        ("us-central1", "gpu-h200-sxm 1gpu-16vcpu-200gb", "spot"): (1.45, 1.45),
        ("us-central1", "gpu-h200-sxm 8gpu-128vcpu-1600gb", "on_demand"): (28.0, 3.5),
        ("us-central1", "gpu-h200-sxm 8gpu-128vcpu-1600gb", "spot"): (11.6, 1.45),
    }


def test_gpu_and_host_come_from_the_platform_and_preset(pages_frame, bodies):
    offers = run(pages_frame, bodies).offers
    row = offers.filter(pl.col("instance_type") == "gpu-h100-sxm 8gpu-128vcpu-1600gb").row(
        0, named=True
    )
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("H100", 80.0, 8.0)
    assert (row["vcpus"], row["memory_gib"], row["source_currency"]) == (128.0, 1600.0, "USD")
    names = dict(offers.select("instance_type", "gpu_name").unique().rows())
    assert names["gpu-l40s-a 1gpu-8vcpu-32gb"] == "L40S"
    assert names["gpu-h200-sxm 1gpu-16vcpu-200gb"] == "H200"


def test_cpu_presets_are_excluded(pages_frame, bodies):
    excluded = dict(run(pages_frame, bodies).excluded.select("reason", "n").rows())
    assert excluded == {"CPU-only preset (no GPU)": 1}


def test_a_preset_without_an_estimate_is_quarantined(pages_frame, bodies):
    bodies[0]["estimates"] = bodies[0]["estimates"][1:]  # drop H100 x1 on-demand
    rejected = run(pages_frame, bodies).rejected
    assert rejected["reason"].to_list() == ["no price estimate returned for this preset"]


def test_a_cost_that_is_not_a_number_is_quarantined_with_it(pages_frame, bodies):
    bodies[0]["estimates"][0]["response"]["hourly_cost"]["general"]["total"]["cost"] = "n/a"
    assert run(pages_frame, bodies).rejected["reason"].to_list() == [
        "hourly_cost n/a is not a number"
    ]
