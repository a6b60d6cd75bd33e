"""models/alert_rules.py: rule evaluation and state changes, with the arithmetic in the tests."""

from __future__ import annotations

from datetime import date, datetime

import polars as pl
import pytest

from models import alert_rules as m

OFFER = {
    "provider": "azure",
    "region": "eastus",
    "instance_type": "Standard_ND96isr_H100_v5",
    "price_usd_per_gpu_hour": 12.29,
    "gpu_memory_gib": 80.0,
}


def ev(rule: str, alarm: bool | None, value: float = 1.0) -> m.Evaluation:
    return m.Evaluation(rule, value, 0.0, alarm, f"{rule} says {value}")


def test_a_rule_never_seen_fires_only_when_it_starts_in_alarm():
    fired = m.transitions({}, [ev("a", True), ev("b", False)])
    assert [(t.rule, t.state) for t in fired] == [("a", "ALARM")]


def test_an_unchanged_state_fires_nothing():
    assert m.transitions({"a": "ALARM", "b": "OK"}, [ev("a", True), ev("b", False)]) == []


def test_going_back_below_the_level_fires_one_recovery_with_its_own_message():
    [t] = m.transitions({"a": "ALARM"}, [ev("a", False, 3.0)])
    assert (t.state, t.value, t.message, t.notify) == ("OK", 3.0, "Back to OK: a says 3.0", True)


def test_no_data_keeps_the_previous_state():
    assert m.transitions({"a": "ALARM"}, [ev("a", None)]) == []
    assert m.transitions({}, [ev("a", None)]) == []


def test_a_rule_that_disappeared_while_in_alarm_is_closed_without_a_notification():
    [t] = m.transitions({"gone": "ALARM", "quiet": "OK"}, [])
    assert (t.rule, t.state, t.notify) == ("gone", "OK", False)


def test_price_above_is_strictly_above_the_level():
    assert m.price_level("r", "H100", OFFER, 12.29, above=True).alarm is False
    assert m.price_level("r", "H100", OFFER, 12.28, above=True).alarm is True
    assert m.price_level("r", "H100", OFFER, 12.30, above=False).alarm is True
    assert m.price_level("r", "H100", None, 12.0, above=True).alarm is None


def test_cheapest_filters_gpu_memory_pricing_and_providers():
    rates = pl.DataFrame(
        {
            "gpu_name": ["H100", "H100", "H100", "A100"],
            "gpu_memory_gib": [80.0, 80.0, 94.0, 80.0],
            "pricing_model": ["on_demand"] * 4,
            "provider": ["aws", "azure", "azure", "azure"],
            "region": ["us-east-1", "eastus", "eastus", "eastus"],
            "instance_type": ["p5", "nd", "nc", "nda"],
            "price_usd_per_gpu_hour": [11.0, 12.29, 9.0, 3.0],
            # the view's one cheapest-first order (int_offers_ranked)
            "cheapest_order": [3, 4, 2, 1],
        }
    )
    assert m.cheapest(rates, "H100", 80.0, "on_demand")["provider"] == "aws"
    assert m.cheapest(rates, "H100", None, "on_demand")["instance_type"] == "nc"
    assert (
        m.cheapest(rates, "H100", 80.0, "on_demand", ["azure"])["price_usd_per_gpu_hour"] == 12.29
    )
    assert m.cheapest(rates, "H100", 80.0, "spot") is None


def test_day_over_day_is_the_percentage_move_either_way():
    # 10.00 -> 11.50 is +15%; 10.00 -> 8.80 is -12%
    up = m.day_over_day("r", "H100", 10.0, 11.5, 10)
    down = m.day_over_day("r", "H100", 10.0, 8.8, 15)
    assert up.value == pytest.approx(15.0) and up.alarm is True
    assert down.value == pytest.approx(-12.0) and down.alarm is False
    assert m.day_over_day("r", "H100", None, 8.8, 15).alarm is None


def test_spot_ratio_is_spot_as_a_percentage_of_on_demand():
    # 4.916 / 12.29 = 0.4 -> 40%
    result = m.spot_ratio("r", "H100", {"price_usd_per_gpu_hour": 4.916}, OFFER, 35)
    assert result.value == pytest.approx(40.0) and result.alarm is True


def test_stale_source_counts_hours_since_the_last_good_load():
    # 2026-11-20 02:00 -> 2026-11-21 15:00 is 37 hours
    result = m.stale_source("aws", datetime(2026, 11, 20, 2), datetime(2026, 11, 21, 15), 36)
    assert (result.rule, result.value, result.alarm) == ("stale_source:aws", 37.0, True)
    assert m.stale_source("aws", None, datetime(2026, 11, 21), 36).alarm is True


def test_row_drop_is_the_share_of_offers_the_last_refresh_lost():
    # 120 open now + 130 dropped = 250 before; 130 / 250 = 52%
    result = m.row_drop("azure", 120, 130, 50)
    assert result.value == pytest.approx(52.0) and result.alarm is True
    assert m.row_drop("azure", 250, 0, 50).alarm is False
    assert m.row_drop("azure", 0, 0, 50).alarm is None


def test_month_window_counts_calendar_days_and_fractional_elapsed_days():
    # November has 30 days; 2026-11-11 12:00 is 10.5 days after 2026-11-01 00:00
    assert m.month_window(datetime(2026, 11, 11, 12)) == (30.0, 10.5)
    assert m.month_window(datetime(2028, 2, 1)) == (29.0, 0.0)


def test_total_window_is_clamped_to_the_period():
    assert m.total_window(date(2026, 11, 1), date(2026, 12, 1), datetime(2026, 11, 16)) == (
        30.0,
        15.0,
    )
    assert m.total_window(date(2026, 11, 1), date(2026, 12, 1), datetime(2027, 1, 1)) == (
        30.0,
        30.0,
    )
    assert m.total_window(date(2026, 11, 1), date(2026, 12, 1), datetime(2026, 10, 1)) == (
        30.0,
        0.0,
    )


def ft_budget(window: tuple[float, float], actual: dict | None = None) -> list:
    """The budget "ft" of November 2026: 8 A100s 6 h a day at 1.36 USD per GPU-hour
    (65.28 USD a day) against 2,000 USD, thresholds 50, 80 and 100%."""
    return m.usage_budget(
        "ft",
        gpus=8,
        hours_per_day=6,
        offer={**OFFER, "price_usd_per_gpu_hour": 1.36},
        label="A100 80 GiB spot",
        budget_usd=2000,
        thresholds_pct=[50, 80, 100],
        window=window,
        period="2026-11",
        actual=actual,
    )


def test_a_usage_budget_is_one_state_from_its_forecast_without_a_usage_file():
    # 8 GPUs x 1.36 USD x 6 h = 65.28 USD/day; 30 days = 1,958.40 forecast: 98% of 2,000,
    # past 50% and 80%: one ALARM for the budget, not one per threshold and measure
    evals = ft_budget(window=(30.0, 10.5))
    got = {e.rule: (round(e.value, 2), e.threshold, e.alarm) for e in evals}
    assert got == {"budget:ft": (1958.4, 1000.0, True)}
    assert "forecast 1,958.40 USD (98%)" in evals[0].message
    assert "crossed 50%, 80%" in evals[0].message and "forecast only" in evals[0].message
    assert "actual" not in evals[0].message.split(";")[0]


def test_actual_spend_is_the_usage_file_at_the_rates_in_force_each_day():

    # the cheapest rate was 2.00 until Nov 3 noon... 1.50 from Nov 3 on (two offers)
    history = pl.DataFrame(
        {
            "valid_from": [datetime(2026, 11, 1), datetime(2026, 11, 1), datetime(2026, 11, 3)],
            "valid_to": [datetime(2026, 11, 3), None, None],
            "price_usd_per_gpu_hour": [2.0, 2.5, 1.5],
        }
    )
    usage = pl.DataFrame(
        {
            "date": [date(2026, 10, 31), date(2026, 11, 1), date(2026, 11, 2), date(2026, 11, 3)],
            "gpu_hours": [99.0, 10.0, 20.0, 30.0],
        }
    )
    got = m.actual_from_usage(
        usage, history, gpus=8, start=date(2026, 11, 1), end=date(2026, 12, 1)
    )
    # Oct 31 is outside the month; 10 x 2.00 + 20 x 2.00 + 30 x 1.50 = 105 USD
    assert got == {"actual_usd": 105.0, "days": 3, "gpu_hours": 60.0}
    # hours of the budget's 8 GPUs, and a cost export summed as it is
    hours = usage.rename({"gpu_hours": "hours"})
    assert m.actual_from_usage(
        hours, history, gpus=8, start=date(2026, 11, 1), end=date(2026, 12, 1)
    )["actual_usd"] == 8 * 105.0
    export = usage.rename({"gpu_hours": "cost_usd"})
    assert m.actual_from_usage(
        export, history, gpus=8, start=date(2026, 11, 1), end=date(2026, 12, 1)
    )["actual_usd"] == 60.0


def test_with_a_usage_file_the_forecast_is_actual_plus_the_days_left():
    (ev,) = ft_budget(
        window=(30.0, 10.0), actual={"actual_usd": 1200.0, "days": 10, "gpu_hours": 800.0}
    )
    # forecast 1,200 + 65.28 x 20 days left = 2,505.60: one state, past every threshold
    assert ev.rule == "budget:ft" and ev.alarm is True
    assert ev.value == pytest.approx(2505.6)
    assert "actual 1,200.00 USD (60%)" in ev.message and "crossed 50%, 80%, 100%" in ev.message


def test_training_budget_forecast_uses_6nd_at_the_mfu():
    # 6 * 70e9 * 2e12 = 8.4e23 FLOPs / (0.45 * 989e12 * 3600 = 1.602e18) = 524,285.7 GPU-hours;
    # x 4 USD = 2,097,142.6 USD: 84% of a 2.5M budget
    evals = m.training_budget(
        "pretrain",
        params=70e9,
        tokens=2e12,
        mfu=0.45,
        gpus=1024,
        peak_tflops=989,
        offer={**OFFER, "price_usd_per_gpu_hour": 4.0},
        label="H100",
        budget_usd=2.5e6,
        thresholds_pct=[50, 80, 100],
    )
    assert [e.alarm for e in evals] == [True]  # one state: past 50% and 80%
    assert "crossed 50%, 80%" in evals[0].message and "forecast" in evals[0].message
    assert evals[0].value == pytest.approx(8.4e23 / (0.45 * 989e12 * 3600) * 4)
    assert evals[0].value == pytest.approx(2_097_142.6, rel=1e-7)


def test_a_budget_with_no_matching_offer_is_no_data():
    evals = m.usage_budget(
        "ft",
        gpus=8,
        hours_per_day=6,
        offer=None,
        label="B300 spot",
        budget_usd=10,
        thresholds_pct=[100],
        window=(30.0, 1.0),
        period="2026-11",
    )
    assert [e.alarm for e in evals] == [None]
    assert "no current B300 spot offer to price it" in evals[0].message
    for offer, peak, why in ((None, 989, "no current offer"), (OFFER, None, "no BF16 peak")):
        (ev,) = m.training_budget(
            "pretrain", params=70e9, tokens=2e12, mfu=0.45, gpus=8, peak_tflops=peak,
            offer=offer, label="H100", budget_usd=1e6, thresholds_pct=[100],
        )  # fmt: skip
        assert ev.alarm is None and f"{why} for H100" in ev.message


def test_cheapest_takes_the_views_order_not_its_own_tie_break():
    # two rates at one price: the view's cheapest_order decides (here the second row,
    # whose zone-less offer the SQL ranks first), not a re-sort by name in Python
    rates = pl.DataFrame(
        {
            "gpu_name": ["H100", "H100"],
            "gpu_memory_gib": [80.0, 80.0],
            "pricing_model": ["on_demand"] * 2,
            "provider": ["aws", "aws"],
            "region": ["us-east-1", "us-east-1"],
            "instance_type": ["p5a", "p5b"],
            "price_usd_per_gpu_hour": [4.0, 4.0],
            "cheapest_order": [8, 7],
        }
    )
    assert m.cheapest(rates, "H100", 80.0, "on_demand")["instance_type"] == "p5b"
