import pytest

from models import conventions, costs


def test_short_form_is_gpus_times_rate_times_hours_plus_extras():
    # 8 GPUs * 4 USD * 100 h = 3200; + 50 network + 20 storage + 30 ops = 3300
    cost = costs.run_cost_usd(8, 4.0, 100, network_usd=50, storage_usd=20, ops_usd=30)
    assert cost == pytest.approx(3300)


def test_full_form_itemises_storage_transfer_and_failed_runs():
    result = costs.total_run_cost(
        gpu_hours=1000,
        rate_usd_per_gpu_hour=2.0,
        storage_gb=500,
        usd_per_gb_month=0.023,
        storage_months=3,
        transfer_gb=200,
        usd_per_gb=0.09,
        failed_runs=0.5,
    )
    # compute 1000 * 2 = 2000
    assert result["compute_usd"] == pytest.approx(2000)
    # storage 500 * 0.023 * 3 = 34.5
    assert result["storage_usd"] == pytest.approx(34.5)
    # transfer 200 * 0.09 = 18
    assert result["transfer_usd"] == pytest.approx(18)
    # failed 0.5 runs * 2000 = 1000
    assert result["failed_usd"] == pytest.approx(1000)
    # 2000 + 34.5 + 18 + 1000 = 3052.5
    assert result["total_usd"] == pytest.approx(3052.5)


def test_a_failed_run_can_cost_less_than_a_whole_run():
    result = costs.total_run_cost(1000, 2.0, failed_runs=2, failed_run_cost_usd=150)
    # 2000 + 2 * 150 = 2300
    assert result["total_usd"] == pytest.approx(2300)


def test_a_month_is_720_hours():
    assert conventions.HOURS_PER_MONTH == 720


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("gpu_hours", {"gpu_hours": -1}),
        ("storage_gb", {"storage_gb": -10}),
        ("failed_runs", {"failed_runs": -1}),
        ("usd_per_gb", {"usd_per_gb": float("nan")}),
    ],
)
def test_invalid_run_cost_inputs_are_rejected_naming_the_input(name, kwargs):
    args = {"gpu_hours": 1000, "rate_usd_per_gpu_hour": 2.0} | kwargs
    with pytest.raises(ValueError, match=rf"^{name} must"):
        costs.total_run_cost(**args)


def test_non_numeric_input_is_rejected_naming_the_input():
    with pytest.raises(ValueError, match=r"^hours must be a number, got '100'"):
        costs.run_cost_usd(8, 4.0, "100")
