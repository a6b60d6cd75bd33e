"""The pricing models for large runs (capacity_block, flex, savings_plan_1y/3y) flow from
the demo snapshot through the marts to `rates`, the report charts and the CLI's check of
--pricing values."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from common.schemas import PRICING_MODELS
from gpu_pricing import report
from gpu_pricing.cli import app
from warehouse import db

NEW = ("capacity_block", "flex", "savings_plan_1y", "savings_plan_3y")


def test_the_vocabulary_has_the_new_models():
    assert set(NEW) <= set(PRICING_MODELS)


def test_cheapest_mart_has_every_pricing_model_of_the_demo(demo_counted_warehouse):
    con = db.connect_readonly(demo_counted_warehouse)
    try:
        rows = db.run(
            con,
            """SELECT pricing_model, count(*) FROM mart_cheapest_gpu_hour
               WHERE gpu_name = 'H100' GROUP BY ALL ORDER BY ALL""",
        )
    finally:
        con.close()
    assert {model for model, _ in rows} == set(PRICING_MODELS)


@pytest.mark.parametrize("model", NEW)
def test_rates_filters_on_each_new_pricing_model(demo_counted_warehouse, model):
    result = CliRunner().invoke(
        app,
        ["rates", "--gpu", "H100", "--pricing", model, "--json",
         "--warehouse", str(demo_counted_warehouse)],
    )
    assert result.exit_code == 0, result.output
    rates = json.loads(result.output)["rates"]
    assert rates and {r["pricing_model"] for r in rates} == {model}
    prices = [r["price_usd_per_gpu_hour"] for r in rates]
    assert prices == sorted(prices)  # cheapest first
    assert all(r["pricing_detail"] for r in rates)  # each says its terms


def test_an_unknown_pricing_value_names_the_accepted_ones(demo_warehouse):
    result = CliRunner().invoke(
        app, ["rates", "--pricing", "reserved_5y", "--warehouse", str(demo_warehouse)]
    )
    assert result.exit_code == 2
    assert "capacity_block, flex, savings_plan_1y, savings_plan_3y" in result.output


def test_report_charts_draw_a_trace_per_new_pricing_model(demo_counted_warehouse):
    con = db.connect_readonly(demo_counted_warehouse)
    try:
        section = report.cheapest_section(con, "H100")
    finally:
        con.close()
    for model in NEW:
        assert f'"name":"{model}"' in section.chart, model
    assert {row["pricing_model"] for row in section.rows} >= set(NEW)
