import math

import pytest

from models import breakeven


def test_h100_bought_at_30000_vs_rented_at_4_breaks_even_after_7500_hours_and_10_4_months():
    result = breakeven.onprem(capex_usd=30_000, rate_usd_per_gpu_hour=4.0)
    # 30000 / 4 = 7500 GPU-hours
    assert result["break_even_gpu_hours"] == pytest.approx(7500)
    # 7500 / 720 hours per month (30 days) = 10.4167 months
    assert result["break_even_months"] == pytest.approx(10.4167, rel=1e-4)


def test_half_utilisation_doubles_the_months():
    result = breakeven.onprem(30_000, 4.0, utilization=0.5)
    # 7500 / (0.5 * 720) = 20.833 months
    assert result["break_even_months"] == pytest.approx(20.8333, rel=1e-4)


def test_power_and_residual_value_move_the_break_even():
    result = breakeven.onprem(30_000, 4.0, power_kw=0.7, usd_per_kwh=0.10, residual_value_usd=6_000)
    # power 0.7 kW * 0.10 USD/kWh = 0.07 USD/h; saved 4 - 0.07 = 3.93 USD/h
    # (30000 - 6000) / 3.93 = 6106.87 GPU-hours
    assert result["power_usd_per_hour"] == pytest.approx(0.07)
    assert result["break_even_gpu_hours"] == pytest.approx(6106.87, rel=1e-5)


def test_rent_cheaper_than_power_never_breaks_even():
    # 10 kW * 0.5 USD/kWh = 5 USD/h of power > 4 USD/h rent
    with pytest.raises(ValueError, match=r"^rate_usd_per_gpu_hour must exceed .*got 4\.0"):
        breakeven.onprem(30_000, 4.0, power_kw=10, usd_per_kwh=0.5)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("capex_usd", {"capex_usd": -1}),
        ("rate_usd_per_gpu_hour", {"rate_usd_per_gpu_hour": 0}),
        ("utilization", {"utilization": 1.2}),
        ("residual_value_usd", {"residual_value_usd": 40_000}),
        ("power_kw", {"power_kw": -0.7}),
    ],
)
def test_invalid_onprem_inputs_are_rejected_naming_the_input(name, kwargs):
    args = {"capex_usd": 30_000, "rate_usd_per_gpu_hour": 4.0} | kwargs
    with pytest.raises(ValueError, match=rf"^{name} must"):
        breakeven.onprem(**args)


def test_spot_at_1_50_vs_on_demand_4_00_breaks_even_at_1_21_preemptions_per_hour():
    result = breakeven.spot(
        spot_rate_usd_per_hour=1.50,
        on_demand_rate_usd_per_hour=4.00,
        checkpoint_overhead=0.05,
        checkpoint_interval_hours=1.0,
    )
    # 2 / 1 * (1 - 1.5 * 1.05 / 4) = 2 * (1 - 0.39375) = 1.2125
    assert result["break_even_preemption_rate_per_hour"] == pytest.approx(1.2125)
    # 1 - 1.5 / 4 = 0.625
    assert result["spot_discount"] == pytest.approx(0.625)
    assert result["time_multiplier"] is None


def test_spot_effective_cost_at_a_known_preemption_rate():
    result = breakeven.spot(1.50, 4.00, 0.05, 1.0, preemption_rate_per_hour=0.2)
    # T_eff / T = 1.05 / (1 - 0.2 * 1 / 2) = 1.05 / 0.9 = 1.16667
    assert result["time_multiplier"] == pytest.approx(1.166667, rel=1e-6)
    # 1.50 * 1.16667 = 1.75 USD per useful hour
    assert result["spot_usd_per_useful_hour"] == pytest.approx(1.75)
    assert result["spot_is_cheaper"] is True


def test_at_the_break_even_rate_spot_costs_the_same_as_on_demand():
    # at p = 1.2125: 1.05 / (1 - 1.2125 / 2) = 1.05 / 0.39375 = 2.6667; * 1.5 = 4.00
    multiplier = breakeven.spot_time_multiplier(0.05, 1.0, 1.2125)
    assert 1.5 * multiplier == pytest.approx(4.0)


def test_restart_time_adds_to_the_work_lost_per_preemption():
    # lost per preemption = 1/2 + 0.25 = 0.75 h; (1 - 0.39375) / 0.75 = 0.80833
    rate = breakeven.spot_breakeven_preemption_rate(1.5, 4.0, 0.05, 1.0, restart_hours=0.25)
    assert rate == pytest.approx(0.808333, rel=1e-6)


def test_spot_dearer_than_on_demand_breaks_even_at_zero():
    # 3.9 * 1.05 = 4.095 > 4.0: never cheaper
    assert breakeven.spot_breakeven_preemption_rate(3.9, 4.0, 0.05, 1.0) == 0.0


def test_preemption_rate_making_t_eff_infinite_is_rejected():
    # p * c / 2 = 2 * 1 / 2 = 1: no useful time left
    with pytest.raises(ValueError, match=r"^preemption_rate_per_hour must be < 2\.0 .*got 2"):
        breakeven.spot_time_multiplier(0.05, 1.0, 2)


def test_preemption_rate_making_t_eff_negative_is_rejected():
    with pytest.raises(ValueError, match=r"^preemption_rate_per_hour must be < .*got 3\.0"):
        breakeven.spot(1.5, 4.0, 0.05, 1.0, preemption_rate_per_hour=3.0)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("spot_rate_usd_per_hour", (0, 4.0, 0.05, 1.0)),
        ("on_demand_rate_usd_per_hour", (1.5, -4.0, 0.05, 1.0)),
        ("checkpoint_overhead", (1.5, 4.0, -0.05, 1.0)),
        ("checkpoint_interval_hours", (1.5, 4.0, 0.05, 0)),
        ("checkpoint_interval_hours", (1.5, 4.0, 0.05, math.inf)),
    ],
)
def test_invalid_spot_inputs_are_rejected_naming_the_input(name, args):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        breakeven.spot(*args)


def test_reserved_pays_above_the_ratio_of_rates():
    # a 1-year commitment: 8760 upfront + 1.50/h -> 8760 / 8760 + 1.5 = 2.50 USD/h effective
    effective = breakeven.reserved_effective_usd_per_hour(8760, 1.5, breakeven.HOURS_PER_YEAR)
    assert effective == pytest.approx(2.5)
    # 2.50 / 4.00 = 0.625: above 62.5% utilisation the commitment is cheaper
    result = breakeven.reserved(effective, 4.0, utilization=0.7)
    assert result["break_even_utilization"] == pytest.approx(0.625)
    # 0.7 * 4.0 = 2.80 USD per committed hour on demand > 2.50
    assert result["on_demand_usd_per_committed_hour"] == pytest.approx(2.8)
    assert result["reserved_is_cheaper"] is True


def test_reserved_below_break_even_utilisation_is_not_cheaper():
    assert breakeven.reserved(2.5, 4.0, utilization=0.5)["reserved_is_cheaper"] is False


def test_invalid_reserved_inputs_are_rejected_naming_the_input():
    with pytest.raises(ValueError, match=r"^on_demand_usd_per_hour must be > 0, got 0"):
        breakeven.reserved_breakeven_utilization(2.5, 0)


def test_the_whole_cost_of_owning_an_h100_with_the_stated_defaults():
    from models.breakeven import onprem, owning_defaults

    defaults = owning_defaults(30_000, 700)
    # host 25% of 30,000 = 7,500 USD and 575 W; 0.10 USD/kWh at PUE 1.56;
    # operations 10% of (30,000 + 7,500) = 3,750 USD a year
    assert defaults == {
        "power_kw": 0.7,
        "usd_per_kwh": 0.10,
        "pue": 1.56,
        "host_kw": 0.575,
        "host_capex_usd": 7_500.0,
        "ops_usd_per_year": 3_750.0,
    }
    r = onprem(30_000, 4.0, **defaults)
    # power (0.7 + 0.575) kW * 1.56 * 0.10 = 0.1989 USD/h; ops 3,750 / 8,760 = 0.4281 USD/h
    assert r["power_usd_per_hour"] == pytest.approx(0.1989)
    assert r["ops_usd_per_hour"] == pytest.approx(3_750 / 8_760)
    # 37,500 / (4 - 0.1989 - 0.4281) = 11,118 GPU-hours = 15.4 months at full use
    assert r["break_even_gpu_hours"] == pytest.approx(37_500 / (4 - 0.1989 - 3_750 / 8_760))
    assert r["break_even_months"] == pytest.approx(15.44, abs=0.01)


def test_operations_run_all_year_so_they_weigh_more_per_hour_at_low_use():
    from models.breakeven import onprem

    full = onprem(30_000, 4.0, ops_usd_per_year=3_650)
    half = onprem(30_000, 4.0, utilization=0.5, ops_usd_per_year=3_650)
    assert full["ops_usd_per_hour"] == pytest.approx(3_650 / 8_760)
    assert half["ops_usd_per_hour"] == pytest.approx(2 * 3_650 / 8_760)


def test_owning_never_breaks_even_when_running_it_costs_the_rent():
    from models.breakeven import onprem

    with pytest.raises(ValueError, match="owning never breaks even"):
        onprem(30_000, 0.5, power_kw=0.7, host_kw=0.575, pue=1.56, usd_per_kwh=0.1,
               ops_usd_per_year=3_000)
