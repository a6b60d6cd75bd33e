import math

import pytest

from models import training


def test_70b_on_2t_tokens_is_8_4e23_flops():
    # 6 * 70e9 * 2e12 = 840e21 = 8.4e23
    assert training.training_flops(70e9, 2e12) == pytest.approx(8.4e23)


def test_70b_on_h100_at_mfu_045_takes_about_524k_gpu_hours_and_2_1m_usd():
    result = training.estimate_training(
        params=70e9, tokens=2e12, peak_tflops=989, mfu=0.45, gpus=1024, rate_usd_per_gpu_hour=4.0
    )
    # 0.45 * 989e12 = 4.4505e14 FLOP/s per GPU; * 3600 = 1.60218e18 FLOPs per GPU-hour
    # 8.4e23 / 1.60218e18 = 524,285.6 GPU-hours
    assert result["flops"] == pytest.approx(8.4e23)
    assert result["gpu_hours"] == pytest.approx(524_285.6, rel=1e-6)
    # 524,285.6 * 4 = 2,097,142 USD
    assert result["cost_usd"] == pytest.approx(2_097_142, rel=1e-6)
    # 524,285.6 / 1024 = 512.0 hours
    assert result["wall_clock_hours"] == pytest.approx(512.0, rel=1e-4)
    # 2,097,142 / 2e12 * 1e6 = 1.0486 USD per 1M tokens
    assert result["cost_per_1m_tokens_usd"] == pytest.approx(1.048571, rel=1e-5)


def test_estimate_training_echoes_every_input():
    result = training.estimate_training(70e9, 2e12, 989, 0.45, 1024, 4.0)
    assert {
        "params": 70e9,
        "tokens": 2e12,
        "peak_tflops": 989,
        "mfu": 0.45,
        "gpus": 1024,
        "rate_usd_per_gpu_hour": 4.0,
    }.items() <= result.items()


def test_full_recompute_hfu_is_mfu_times_8_over_6():
    # 0.45 * 8 / 6 = 0.60
    assert training.hfu_from_mfu(0.45, full_recompute=True) == pytest.approx(0.60)
    assert training.mfu_from_hfu(0.60, full_recompute=True) == pytest.approx(0.45)
    assert training.hfu_from_mfu(0.45, full_recompute=False) == 0.45


def test_full_recompute_hardware_flops_are_8nd():
    # 8 * 70e9 * 2e12 = 1.12e24
    assert training.hardware_flops(70e9, 2e12, full_recompute=True) == pytest.approx(1.12e24)


def test_full_recompute_does_not_change_the_cost():
    plain = training.estimate_training(70e9, 2e12, 989, 0.45, 1024, 4.0)
    recompute = training.estimate_training(70e9, 2e12, 989, 0.45, 1024, 4.0, full_recompute=True)
    assert recompute["cost_usd"] == plain["cost_usd"]
    assert recompute["hfu"] == pytest.approx(0.60)


def test_mfu_above_075_is_impossible_with_full_recompute():
    with pytest.raises(ValueError, match=r"mfu .*0\.8"):
        training.hfu_from_mfu(0.8, full_recompute=True)


@pytest.mark.parametrize("mfu", [0, -0.1, 1.01, math.nan])
def test_mfu_outside_zero_one_is_rejected_naming_mfu(mfu):
    with pytest.raises(ValueError, match=r"^mfu must"):
        training.estimate_training(70e9, 2e12, 989, mfu, 1024, 4.0)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("params", -70e9),
        ("tokens", -1),
        ("peak_tflops", 0),
        ("gpus", 0),
        ("gpus", 8.5),
        ("rate_usd_per_gpu_hour", -4.0),
    ],
)
def test_invalid_training_inputs_are_rejected_naming_the_input(name, value):
    args = {
        "params": 70e9,
        "tokens": 2e12,
        "peak_tflops": 989,
        "mfu": 0.45,
        "gpus": 1024,
        "rate_usd_per_gpu_hour": 4.0,
    } | {name: value}
    with pytest.raises(ValueError, match=rf"^{name} must .*got {value!r}"):
        training.estimate_training(**args)


def test_mfu_of_one_is_allowed():
    # 6 * 1e9 * 1e9 = 6e18 FLOPs; / (1 * 1e12 * 3600) = 1666.67 GPU-hours
    assert training.gpu_hours_for_flops(6e18, 1, 1.0) == pytest.approx(1666.6667)
