"""The training planner (gpu_pricing.plan) on hand-built offer frames: the worked numbers,
with the arithmetic written out."""

from __future__ import annotations

import random
from datetime import datetime

import polars as pl
import pytest

from gpu_pricing import plan
from models import breakeven, scaling, training

SPECS = pl.DataFrame(
    {
        "gpu_name": ["H100", "B200", "A100"],
        "gpu_memory_gib": [80.0, 180.0, 80.0],
        "bf16_tflops": [989.0, 2250.0, 312.0],
        "memory_bandwidth_gbps": [3350.0, 8000.0, 2039.0],
        "interconnect_gbps": [900.0, 1800.0, 600.0],
    }
)
SEVENTY_B = {"params": 70e9, "tokens": 2e12}


def offers(*rows: dict) -> pl.DataFrame:
    base = {
        "provider": "aws",
        "region": "us-east-1",
        "zone": None,
        "instance_type": "p5.48xlarge",
        "gpu_name": "H100",
        "gpu_memory_gib": 80.0,
        "gpu_count": 8.0,
        "pricing_model": "on_demand",
        "pricing_detail": None,
        "price_usd_per_gpu_hour": 4.0,
        "preemption_rate_per_hour": None,
        # a published capacity large enough not to bind, except where a test sets it
        "capacity_instances": 4096.0,
        "fetched_at": datetime(2026, 11, 20, 2),
        "load_id": "load-1",
    }
    schema = {
        "provider": pl.String,
        "region": pl.String,
        "zone": pl.String,
        "instance_type": pl.String,
        "gpu_name": pl.String,
        "gpu_memory_gib": pl.Float64,
        "gpu_count": pl.Float64,
        "pricing_model": pl.String,
        "pricing_detail": pl.String,
        "price_usd_per_gpu_hour": pl.Float64,
        "preemption_rate_per_hour": pl.Float64,
        "capacity_instances": pl.Float64,
        "fetched_at": pl.Datetime,
        "load_id": pl.String,
    }
    return pl.DataFrame([{**base, **r} for r in rows], schema=schema)


def flat(mfu: float, upto: int = 16384) -> pl.DataFrame:
    return pl.DataFrame({"curve_key": ["*", "*"], "gpus": [1.0, float(upto)], "mfu": [mfu, mfu]})


def test_70b_on_2t_tokens_on_h100_at_mfu_045_is_524k_gpu_hours():
    cands = plan.train_candidates(offers({}), SPECS, **SEVENTY_B, curve=flat(0.45))
    # 6 * 70e9 * 2e12 = 8.4e23 FLOPs; / (0.45 * 989e12 * 3600) = 8.4e23 / 1.60218e18
    # = 524,286 GPU-hours at every GPU count, so the wall clock is 524,286 / gpus
    assert (cands["flops"] == 8.4e23).all()
    assert cands["gpu_hours"].to_list() == pytest.approx([524_286] * cands.height, rel=1e-5)
    assert (cands["wall_clock_hours"] * cands["gpus"] - cands["gpu_hours"]).abs().max() < 1e-6
    # 4 USD per GPU-hour: 2,097,143 USD whatever the count
    assert cands["cost_usd"].to_list() == pytest.approx([2_097_143] * cands.height, rel=1e-6)


def test_gpu_counts_are_whole_instances_powers_of_two_within_the_limits():
    cands = plan.train_candidates(
        offers({"gpu_count": 8.0}, {"instance_type": "x3", "gpu_count": 3.0}),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
        min_gpus=16,
        max_gpus=256,
    )
    eights = cands.filter(pl.col("instance_type") == "p5.48xlarge")["gpus"].sort().to_list()
    threes = cands.filter(pl.col("instance_type") == "x3")["gpus"].sort().to_list()
    assert eights == [16, 32, 64, 128, 256]
    # 3 * 2**k within 16..256 (70B needs 70e9 * 16 / 80 GiB = 13.04 GPUs of memory anyway)
    assert threes == [24, 48, 96, 192]


def test_the_model_states_must_fit_in_gpu_memory():
    cands = plan.train_candidates(
        offers({"gpu_count": 2.0}), SPECS, **SEVENTY_B, curve=flat(0.45), max_gpus=64
    )
    # 70e9 params * 16 bytes = 1.12e12 bytes; 80 GiB = 85.9e9 bytes: 13.04 GPUs -> 16 first
    assert cands["gpus"].min() == 16


def test_1024_gpus_at_mfu_035_cost_1_43x_and_take_0_71x_the_time_of_512_at_050():
    curve = pl.DataFrame({"curve_key": ["*"] * 2, "gpus": [512.0, 1024.0], "mfu": [0.5, 0.35]})
    cands = plan.train_candidates(
        offers({}), SPECS, **SEVENTY_B, curve=curve, min_gpus=512, max_gpus=1024
    )
    by = {int(r["gpus"]): r for r in cands.filter(pl.col("gpus").is_in([512.0, 1024.0])).to_dicts()}
    # same FLOPs, peak and rate: cost ~ 1/MFU, so 0.5 / 0.35 = 1.4286;
    # time ~ 1 / (gpus * MFU): (512 * 0.5) / (1024 * 0.35) = 256 / 358.4 = 0.714
    assert by[1024]["cost_usd"] / by[512]["cost_usd"] == pytest.approx(0.5 / 0.35)
    assert by[1024]["wall_clock_hours"] / by[512]["wall_clock_hours"] == pytest.approx(256 / 358.4)
    assert scaling.relative_cost(0.35, 0.5) == pytest.approx(1.4286, rel=1e-4)
    front = plan.frontier(cands)
    assert sorted(front["gpus"].to_list()) == [512, 1024]


def test_the_mfu_between_curve_points_agrees_with_models_scaling():
    points = [(8, 0.5), (512, 0.45), (4096, 0.38)]
    curve = pl.DataFrame(
        {
            "curve_key": ["*"] * 3,
            "gpus": [float(g) for g, _ in points],
            "mfu": [m for _, m in points],
        }
    )
    cands = plan.train_candidates(offers({}), SPECS, **SEVENTY_B, curve=curve, max_gpus=8192)
    assert sorted(cands["gpus"].unique().to_list()) == [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    for row in cands.to_dicts():  # never extrapolated: 8192 is past the curve
        assert row["mfu"] == pytest.approx(scaling.interpolate_mfu(points, row["gpus"]))


def test_default_curves_follow_the_gpu_family():
    cands = plan.train_candidates(
        offers({}, {"instance_type": "p4de", "gpu_name": "A100", "price_usd_per_gpu_hour": 3.0}),
        SPECS,
        **SEVENTY_B,
    )
    h100 = cands.filter(pl.col("gpu_name") == "H100")
    a100 = cands.filter(pl.col("gpu_name") == "A100")
    assert h100.filter(pl.col("gpus") == 1024)["mfu"].item() == 0.45
    assert h100.filter(pl.col("gpus") == 16384)["mfu"].item() == 0.41
    assert set(a100["mfu"].to_list()) == {0.39}
    assert a100["gpus"].max() == 2048  # the Megatron-LM curve ends at 3,072 GPUs


def test_a_deadline_512_gpus_cannot_meet_selects_more_or_faster_gpus():
    cands = plan.train_candidates(
        offers(
            {},
            {
                "instance_type": "b200x8",
                "gpu_name": "B200",
                "gpu_memory_gib": 180.0,
                "price_usd_per_gpu_hour": 9.5,
            },
        ),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
    )
    h512 = cands.filter((pl.col("gpu_name") == "H100") & (pl.col("gpus") == 512)).row(0, named=True)
    # 524,286 GPU-hours / 512 = 1,024 h on H100; ask for 700 h
    assert h512["wall_clock_hours"] == pytest.approx(1024.0, rel=1e-5)
    choice = plan.choose(cands, deadline_hours=700)
    assert choice.chosen["wall_clock_hours"] <= 700
    assert choice.chosen["gpus"] > 512 or choice.chosen["gpu_name"] == "B200"
    assert all(w <= 700 for w in choice.frontier["wall_clock_hours"])
    # the cheapest without a deadline is the H100 at 4 USD (2.10M) vs B200 at 9.5 USD:
    # 8.4e23 / (0.45 * 2250e12 * 3600) = 230,453 GPU-hours * 9.5 = 2.19M
    assert plan.choose(cands).chosen["gpu_name"] == "H100"


def test_a_budget_below_the_cheapest_plan_names_its_cost():
    cands = plan.train_candidates(offers({}), SPECS, **SEVENTY_B, curve=flat(0.45))
    with pytest.raises(plan.NoFeasiblePlan, match=r"cheapest plan costs 2,097,143 USD"):
        plan.choose(cands, budget_usd=1_500_000)


def test_spot_wins_below_1_21_preemptions_per_hour_and_loses_above():
    # spot 1.50 vs on-demand 4.00, 5% overhead, hourly checkpoints:
    # p* = (2 / 1) * (1 - 1.5 * 1.05 / 4) = 2 * 0.60625 = 1.2125 per hour
    p_star = breakeven.spot_breakeven_preemption_rate(1.5, 4.0, 0.05, 1.0)
    assert p_star == pytest.approx(1.2125)
    two = offers(
        {"gpu_count": 1.0, "instance_type": "one"},
        {
            "gpu_count": 1.0,
            "instance_type": "one",
            "pricing_model": "spot",
            "price_usd_per_gpu_hour": 1.5,
        },
    )
    small = {"params": 1e9, "tokens": 1e9}
    chosen = {}
    for p in (1.20, 1.23):
        spot = plan.SpotAssumptions(0.05, 1.0, preemption_rate_per_hour=p)
        cands = plan.train_candidates(
            two, SPECS, **small, curve=flat(0.45), spot=spot, min_gpus=1, max_gpus=1
        )
        chosen[p] = plan.choose(cands).chosen
    assert chosen[1.20]["pricing_model"] == "spot"
    assert chosen[1.23]["pricing_model"] == "on_demand"
    # the spot plan's expected overhead: T_eff / T = 1.05 / (1 - 1.2 / 2) = 2.625
    s = chosen[1.20]
    assert s["time_multiplier"] == pytest.approx(breakeven.spot_time_multiplier(0.05, 1.0, 1.2))
    assert s["time_multiplier"] == pytest.approx(2.625)
    base = training.gpu_hours_for_flops(6e18, 989, 0.45)
    assert s["expected_overhead_hours"] == pytest.approx(base * 1.625)
    assert s["cost_usd"] == pytest.approx(base * 2.625 * 1.5)


def test_a_job_on_k_spot_instances_is_preempted_k_times_as_often():
    spot = plan.SpotAssumptions(0.05, 1.0, default_preemption_rate_per_hour=0.001)
    cands = plan.train_candidates(
        offers({"pricing_model": "spot", "price_usd_per_gpu_hour": 1.5}),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
        spot=spot,
        min_gpus=64,
        max_gpus=64,
    )
    row = cands.row(0, named=True)
    # 64 GPUs / 8 per instance = 8 instances * 0.001 = 0.008 per hour for the job
    assert row["instances"] == 8 and row["preemption_rate_per_instance_hour"] == 0.001
    assert row["preemption_rate_per_hour"] == pytest.approx(0.008)
    assert row["preemption_rate_source"] == "assumed (no published rate)"
    assert row["time_multiplier"] == pytest.approx(1.05 / (1 - 0.008 / 2))


def test_a_1y_reservation_for_a_short_run_bills_the_whole_year_unless_told_otherwise():
    reserved = offers({"pricing_model": "reserved_1y", "price_usd_per_gpu_hour": 2.0})
    by_term = plan.train_candidates(
        reserved, SPECS, **SEVENTY_B, curve=flat(0.45), min_gpus=1024, max_gpus=1024
    ).row(0, named=True)
    # 524,286 GPU-hours / 1024 = 512 h of wall clock, but the commitment is 8,760 h per GPU:
    # 1024 * 8760 * 2 = 17,940,480 USD
    assert by_term["wall_clock_hours"] == pytest.approx(512.0, rel=1e-5)
    assert by_term["min_term_hours"] == 8760
    assert by_term["cost_usd"] == pytest.approx(1024 * 8760 * 2.0)
    by_use = plan.train_candidates(
        reserved,
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
        min_gpus=1024,
        max_gpus=1024,
        reserved_billing="used",
    )
    assert by_use["cost_usd"].item() == pytest.approx(524_286 * 2.0, rel=1e-5)


def test_a_marketplace_machine_is_rented_only_as_itself():
    cands = plan.train_candidates(
        offers(
            {
                "provider": "vastai",
                "instance_type": "offer-1",
                "gpu_count": 8.0,
                "capacity_instances": None,
            }
        ),
        SPECS,
        params=7e9,
        tokens=1e11,
        curve=flat(0.45),
    )
    assert cands["gpus"].to_list() == [8]
    # no count from the source: a marketplace listing is one machine, as Vast.ai documents
    # (seed_capacity_limits: published)
    assert cands.select("max_instances", "capacity_source").row(0) == (1.0, "published")


def test_compute_budget_in_flops_is_split_20_tokens_per_param():
    cands = plan.train_candidates(offers({}), SPECS, compute_flops=5.76e23, curve=flat(0.45))
    row = cands.row(0, named=True)
    # N = sqrt(5.76e23 / 120) = 6.928e10, D = 1.3856e12
    assert row["params"] == pytest.approx(6.928e10, rel=1e-4)
    assert row["tokens"] == pytest.approx(1.3856e12, rel=1e-4)
    fit = plan.train_candidates(
        offers({}), SPECS, compute_flops=5.76e23, curve=flat(0.45), allocation="power-law-fit"
    ).row(0, named=True)
    assert 6 * fit["params"] * fit["tokens"] / 5.76e23 == pytest.approx(2.6513, rel=1e-4)


def test_compute_budget_in_usd_buys_the_flops_of_the_cheapest_plan_per_flop():
    two = offers({}, {"instance_type": "cheap", "price_usd_per_gpu_hour": 2.0})
    cands = plan.train_candidates(two, SPECS, compute_usd=1e6, curve=flat(0.45))
    # 1e6 USD / 2 USD = 500,000 GPU-hours * 0.45 * 989e12 * 3600 = 8.0109e23 FLOPs
    assert cands["flops"][0] == pytest.approx(5e5 * 0.45 * 989e12 * 3600)
    choice = plan.choose(cands, budget_usd=1e6)
    assert choice.chosen["instance_type"] == "cheap"
    assert choice.chosen["cost_usd"] == pytest.approx(1e6)


@pytest.mark.parametrize("seed", range(5))
def test_no_plan_on_the_frontier_is_dominated_by_any_candidate(seed):
    rng = random.Random(seed)
    rows = [
        {
            "instance_type": f"i{i}",
            "gpu_name": rng.choice(["H100", "B200", "A100"]),
            "price_usd_per_gpu_hour": round(rng.uniform(1, 12), 2),
            "pricing_model": rng.choice(["on_demand", "spot", "reserved_1y"]),
            "preemption_rate_per_hour": rng.choice([None, 0.001, 0.3]),
            "gpu_count": rng.choice([1.0, 2.0, 4.0, 8.0]),
        }
        for i in range(40)
    ]
    frame = offers(*rows).with_columns(
        pl.when(pl.col("gpu_name") == "B200").then(180.0).otherwise(80.0).alias("gpu_memory_gib")
    )
    cands = plan.train_candidates(frame, SPECS, params=7e9, tokens=3e11, max_gpus=4096)
    front = plan.frontier(cands)
    assert front.height >= 2
    for f in front.to_dicts():
        dominated = cands.filter(
            (pl.col("cost_usd") <= f["cost_usd"])
            & (pl.col("wall_clock_hours") <= f["wall_clock_hours"])
            & (
                (pl.col("cost_usd") < f["cost_usd"])
                | (pl.col("wall_clock_hours") < f["wall_clock_hours"])
            )
        )
        assert dominated.is_empty(), (f, dominated.head(1).to_dicts())
    # and every candidate off the frontier is matched or beaten by a frontier plan
    for c in cands.sample(200, seed=1, with_replacement=True).to_dicts():
        assert front.filter(
            (pl.col("cost_usd") <= c["cost_usd"])
            & (pl.col("wall_clock_hours") <= c["wall_clock_hours"])
        ).height


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("gpus,mfu\n8,0.5\n16,1.5\n", r"mfu in \(0, 1\], got \{'gpus': '16', 'mfu': '1.5'\}"),
        ("gpus,mfu\n8,half\n", r"got \{'gpus': '8', 'mfu': 'half'\}"),
        ("gpus,mfu\n8.5,0.5\n", "whole numbers"),
        ("gpus,mfu\n8,0.5\n8,0.4\n", "gpus 8 appears twice"),
        ("count,mfu\n8,0.5\n", "expected CSV columns gpus,mfu"),
    ],
)
def test_a_bad_curve_file_is_one_error_naming_the_file_and_row(tmp_path, text, error):
    path = tmp_path / "curve.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=error):
        plan.read_curve(path)


def test_a_curve_file_per_gpu_name_plans_only_the_gpus_it_names(tmp_path):
    path = tmp_path / "curve.csv"
    path.write_text("gpu_name,gpus,mfu\nh100,16,0.5\nh100,64,0.4\n")
    curve = plan.read_curve(path)
    cands = plan.train_candidates(
        offers({}, {"instance_type": "b", "gpu_name": "B200", "gpu_memory_gib": 180.0}),
        SPECS,
        **SEVENTY_B,
        curve=curve,
    )
    assert set(cands["gpu_name"]) == {"H100"}
    # 32 GPUs: 0.5 + (32 - 16) / (64 - 16) * (0.4 - 0.5) = 0.4667
    assert cands.sort("gpus")["mfu"].to_list() == pytest.approx([0.5, 0.5 - 0.1 / 3, 0.4])


def test_even_a_tiny_run_on_a_reservation_pays_one_whole_term():
    reserved = offers({"pricing_model": "reserved_3y", "price_usd_per_gpu_hour": 2.0})
    row = plan.train_candidates(
        reserved, SPECS, params=1e6, tokens=1e6, curve=flat(0.45), min_gpus=8, max_gpus=8
    ).row(0, named=True)
    assert row["wall_clock_hours"] < 1e-6
    assert row["cost_usd"] == pytest.approx(8 * 26280 * 2.0)


# -- capacity: one offer in one region, within its instance limit ---------------------------


def test_a_plan_never_uses_more_instances_than_the_source_publishes():
    # Crusoe lists 4 instances of an 8-GPU type in a location: at most 32 GPUs there
    cands = plan.train_candidates(
        offers({"provider": "crusoe", "capacity_instances": 4.0}),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
    )
    assert cands["gpus"].max() == 32
    assert set(cands["capacity_source"]) == {"published"}
    assert (cands["instances"] <= cands["max_instances"]).all()


def test_a_limit_that_is_no_power_of_two_is_a_candidate_itself():
    # 3 instances of 8 GPUs: 16 (2 x 8) and the whole limit, 24
    cands = plan.train_candidates(
        offers({"provider": "crusoe", "capacity_instances": 3.0}),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
    )
    assert cands["gpus"].sort().to_list() == [16, 24]


def test_without_a_published_count_the_provider_class_assumption_applies():
    rows = offers(
        {"provider": "aws", "capacity_instances": None},
        {"provider": "aws", "pricing_model": "reserved_1y", "capacity_instances": None},
        {"provider": "nebius", "instance_type": "gpu-h100", "capacity_instances": None},
    )
    cands = plan.train_candidates(rows, SPECS, **SEVENTY_B, curve=flat(0.45))
    most = {
        (r["provider"], r["pricing_model"]): (r["gpus"], r["max_instances"], r["capacity_source"])
        for r in cands.group_by("provider", "pricing_model")
        .agg(pl.col("gpus").max(), pl.col("max_instances").first(), pl.col("capacity_source").first())
        .iter_rows(named=True)
    }
    # hyperscaler on demand 4 instances (32 GPUs), reserved 64 (512), specialty on demand 8 (64)
    assert most == {
        ("aws", "on_demand"): (32, 4, "assumed"),
        ("aws", "reserved_1y"): (512, 64, "assumed"),
        ("nebius", "on_demand"): (64, 8, "assumed"),
    }


def test_a_configured_limit_wins_over_published_and_assumed_ones():
    rows = offers(
        {"provider": "crusoe", "capacity_instances": 4.0},
        {"provider": "aws", "capacity_instances": None},
    )
    cands = plan.train_candidates(
        rows, SPECS, **SEVENTY_B, curve=flat(0.45), max_instances={"crusoe/p5.48xlarge": 16}
    )
    by = dict(
        cands.group_by("provider").agg(pl.col("gpus").max()).iter_rows()
    )
    assert by == {"crusoe": 128, "aws": 32}  # 16 x 8 configured; aws still assumed 4 x 8
    crusoe = cands.filter(pl.col("provider") == "crusoe").row(0, named=True)
    assert (crusoe["capacity_source"], crusoe["capacity_note"]) == (
        "configured",
        "configured: 16 instance(s)",
    )


def test_single_gpu_instances_are_not_combined_into_a_training_cluster():
    cands = plan.train_candidates(
        offers({"provider": "runpod", "gpu_count": 1.0, "capacity_instances": 100.0}),
        SPECS,
        params=1e9,
        tokens=2e10,
        curve=flat(0.45),
    )
    assert cands["gpus"].to_list() == [1]
    assert "single-GPU instance" in cands["capacity_note"][0]


def test_a_published_zero_leaves_the_offer_out():
    cands = plan.train_candidates(
        offers(
            {"provider": "lambdalabs", "region": "any", "capacity_instances": 0.0},
            {"provider": "lambdalabs", "region": "us-east-1", "capacity_instances": None},
        ),
        SPECS,
        **SEVENTY_B,
        curve=flat(0.45),
    )
    assert set(cands["region"]) == {"us-east-1"}


def test_a_bad_configured_limit_is_one_clear_error():
    with pytest.raises(ValueError, match="max instances for 'aws' must be a whole number >= 1, got 0"):
        plan.train_candidates(
            offers({}), SPECS, **SEVENTY_B, curve=flat(0.45), max_instances={"aws": 0}
        )
