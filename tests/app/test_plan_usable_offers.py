"""An offers frame a caller hands the planner keeps exactly the rows the warehouse's
usable-offer rule (int_offers_usable) keeps: an illustrative price and an accelerator-only
price (host_included false) are left out as the warehouse leaves them out, and a frame
that states neither column counts its rows as the warehouse counts a row that states
neither (provider API prices of whole machines)."""

from __future__ import annotations

import duckdb
import polars as pl

import gpu_pricing

KEY = ["provider", "region", "zone", "instance_type", "pricing_model"]


def three_rows(warehouse) -> pl.DataFrame:
    """One illustrative H100 offer, one accelerator-only one and one provider API price of
    a whole machine, on demand, as the published current offers show them."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.sql(
            """
            SELECT * EXCLUDE (pick) FROM (
                SELECT *, row_number() OVER (
                    PARTITION BY provenance, host_included ORDER BY cheapest_order) AS pick
                FROM mart_gpu_offers_current
                WHERE gpu_name = 'H100' AND gpu_memory_gib = 80
                  AND pricing_model = 'on_demand' AND gpu_count >= 1
                  AND (provenance = 'illustrative' AND host_included
                       OR provenance = 'api' AND NOT host_included
                       OR provenance = 'api' AND host_included)
            ) WHERE pick = 1
            ORDER BY cheapest_order
            """
        ).pl()
    finally:
        con.close()
    assert rows.height == 3
    # the one column of the planner's offers (gpu_pricing.offers) the mart does not carry
    return rows.with_columns(pl.lit(None, pl.Float64).alias("preemption_rate_per_hour"))


def planned(rows: pl.DataFrame, warehouse) -> set[tuple]:
    plan = gpu_pricing.plan_train(
        params=1e9, tokens=20e9, offers_frame=rows, warehouse=warehouse
    )
    return set(plan.candidates.select(KEY).unique().iter_rows())


def test_a_frame_keeps_what_the_warehouse_keeps(demo_warehouse):
    rows = three_rows(demo_warehouse)
    usable = gpu_pricing.offers(demo_warehouse).select(KEY)
    kept_by_warehouse = set(
        rows.join(usable, on=KEY, how="semi", nulls_equal=True).select(KEY).iter_rows()
    )
    # the warehouse keeps the API price of a whole machine only
    assert kept_by_warehouse == set(
        rows.filter((pl.col("provenance") == "api") & pl.col("host_included"))
        .select(KEY)
        .iter_rows()
    )
    assert planned(rows, demo_warehouse) == kept_by_warehouse


def test_a_frame_that_states_no_provenance_counts_its_rows_as_api_prices(demo_warehouse):
    rows = three_rows(demo_warehouse).drop("provenance", "is_verified")
    # none stated is 'api', as for a connector row: the illustrative H100 counts now, the
    # accelerator-only price still does not
    assert planned(rows, demo_warehouse) == set(
        rows.filter(pl.col("host_included")).select(KEY).iter_rows()
    )
