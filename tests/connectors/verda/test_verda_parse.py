"""Verda parse (connectors.verda.parse) on the recorded instance-types and locations."""

from __future__ import annotations

import json

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.verda import parse


@pytest.fixture
def bodies(recorded):
    return (
        recorded("verda", "instance_types.json")["response"],
        recorded("verda", "locations.json")["response"],
    )


def run(pages_frame, types, locations=None):
    frames = [pages_frame("instance_types", types)]
    if locations is not None:
        frames.append(pages_frame("locations", locations).with_columns(load_id=pl.lit("load-l")))
    return normalise(parse.parse(pl.concat(frames)))


def one(rows, itype, model="on_demand", region="FIN-01") -> dict:
    return rows.filter(
        (pl.col("instance_type") == itype)
        & (pl.col("pricing_model") == model)
        & (pl.col("region") == region)
    ).row(0, named=True)


def test_string_prices_are_the_whole_instance_and_split_over_its_gpus(pages_frame, bodies):
    offers = run(pages_frame, *bodies).offers
    a6000 = one(offers, "2A6000.20V")  # "1.98" for 2x RTX A6000
    assert (a6000["price_usd_per_hour"], a6000["price_usd_per_gpu_hour"]) == (1.98, 0.99)
    assert (a6000["gpu_name"], a6000["gpu_memory_gib"], a6000["gpu_count"]) == ("RTX A6000", 48.0, 2.0)
    assert (a6000["vcpus"], a6000["memory_gib"], a6000["source_currency"]) == (20.0, 120.0, "USD")


def test_every_type_is_offered_in_every_location_on_demand_and_spot(pages_frame, bodies):
    offers = run(pages_frame, *bodies).offers.filter(pl.col("instance_type") == "1H100.80S.30V")
    assert sorted(offers.select("region", "pricing_model", "price_usd_per_hour").rows()) == [
        ("FIN-01", "on_demand", 3.95), ("FIN-01", "spot", 1.7),
        ("FIN-02", "on_demand", 3.95), ("FIN-02", "spot", 1.7),
        ("ICE-01", "on_demand", 3.95), ("ICE-01", "spot", 1.7),
    ]  # fmt: skip
    assert one(offers, "1H100.80S.30V", "spot")["pricing_detail"] == "spot instance"


def test_without_a_locations_page_offers_are_global(pages_frame, bodies):
    offers = run(pages_frame, bodies[0]).offers
    assert set(offers["region"]) == {"global"}


def test_cpu_only_types_are_excluded_and_unmapped_gpus_named_by_the_shared_rule(pages_frame, bodies):
    res = run(pages_frame, *bodies)
    # CPU.120V.480G: on demand and spot, in 3 locations
    assert dict(res.excluded.select("reason", "n").rows()) == {"CPU-only instance type (no GPU)": 6}
    # the map has no RTX 6000 Ada: the shared GPU rule reads it from the instance type
    ada = one(res.offers, "1RTX6000ADA.10V")
    assert (ada["gpu_name"], ada["gpu_memory_gib"]) == ("RTX 6000 ADA", 48.0)
    assert ada["price_usd_per_hour"] == 1.19
    assert res.unknown_gpu["n"].sum() == 0


def test_a_price_that_is_not_a_number_is_quarantined_with_it(pages_frame, bodies):
    types, _ = bodies
    types[3]["price_per_hour"] = "n/a"
    res = run(pages_frame, types, [{"code": "FIN-01"}])
    assert res.rejected["reason"].to_list() == ["price_per_hour n/a is not a number"]
    assert json.loads(res.rejected["record"][0])["instance_type"] == "1V100.6V"
