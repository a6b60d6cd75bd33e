"""Illustrative or unverified prices never feed rankings, estimates, budgets, rules, cost
marts, break-evens or charts unless asked for (--include-illustrative), and are marked
where they are shown."""

from __future__ import annotations

import duckdb

from gpu_pricing import report
from services import alerts, config
from tests._cli import cli, cli_json

TRAIN = ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"]


def providers_in(path, sql: str) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {r[0] for r in con.sql(sql).fetchall()}
    finally:
        con.close()


# the FluidStack price-sheet row (FluidStack may also have API prices of its own)
SHEET_ROW = "provider = 'fluidstack' and instance_type = 'H100 SXM5 x8'"


def test_the_fluidstack_sheet_row_is_illustrative_and_its_flag_is_not_an_anomaly(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    row = con.sql(
        f"""select provenance, is_verified, price_flag from mart_gpu_offers_current
            where {SHEET_ROW}"""
    ).fetchall()
    con.close()
    assert row == [("illustrative", False, None)]


def test_no_ranking_cost_mart_or_rule_view_reads_an_illustrative_price(demo_warehouse):
    for relation in (
        "mart_cheapest_gpu_hour",
        "mart_cost_per_token",
        "cost_per_token()",
        "mart_breakeven_onprem",
        "alert_rates_current",
    ):
        found = providers_in(
            demo_warehouse, f"select count(*) from {relation} where {SHEET_ROW}"
        )
        assert found == {0}, relation
    # the day-over-day rule reads per provider: no sheet row of FluidStack in its history
    moves = providers_in(
        demo_warehouse,
        f"""select count(*) from fct_gpu_prices
            where {SHEET_ROW} and is_verified""",
    )
    assert moves == {0}
    # the sheets' real prices still count
    assert "paperspace" in providers_in(
        demo_warehouse, "select provider from mart_cheapest_gpu_hour"
    )


def test_estimate_on_a_sheets_only_warehouse_skips_the_illustrative_row(sheets_warehouse):
    # H100 on-demand in the sheets: FluidStack 16.80/8 = 2.10 (illustrative), Paperspace
    # 3.09, CoreWeave 49.24/8 = 6.155
    doc = cli_json(sheets_warehouse, *TRAIN)
    assert (doc["offer"]["provider"], doc["rate_usd_per_gpu_hour"]) == ("paperspace", 3.09)
    assert "fluidstack" not in {a["provider"] for a in doc["alternatives"]}


def test_include_illustrative_uses_it_and_says_so(sheets_warehouse):
    doc = cli_json(sheets_warehouse, *TRAIN, "--include-illustrative")
    assert doc["offer"]["provider"] == "fluidstack"
    assert doc["offer"]["provenance"] == "illustrative"
    assert doc["rate_usd_per_gpu_hour"] == 2.1
    text = cli(*TRAIN, "--include-illustrative", "--warehouse", sheets_warehouse).stdout
    assert "ILLUSTRATIVE price" in text


def test_rates_leaves_illustrative_prices_out_unless_asked_and_then_marks_them(
    sheets_warehouse,
):
    plain = cli_json(sheets_warehouse, "rates", "--gpu", "H100")
    assert "fluidstack" not in {r["provider"] for r in plain["rates"]}
    both = cli_json(sheets_warehouse, "rates", "--gpu", "H100", "--include-illustrative")
    [row] = [r for r in both["rates"] if r["provider"] == "fluidstack"]
    assert row["provenance"] == "illustrative"
    assert "illustrative" in row["note"]
    table = cli("rates", "--gpu", "H100", "--include-illustrative", "--warehouse", sheets_warehouse)
    assert "illustrative price" in table.stdout


def test_breakeven_onprem_uses_a_verified_rate(sheets_warehouse):
    doc = cli_json(sheets_warehouse, "breakeven", "onprem", "--gpu", "H100", "--memory", "80")
    assert doc["offer"]["provider"] == "paperspace"
    with_it = cli_json(
        sheets_warehouse, "breakeven", "onprem", "--gpu", "H100", "--include-illustrative"
    )
    assert with_it["offer"]["provider"] == "fluidstack"


def test_a_budget_is_never_priced_on_an_illustrative_rate(sheets_warehouse):
    cfg = config.parse(
        {
            "budgets": [
                {
                    "name": "h100 usage",
                    "gpu": "H100",
                    "gpus": 8,
                    "hours_per_day": 24,
                    "budget_usd": 1_000_000,
                }
            ]
        }
    )
    con = duckdb.connect(str(sheets_warehouse), read_only=True)
    try:
        evaluations = alerts.evaluate(con, cfg, __import__("datetime").datetime(2026, 11, 21))
    finally:
        con.close()
    messages = " ".join(e.message for e in evaluations if e.rule.startswith("budget"))
    assert "paperspace" in messages and "fluidstack" not in messages


def test_the_report_history_leaves_the_illustrative_price_out(sheets_warehouse):
    con = duckdb.connect(str(sheets_warehouse), read_only=True)
    try:
        section = report.history_section(con, "H100")
    finally:
        con.close()
    assert section.has_data
    assert "fluidstack" not in {r["provider"] for r in section.rows}
    on_demand = [r for r in section.rows if r["pricing_model"] == "on_demand"]
    assert min(r["price_usd_per_gpu_hour"] for r in on_demand) == 3.09  # not 2.10
