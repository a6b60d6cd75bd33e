"""Offers at the same price are picked in one order everywhere: the warehouse's one
cheapest-first order (cheapest_order: price, provider, region, zone with none first,
instance type), the order mart_cheapest_gpu_hour ranks by."""

from __future__ import annotations

import polars as pl

from gpu_pricing import plan
from tests.app.plan.test_train_planner import SPECS, offers


def test_the_serving_planner_picks_the_zoneless_offer_of_a_tie_as_the_mart_does():
    # the same price in one region: a zonal offer and one with no zone, which the
    # warehouse's cheapest_order puts first; the rows and the instance types come the other
    # way, so only that order decides
    tied = offers(
        {"zone": "us-east-1a", "instance_type": "a", "gpu_count": 1.0},
        {"zone": None, "instance_type": "b", "gpu_count": 1.0},
    ).with_columns(cheapest_order=pl.Series([2, 1], dtype=pl.Int64))
    row = plan.serve_candidates(tied, SPECS, params=7e9, tokens_per_month=1e9).row(0, named=True)
    assert (row["strategy"], row["base_instance_type"]) == ("on_demand", "b")
