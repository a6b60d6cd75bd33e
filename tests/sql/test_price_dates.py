"""Every price carries the date its source states and the time we first saw it; freshness
and history use the right one."""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb

from gpu_pricing import report
from services import alerts, config
from tests._cli import cli

TRAIN = ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"]


def rows(path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def test_the_estimate_says_the_prices_own_date_not_the_fetch_time(sheets_warehouse):
    out = cli(*TRAIN, "--include-illustrative", "--warehouse", sheets_warehouse).stdout
    out = " ".join(out.split())  # the text wraps at the terminal's width
    # the FluidStack row is dated 2026-08-20; the demo snapshot was read 2026-11-20
    assert "2026-08-20 per its source, first seen 2026-11-20 02:00 UTC" in out
    verified = cli(*TRAIN, "--warehouse", sheets_warehouse).stdout
    assert "paperspace" in verified and "2026-09-20 per its source" in verified


def test_a_new_offer_opens_when_first_seen_and_keeps_its_publishers_date(demo_warehouse):
    got = rows(
        demo_warehouse,
        """select distinct valid_from, first_seen_at, year(source_effective_at)
           from fct_gpu_prices
           where provider = 'azure' and connector = 'azure' and valid_to is null""",
    )
    # Azure's effectiveStartDate is 2024 for these prices; the demo fetch is 2026-11-20
    assert {(v, f) for v, f, _ in got} == {(datetime(2026, 11, 20, 2), datetime(2026, 11, 20, 2))}
    assert {y for _, _, y in got} <= {2023, 2024, 2025}
    current = rows(
        demo_warehouse,
        """select count(*) from mart_gpu_offers_current
           where provider = 'azure' and source_effective_at < first_seen_at""",
    )[0][0]
    assert current > 0


def test_a_historical_sheet_row_keeps_the_period_its_source_states(demo_warehouse):
    got = rows(
        demo_warehouse,
        """select distinct valid_from, valid_to from fct_gpu_prices
           where pricing_detail = 'price survey 2023-04-07'""",
    )
    assert got == [(datetime(2023, 4, 7), datetime(2023, 4, 8))]


def test_the_report_history_draws_each_price_from_the_date_its_source_states(
    demo_counted_warehouse,
):
    con = duckdb.connect(str(demo_counted_warehouse), read_only=True)
    try:
        section = report.history_section(con, "H100")
        [(stated,)] = con.sql(
            """select min(source_effective_at) from fct_gpu_prices
               where gpu_name = 'H100' and is_verified and source_effective_at < valid_from"""
        ).fetchall()
    finally:
        con.close()
    # the demo was fetched on 2026-11-20, but Azure's price list states 2024-06-01 for its
    # H100 prices: the history starts there, not at the night the warehouse first saw them
    assert stated is not None and stated < datetime(2026, 1, 1)
    assert min(r["at"] for r in section.rows) == stated
    # and a price with no date of its own starts on the night it was first seen
    first_seen = [r for r in section.rows if r["provider"] == "vastai"]
    assert first_seen and min(r["at"] for r in first_seen) >= datetime(2026, 11, 19)


def test_a_months_old_sheet_is_stale_though_it_was_read_minutes_ago(sheets_warehouse):
    [(loaded,)] = rows(sheets_warehouse, "select max(finished_at) from _loads")
    now = loaded + timedelta(minutes=30)
    con = duckdb.connect(str(sheets_warehouse), read_only=True)
    try:
        evaluations = alerts.evaluate(
            con, config.Config(providers={"sheets": None}, alerts={"row_drop_pct": 0}), now
        )
    finally:
        con.close()
    stale = {e.rule: e for e in evaluations}
    # the user configured the sheets (an unconfigured demo's sheets raise no staleness);
    # freshness is per sheet provider, dated by the rows' own as_of (2026-09-20), with the
    # sheets' limit (30 days by default)
    assert "stale_source:sheets" not in stale
    coreweave = stale["stale_source:coreweave"]
    assert coreweave.alarm is True
    assert round(coreweave.value) == round((now - datetime(2026, 9, 20)) / timedelta(hours=1))
    assert "newest price dated 2026-09-20" in coreweave.message
    assert coreweave.threshold == 30 * 24
    assert {"stale_source:paperspace", "stale_source:fluidstack"} <= set(stale)


def test_an_api_provider_is_still_dated_by_its_last_load(demo_warehouse):
    [(loaded,)] = rows(demo_warehouse, "select max(finished_at) from _loads where provider = 'aws'")
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        evaluations = alerts.evaluate(
            con, config.Config(providers={"aws": None}, alerts={"row_drop_pct": 0}), loaded + timedelta(hours=1)
        )
    finally:
        con.close()
    [aws] = evaluations
    assert (aws.rule, aws.alarm, round(aws.value, 3)) == ("stale_source:aws", False, 1.0)
