"""The sql/alert_inputs views behind the health and move rules, on refreshes of edited demo
snapshots (library calls, no Prefect)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services import alerts, config
from tests._warehouse import copy_warehouse, refresh_from
from warehouse import db

pytestmark = pytest.mark.slow  # every test here: over ~2 s on a quiet 2-core machine


def states(result: alerts.CheckResult) -> dict[str, str | None]:
    return {e.rule: e.state for e in result.evaluations}


def test_a_refresh_that_drops_most_offers_raises_row_drop_and_the_next_one_clears_it(
    tmp_path, azure_snapshot, azure_warehouse
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")  # the demo's Azure, refreshed
    cfg = config.Config(providers={"azure": None})
    assert states(alerts.check(path, cfg))["row_drop:azure"] == "OK"

    shrunk = azure_snapshot("shrunk", keep_items=5)  # 5 of the 25 items on each page
    # the refresh keeps the old offers of a provider that loses most of them ...
    assert refresh_from(path, shrunk, "azure").exit_code == 3
    assert states(alerts.check(path, cfg))["row_drop:azure"] == "OK"
    # ... until the drop is accepted as real: then it publishes, and the alert fires
    refresh_from(path, shrunk, "azure", accept_drop=("azure",))
    result = alerts.check(path, cfg)
    [drop] = [e for e in result.evaluations if e.rule == "row_drop:azure"]
    assert drop.state == "ALARM" and drop.value > 50
    assert [t.rule for t in result.fired] == ["row_drop:azure"]

    refresh_from(path, shrunk, "azure")  # the same smaller catalogue again: nothing dropped this time
    result = alerts.check(path, cfg)
    assert states(result)["row_drop:azure"] == "OK"
    assert [(t.rule, t.state) for t in result.fired] == [("row_drop:azure", "OK")]


def test_an_unchanged_refresh_is_not_a_row_drop(tmp_path, azure_warehouse):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")  # the demo's Azure, refreshed
    refresh_from(path, "demo", "azure")  # every page unchanged: _loads.rows is 0, offers are not
    [drop] = [
        e for e in alerts.check(path, config.Config()).evaluations if e.rule == "row_drop:azure"
    ]
    assert (drop.state, drop.value) == ("OK", 0.0)


def test_a_provider_not_loaded_for_36_hours_is_stale(tmp_path, azure_warehouse):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")  # the demo's Azure, refreshed
    con = db.connect_readonly(path)
    last_ok = db.query(con, "SELECT max(finished_at) AS t FROM _loads WHERE provider = 'azure'")
    con.close()
    later = last_ok["t"][0] + timedelta(hours=37)
    result = alerts.check(path, config.Config(providers={"azure": None}), now=later)
    [stale] = [e for e in result.evaluations if e.rule == "stale_source:azure"]
    assert stale.state == "ALARM" and round(stale.value, 3) == 37.0


def test_day_over_day_compares_with_the_prices_valid_24_hours_before_the_latest_fetch(
    tmp_path, azure_snapshot, demo_counted_warehouse
):
    # demo fetched 2026-11-20 02:00: 12.29; raised fetched 2026-11-21 02:00: 14.748 (+20%).
    # The demo's H100 prices are illustrative, left out of the rule: the day before is the
    # demo with every price counted, as the raised pages are.
    path = copy_warehouse(demo_counted_warehouse, tmp_path / "w.duckdb")
    refresh_from(path, azure_snapshot("raised", 1.2, "2026-11-21T02:00:00Z"), "azure")
    rule = {
        "name": "h100-move",
        "kind": "day_over_day",
        "gpu": "H100",
        "memory_gib": 80,
        "max_move_pct": 10,
        "providers": ["azure"],
    }
    [move] = [
        e
        for e in alerts.check(path, config.parse({"rules": [rule]})).evaluations
        if e.rule == "rate:h100-move"
    ]
    assert move.state == "ALARM" and round(move.value, 6) == 20.0


def test_the_current_rates_are_read_only_when_a_rule_or_budget_reads_them(
    tmp_path, azure_warehouse, monkeypatch
):
    """With no rate rule and no budget the check does not compute alert_rates_current (at a
    million offers the whole view stack, in an unchanged refresh); with a rule it does."""
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    read: list[str] = []
    real = alerts._frame
    monkeypatch.setattr(alerts, "_frame", lambda con, view: read.append(view) or real(con, view))
    health = alerts.check(path, config.Config(providers={"azure": None}))
    assert "alert_rates_current" not in read
    assert {e.rule for e in health.evaluations} >= {"stale_source:azure", "row_drop:azure"}
    rule = {"name": "h100", "kind": "price_above", "gpu": "H100", "memory_gib": 80,
            "usd_per_gpu_hour": 1000}  # fmt: skip
    result = alerts.check(path, config.parse({"rules": [rule]}))
    assert "alert_rates_current" in read
    assert "rate:h100" in {e.rule for e in result.evaluations}
