"""One staged row per offer key, kept in the staged table itself (warehouse.batches.
unique_offers): the offers are staged batch by batch as they are parsed, so a key listed
twice may arrive in two batches."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from common.schemas import OFFER_SCHEMA, STAGED_COLUMNS, conform, staging_ddl
from warehouse import batches, db, staging

TABLE = "stg_azure__offers"


def offer(**values) -> dict:
    return {
        "provider": "azure",
        "region": "eastus",
        "instance_type": "Standard_ND96asr_v4",
        "pricing_model": "on_demand",
        "price_usd_per_hour": 27.2,
        "fetched_at": datetime(2026, 11, 20),
        "load_id": "load-0",
        "endpoint": "retail_prices",
        "provenance": "api",
        **values,
    }


def staged(*batches: list[dict]) -> duckdb.DuckDBPyConnection:
    """A staging table filled batch by batch, as stage_provider fills it."""
    con = duckdb.connect()
    db.run(con, staging_ddl(TABLE))
    for rows in batches:
        frame = conform(pl.DataFrame(rows, schema_overrides=OFFER_SCHEMA, strict=False))
        staging.insert_frame(con, TABLE, frame.select(STAGED_COLUMNS))
    return con


def rows(con) -> list[tuple]:
    return con.execute(
        f"SELECT region, pricing_detail, price_usd_per_hour, load_id FROM {TABLE} ORDER BY ALL"
    ).fetchall()


def test_a_key_listed_in_two_batches_keeps_the_latest_fetch_then_the_lower_price():
    con = staged(
        [
            offer(price_usd_per_hour=20.0, load_id="old"),
            offer(region="westus", price_usd_per_hour=30.0, load_id="dear"),
        ],
        [
            offer(price_usd_per_hour=25.0, fetched_at=datetime(2026, 11, 21), load_id="new"),
            offer(region="westus", price_usd_per_hour=29.0, load_id="cheap"),
        ],
    )
    assert batches.unique_offers(con, TABLE) == 2
    assert rows(con) == [("eastus", None, 25.0, "new"), ("westus", None, 29.0, "cheap")]


def test_null_key_columns_are_one_key_and_distinct_keys_all_stay():
    con = staged(
        [offer(load_id="a"), offer(pricing_detail="1 Year reservation", load_id="b")],
        [offer(price_usd_per_hour=27.2, load_id="c")],  # the same key as "a", the same price
    )
    assert batches.unique_offers(con, TABLE) == 2
    kept = rows(con)
    assert [r[:3] for r in kept] == [
        ("eastus", "1 Year reservation", 27.2),
        ("eastus", None, 27.2),
    ]
    # a tie in fetch and price keeps the same row whatever order the rows were staged in
    again = staged([offer(price_usd_per_hour=27.2, load_id="c")], [offer(load_id="a")])
    batches.unique_offers(again, TABLE)
    assert rows(again)[0][3] == kept[1][3] == "a"


def test_no_duplicate_leaves_the_table_as_it_is():
    con = staged([offer(), offer(region="westus")])
    assert batches.unique_offers(con, TABLE) == 2
    assert len(rows(con)) == 2
