"""`estimate` and `breakeven onprem` price at the offer mart_cheapest_gpu_hour names: for every
GPU, memory and pricing model of the mart, the first offer the cost commands read is the
mart's, so the two never disagree on "the cheapest" (price, then provider, region, zone
with none first, instance type)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpu_pricing.cli import app
from gpu_pricing.cli.costs import Warehouse
from warehouse import db

KEY = ["provider", "region", "zone", "instance_type", "price_usd_per_gpu_hour"]


def test_the_cost_commands_first_offer_is_the_marts_cheapest(demo_warehouse):
    con = db.connect_readonly(demo_warehouse)
    try:
        cheapest = db.query(con, "SELECT * FROM mart_cheapest_gpu_hour").to_dicts()
    finally:
        con.close()
    assert len(cheapest) > 50
    wh = Warehouse(demo_warehouse)
    try:
        mismatches = []
        for row in cheapest:
            first = wh.offers(
                row["gpu_name"], row["gpu_memory_gib"], row["pricing_model"], limit=1
            ).row(0, named=True)
            if [first[k] for k in KEY] != [row[k] for k in KEY]:
                mismatches.append((row, first))
    finally:
        wh.close()
    assert mismatches == []


def test_breakeven_onprem_names_the_marts_on_demand_offer(demo_warehouse):
    con = db.connect_readonly(demo_warehouse)
    try:
        mart = db.query(
            con,
            "SELECT * FROM mart_cheapest_gpu_hour WHERE gpu_name = 'H100' "
            "AND gpu_memory_gib = 80 AND pricing_model = 'on_demand'",
        ).row(0, named=True)
    finally:
        con.close()
    result = CliRunner().invoke(
        app,
        ["breakeven", "onprem", "--gpu", "H100", "--memory", "80", "--json",
         "--warehouse", str(demo_warehouse)],
    )
    assert result.exit_code == 0, result.stderr
    offer = json.loads(result.stdout)["offer"]
    assert [offer[k] for k in KEY] == [mart[k] for k in KEY]
