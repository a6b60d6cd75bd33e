"""DigitalOcean parse (connectors.digitalocean.parse) on the recorded sizes pages."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.digitalocean import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def bodies(recorded):
    return recorded("digitalocean", "sizes.json")["pages"]


def run(pages_frame, bodies):
    return normalise(parse.parse(pages_frame("sizes", *bodies)))


def test_a_gpu_droplet_is_one_offer_per_region_priced_per_gpu(pages_frame, bodies):
    offers = run(pages_frame, bodies).offers
    h100x8 = offers.filter(pl.col("instance_type") == "gpu-h100x8-640gb").row(0, named=True)
    # 23.92 USD/h for 8 H100 = 2.99 per GPU-hour
    assert (h100x8["price_usd_per_hour"], h100x8["price_usd_per_gpu_hour"]) == (23.92, 2.99)
    assert (h100x8["gpu_name"], h100x8["gpu_memory_gib"], h100x8["gpu_count"]) == ("H100", 80.0, 8.0)
    assert (h100x8["vcpus"], h100x8["memory_gib"], h100x8["region"]) == (160.0, 1920.0, "nyc1")
    h1 = offers.filter(pl.col("instance_type") == "gpu-h100x1-80gb")
    assert sorted(h1["region"]) == ["atl1", "nyc2", "tor1"]


def test_amd_mi300x_maps_with_its_marketed_memory(pages_frame, bodies):
    row = run(pages_frame, bodies).offers.filter(pl.col("gpu_name") == "MI300X").row(0, named=True)
    assert (row["gpu_memory_gib"], row["price_usd_per_gpu_hour"]) == (192.0, 1.99)


def test_cpu_sizes_and_sold_out_sizes_are_excluded_once_each(pages_frame, bodies):
    excluded = dict(run(pages_frame, bodies).excluded.select("reason", "n").rows())
    assert excluded == {
        "CPU droplet size (no gpu_info)": 1,  # not once per region
        "size not available (available false, or no region lists it)": 1,
    }


def test_a_gpu_model_outside_the_map_is_named_by_the_shared_rule(pages_frame, bodies):
    res = run(pages_frame, bodies)
    ada = res.offers.filter(pl.col("instance_type") == "gpu-6000adax1-48gb")
    # not in the map: named by the shared GPU rule, with the size the slug states
    assert ada.select("gpu_name", "gpu_memory_gib").rows() == [("RTX 6000 ADA", 48.0)]
    assert res.unknown_gpu["n"].sum() == 0


def test_a_size_listed_on_two_pages_is_kept_once(pages_frame, bodies):
    bodies[1]["sizes"].append(bodies[0]["sizes"][2])  # gpu-h100x8-640gb again
    offers = run(pages_frame, bodies).offers
    assert offers.filter(pl.col("instance_type") == "gpu-h100x8-640gb").height == 1


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, bodies):
    bodies[0]["sizes"][2]["price_hourly"] = "23,92"
    res = run(pages_frame, bodies)
    assert res.rejected["reason"].to_list() == ["price_hourly 23,92 is not a number"]
