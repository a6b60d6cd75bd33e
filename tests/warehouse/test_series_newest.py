"""The kept newest row of each spot series (warehouse.series_newest) is the one worked out
from all history, whatever changed the table: nights appended by the staging insert,
points held back and deleted by the plausibility rules (a series' newest among them, and a
series all of whose recent points go), rows added by hand, provenance filled in place (worked out again)."""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb
import polars as pl

from connectors.aws.shapes import SPOT_POINT_COLUMNS, SPOT_PRICES
from warehouse import db, plausibility, series_newest, staging

T = SPOT_PRICES.name
S = SPOT_PRICES.series
START = datetime(2026, 1, 1)
ZONES = [("eu-west-1", "eu-west-1a"), ("eu-west-1", "eu-west-1b"), ("us-east-1", "us-east-1a")]
TYPES = ["g5.xlarge", "p4d.24xlarge"]


def night(n: int, *, skip: frozenset[tuple[str, str]] = frozenset()) -> pl.DataFrame:
    rows = [
        {
            "provider": "aws", "region": region, "zone": zone, "instance_type": itype,
            "product_description": "Linux/UNIX", "price_usd_per_hour": 1.0 + n + k / 10,
            "observed_at": START + timedelta(days=n, hours=6 * k),
            "endpoint": "spot_price_history", "load_id": f"night-{n}",
            "fetched_at": START + timedelta(days=n + 1), "provenance": "api",
        }
        for region, zone in ZONES for itype in TYPES for k in range(3)
        if (zone, itype) not in skip
    ]  # fmt: skip
    return pl.DataFrame(rows, schema=SPOT_POINT_COLUMNS)


def whole(con) -> list[tuple]:
    """Each series' newest row by its definition, over every stored row."""
    return sorted(
        con.execute(
            f"""SELECT * FROM {T} QUALIFY observed_at = max(observed_at) OVER (
                    PARTITION BY region, zone, instance_type)"""
        ).fetchall()
    )


def kept(con) -> list[tuple]:
    return sorted(series_newest.read(con, T, S.series, S.time).rows())


def kept_current(con) -> bool:
    """Whether the kept rows stand for the table (else a read works them out again)."""
    ledger = series_newest._ledger(con, T)
    return ledger is not None and ledger[:2] == series_newest._shape(con, T)


def test_the_kept_rows_follow_appends_deletions_and_changes_made_elsewhere():
    con = duckdb.connect()
    staging.replace_staged(con, T, night(0), ddl=SPOT_PRICES.ddl)
    series_newest.keep(con, T, S.series, S.time)  # as a full parse does
    assert kept(con) == whole(con)
    table = plausibility.SeriesTable("aws", T, (*S.series, S.time))
    for n in range(1, 8):
        # a series that falls silent for good on night 3: its newest row stays nights back
        silent = frozenset({("eu-west-1b", "p4d.24xlarge")} if n >= 3 else set())
        staging._append_rows(con, SPOT_PRICES, S, night(n, skip=silent))
        # noted by the insert, brought up to date by the read from the night's rows only
        assert kept_current(con), n
        if n in (4, 6):
            # held back: a series' point of the night (not its newest stored point)
            held = db.query(
                con,
                f"SELECT * FROM {T} WHERE zone = 'eu-west-1a' AND instance_type = 'g5.xlarge' "
                f"AND load_id = 'night-{n}' ORDER BY observed_at LIMIT 1",
            )
            plausibility._delete_points(con, held, table)
            assert kept_current(con), n
        assert kept(con) == whole(con), n
    # a series' newest point held back, once the kept rows name it: worked out again
    held = db.query(
        con, f"SELECT * FROM {T} WHERE load_id = 'night-7' AND zone = 'us-east-1a' LIMIT 2"
    )
    staging._append_rows(con, SPOT_PRICES, S, night(8))
    plausibility._delete_points(con, held, table)
    assert kept_current(con)  # those points were not the kept ones (night 8 is newer)
    assert kept(con) == whole(con)
    held = db.query(con, f"SELECT * FROM {T} WHERE load_id = 'night-8' AND zone = 'us-east-1a'")
    plausibility._delete_points(con, held, table)
    assert not kept_current(con)
    assert kept(con) == whole(con)
    assert kept_current(con)
    # a row added by hand (not through the staging insert): never read from a stale copy
    con.execute(
        f"""INSERT INTO {T} BY NAME
            SELECT * REPLACE (observed_at + INTERVAL 5 DAY AS observed_at, 'x' AS load_id)
            FROM {T} WHERE load_id = 'night-7' AND zone = 'eu-west-1a'"""
    )
    assert not kept_current(con)
    assert kept(con) == whole(con)
    con.close()
