"""Spot price points carry what their page says of them, as offers do: a point is the
provider's own ('api') unless its page's `provenance` statement says otherwise
(connectors/kit/provenance.py), a warehouse whose points were stored before they carried
one takes each point's page statement from the ledger, and an illustrative point is in no
spot statistic, band or history."""

from __future__ import annotations

import json
from datetime import datetime

import duckdb
import polars as pl

from connectors.aws.parse import SPOT_PRICES
from connectors.kit import provenance
from warehouse import staging

DEMO_LIKE = json.dumps(
    {"default": "illustrative", "api": [{"instance_type": "g5.xlarge", "pricing_model": "spot"}]}
)
ON_DEMAND_ONLY = json.dumps(
    {"default": "illustrative", "api": [{"instance_type": "p4d.24xlarge", "pricing_model": "on_demand"}]}
)


def points(*rows: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "region": ["us-east-1"] * len(rows),
            "zone": ["us-east-1a"] * len(rows),
            "instance_type": [r[1] for r in rows],
            "load_id": [r[0] for r in rows],
            "provenance": [None] * len(rows),
        },
        schema_overrides={"provenance": pl.String},
    )


def test_a_point_is_the_providers_own_unless_its_page_says_otherwise():
    pages = pl.DataFrame(
        {"load_id": ["l1", "l2", "l3"], "provenance": [DEMO_LIKE, None, ON_DEMAND_ONLY]}
    )
    got = provenance.apply_points(
        points(("l1", "g5.xlarge"), ("l1", "p4d.24xlarge"), ("l2", "p4d.24xlarge"),
               ("l3", "p4d.24xlarge")),
        pages,
    )
    assert got.columns == points().columns
    assert got["provenance"].to_list() == ["api", "illustrative", "api", "illustrative"]
    # no statements at all (a live page): every point is the provider's own
    assert provenance.apply_points(points(("l9", "g5.xlarge")), None)["provenance"].to_list() == [
        "api"
    ]


def test_points_stored_before_they_carried_a_provenance_take_their_pages_statement():
    con = duckdb.connect()
    columns = {c: t for c, t in SPOT_PRICES.columns.items() if c != "provenance"}
    old = pl.DataFrame(
        {
            "provider": ["aws"] * 3,
            "region": ["us-east-1"] * 3,
            "zone": ["us-east-1a", "us-east-1b", "us-east-1a"],
            "instance_type": ["g5.xlarge", "p4d.24xlarge", "p4d.24xlarge"],
            "product_description": ["Linux/UNIX"] * 3,
            "price_usd_per_hour": [0.4, 10.0, 11.0],
            "observed_at": [datetime(2026, 11, 19, h) for h in (1, 2, 3)],
            "endpoint": ["spot_price_history"] * 3,
            "load_id": ["l1", "l1", "l2"],
            "fetched_at": [datetime(2026, 11, 20)] * 3,
        },
        schema=columns,
    )
    con.register("old", old.to_arrow())
    con.execute("CREATE TABLE stg_aws__spot_prices AS SELECT * FROM old")
    con.execute("CREATE TABLE _load_pages (load_id VARCHAR, provenance VARCHAR)")
    con.execute("INSERT INTO _load_pages VALUES ('l1', ?), ('l1', ?), ('l2', NULL)",
                [DEMO_LIKE, DEMO_LIKE])
    con.begin()  # as a refresh stages: inside its transaction
    staging._stated_points(con, SPOT_PRICES)
    con.commit()
    got = con.execute(
        "SELECT zone, instance_type, load_id, provenance FROM stg_aws__spot_prices ORDER BY 1, 2, 3"
    ).fetchall()
    assert got == [
        ("us-east-1a", "g5.xlarge", "l1", "api"),
        ("us-east-1a", "p4d.24xlarge", "l2", "api"),
        ("us-east-1b", "p4d.24xlarge", "l1", "illustrative"),
    ]
    # run again (every refresh that parses does): nothing left to state, nothing changes
    staging._stated_points(con, SPOT_PRICES)
    assert con.execute(
        "SELECT zone, instance_type, load_id, provenance FROM stg_aws__spot_prices ORDER BY 1, 2, 3"
    ).fetchall() == got
