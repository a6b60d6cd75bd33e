import pytest

from models import scaling

# 8.4e23 FLOPs on 989-TFLOPS GPUs at 4 USD/GPU-hour throughout.
# One GPU-hour at MFU 1 is 989e12 * 3600 = 3.5604e18 FLOPs, so
# gpu_hours = 8.4e23 / 3.5604e18 / mfu = 235,928.55 / mfu.
FLOPS = 8.4e23
PEAK_TFLOPS = 989
RATE = 4.0
# MFU falls with cluster size; the cliff is between 1024 and 2048 GPUs.
CURVE = [(256, 0.50), (512, 0.48), (1024, 0.45), (2048, 0.30)]


def test_cost_is_inversely_proportional_to_mfu():
    # 0.50 / 0.40 = 1.25
    assert scaling.relative_cost(0.40, baseline_mfu=0.50) == pytest.approx(1.25)


def test_compare_configurations_gives_cost_and_time_ratios():
    base, big = scaling.compare_configurations(
        FLOPS, PEAK_TFLOPS, RATE, [(256, 0.50), (1024, 0.40)]
    )
    # 235,928.55 / 0.5 = 471,857.1 GPU-hours; * 4 = 1,887,428 USD; / 256 = 1843.2 h
    assert base["cost_usd"] == pytest.approx(1_887_428.4, rel=1e-6)
    assert base["wall_clock_hours"] == pytest.approx(1843.19, rel=1e-5)
    # cost ratio 0.50 / 0.40 = 1.25; time ratio (256 * 0.50) / (1024 * 0.40) = 0.3125
    assert big["cost_ratio"] == pytest.approx(1.25)
    assert big["time_ratio"] == pytest.approx(0.3125)
    assert base["cost_ratio"] == 1.0


def test_mfu_is_interpolated_linearly_between_curve_points():
    # halfway between 512 (0.48) and 1024 (0.45): 0.48 + 0.5 * (0.45 - 0.48) = 0.465
    assert scaling.interpolate_mfu(CURVE, 768) == pytest.approx(0.465)
    # halfway down the cliff: 0.45 + 0.5 * (0.30 - 0.45) = 0.375
    assert scaling.interpolate_mfu(CURVE, 1536) == pytest.approx(0.375)
    assert scaling.interpolate_mfu(CURVE, 1024) == 0.45


def test_the_curve_is_never_extrapolated():
    with pytest.raises(
        ValueError, match=r"^gpus must be within the curve's range 256\.\.2048, got 4096"
    ):
        scaling.interpolate_mfu(CURVE, 4096)


def test_curve_points_must_increase():
    with pytest.raises(
        ValueError, match=r"^curve gpus must be strictly increasing, got 256 after 512"
    ):
        scaling.interpolate_mfu([(512, 0.5), (256, 0.6)], 300)


def test_curve_mfu_outside_zero_one_is_rejected():
    with pytest.raises(ValueError, match=r"^curve mfu must be in \(0, 1\], got 1\.2"):
        scaling.plan(FLOPS, PEAK_TFLOPS, RATE, [(8, 1.2)])


def test_fixed_budget_buys_the_fastest_affordable_cluster():
    # costs: 256 -> 1.887M, 512 -> 1.966M, 1024 -> 2.097M, 2048 -> 235,928.55 / 0.3 * 4 = 3.146M
    # within 2.5M the fastest is 1024 GPUs: 524,285.7 / 1024 = 512 h
    best = scaling.fewest_hours_within_budget(FLOPS, PEAK_TFLOPS, RATE, CURVE, budget_usd=2_500_000)
    assert best["gpus"] == 1024
    assert best["wall_clock_hours"] == pytest.approx(512.0, rel=1e-4)
    # within 1.9M only 256 GPUs fit
    assert (
        scaling.fewest_hours_within_budget(FLOPS, PEAK_TFLOPS, RATE, CURVE, 1_900_000)["gpus"]
        == 256
    )


def test_budget_too_small_for_any_cluster_gives_none():
    assert scaling.fewest_hours_within_budget(FLOPS, PEAK_TFLOPS, RATE, CURVE, 1_000_000) is None


def test_fixed_deadline_buys_the_cheapest_fast_enough_cluster():
    # wall clock: 256 -> 1843 h, 512 -> 491,517.8 / 512 = 960 h, 1024 -> 512 h,
    # 2048 -> 786,428.5 / 2048 = 384 h
    best = scaling.cheapest_within_deadline(FLOPS, PEAK_TFLOPS, RATE, CURVE, deadline_hours=1000)
    assert best["gpus"] == 512
    assert best["cost_usd"] == pytest.approx(1_966_071.3, rel=1e-6)
    # only the cliff side of the curve meets 400 h, at 1.5x the cost of 1024 GPUs
    assert scaling.cheapest_within_deadline(FLOPS, PEAK_TFLOPS, RATE, CURVE, 400)["gpus"] == 2048
    assert scaling.cheapest_within_deadline(FLOPS, PEAK_TFLOPS, RATE, CURVE, 300) is None


def test_candidates_between_curve_points_use_the_interpolated_mfu():
    (row,) = scaling.plan(FLOPS, PEAK_TFLOPS, RATE, CURVE, candidates=[768])
    # 235,928.55 / 0.465 = 507,373.2 GPU-hours
    assert row["gpu_hours"] == pytest.approx(507_373.2, rel=1e-6)


def test_chinchilla_allocation_uses_the_issue_coefficients():
    result = scaling.chinchilla_allocation(1e24)
    assert result["params"] == pytest.approx(0.2536 * 1e24**0.4995)
    assert result["tokens"] == pytest.approx(1.7424 * 1e24**0.5005)


def test_issue_chinchilla_coefficients_imply_more_flops_than_the_budget():
    # the exponents sum to 1, so 6 * N * D / C = 6 * 0.2536 * 1.7424 = 2.6513 for any C
    result = scaling.chinchilla_allocation(5.76e23)
    assert result["implied_flops_ratio"] == pytest.approx(2.6513, rel=1e-4)


def test_twenty_tokens_per_param_reproduces_chinchilla_70b_on_1_4t():
    result = scaling.allocation_for_tokens_per_param(5.76e23, tokens_per_param=20)
    # N = sqrt(5.76e23 / 120) = sqrt(4.8e21) = 6.928e10; D = 20 N = 1.3856e12
    assert result["params"] == pytest.approx(6.928e10, rel=1e-4)
    assert result["tokens"] == pytest.approx(1.3856e12, rel=1e-4)
    assert 6 * result["params"] * result["tokens"] == pytest.approx(5.76e23)


def test_default_allocation_is_20_tokens_per_param_and_spends_exactly_c():
    result = scaling.allocate(5.76e23)
    # C = 6 N D with D = 20 N: N = sqrt(5.76e23 / 120) = 6.928e10, D = 1.3856e12
    assert result["params"] == pytest.approx(6.928e10, rel=1e-4)
    assert result["tokens"] == pytest.approx(20 * result["params"])
    assert 6 * result["params"] * result["tokens"] == pytest.approx(5.76e23)
    assert result["implied_flops_ratio"] == 1.0


def test_power_law_fit_stays_available_by_name_and_overspends_2_65x():
    result = scaling.allocate(1e24, "power-law-fit")
    assert result["params"] == pytest.approx(0.2536 * 1e24**0.4995)
    assert result["tokens"] == pytest.approx(1.7424 * 1e24**0.5005)
    # 6 * 0.2536 * 1.7424 = 2.6513: the fit's N and D need 2.65x the FLOPs they were given
    assert 6 * result["params"] * result["tokens"] / 1e24 == pytest.approx(2.6513, rel=1e-4)


def test_an_unknown_allocation_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match=r"^method must be one of .*got 'kaplan'"):
        scaling.allocate(1e24, "kaplan")


def test_chinchilla_cost_uses_the_default_allocation():
    result = scaling.chinchilla_cost(5.76e23, peak_tflops=989, mfu=0.45, rate_usd_per_gpu_hour=4.0)
    assert 6 * result["params"] * result["tokens"] == pytest.approx(5.76e23)


def test_chinchilla_cost_prices_the_compute():
    result = scaling.chinchilla_cost(1e24, peak_tflops=989, mfu=0.45, rate_usd_per_gpu_hour=4.0)
    # 1e24 / (0.45 * 989e12 * 3600) = 1e24 / 1.60218e18 = 624,149.3 GPU-hours; * 4 = 2,496,597
    assert result["gpu_hours"] == pytest.approx(624_149.3, rel=1e-6)
    assert result["cost_usd"] == pytest.approx(2_496_597, rel=1e-6)


def test_ring_allreduce_of_70b_bf16_gradients_over_8_gpus():
    # 70e9 params * 2 bytes = 1.4e11 bytes; 2 * 7/8 * 1.4e11 / 50e9 B/s = 1.75 * 2.8 = 4.9 s
    size = scaling.gradient_bytes(70e9, bytes_per_gradient=2)
    assert scaling.ring_allreduce_seconds(size, 50e9, 8) == pytest.approx(4.9)


def test_a_single_gpu_needs_no_allreduce():
    assert scaling.ring_allreduce_seconds(1.4e11, 50e9, 1) == 0.0


def test_data_parallel_efficiency_and_waiting_cost():
    result = scaling.data_parallel(
        params=70e9,
        gpus=8,
        compute_seconds_per_step=10.0,
        bandwidth_bytes_per_s=50e9,
        steps=1000,
        rate_usd_per_gpu_hour=4.0,
        overlap_fraction=0.5,
    )
    # exposed communication 4.9 * (1 - 0.5) = 2.45 s; efficiency 10 / 12.45 = 0.80321
    assert result["exposed_comm_seconds_per_step"] == pytest.approx(2.45)
    assert result["scaling_efficiency"] == pytest.approx(0.803213, rel=1e-6)
    # 8 GPUs * 4 USD/h * 2.45 s * 1000 steps / 3600 = 21.778 USD
    assert result["waiting_cost_usd"] == pytest.approx(21.7778, rel=1e-5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: scaling.scaling_efficiency(10, 4.9, overlap_fraction=1.5),
            r"^overlap_fraction must be in \[0, 1\], got 1\.5",
        ),
        (
            lambda: scaling.ring_allreduce_seconds(-1, 50e9, 8),
            r"^gradient_bytes must be >= 0, got -1",
        ),
        (
            lambda: scaling.ring_allreduce_seconds(1e9, 0, 8),
            r"^bandwidth_bytes_per_s must be > 0, got 0",
        ),
        (lambda: scaling.chinchilla_allocation(-1e24), r"^compute_flops must be > 0, got -1e\+24"),
        (lambda: scaling.relative_cost(0, 0.5), r"^mfu must be in \(0, 1\], got 0"),
        (
            lambda: scaling.fewest_hours_within_budget(FLOPS, PEAK_TFLOPS, RATE, CURVE, -5),
            r"^budget_usd must be > 0, got -5",
        ),
    ],
)
def test_invalid_scaling_inputs_are_rejected_naming_the_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
