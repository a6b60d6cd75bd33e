"""`gpu-pricing plan train|serve` on a warehouse refreshed from the demo snapshot, and the
Python API it is a layer over."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import polars as pl
import pytest
from typer.testing import CliRunner

import gpu_pricing
from gpu_pricing.cli import app

runner = CliRunner()
PLAN_KEYS = {
    "provider",
    "region",
    "instance_type",
    "gpu_name",
    "gpu_memory_gib",
    "gpus",
    "pricing_model",
    "rate_usd_per_gpu_hour",
    "mfu",
    "gpu_hours",
    "wall_clock_hours",
    "cost_usd",
}
H100_FLOPS = 6 * 70e9 * 2e12  # 8.4e23


def cli(warehouse, *args: str):
    return runner.invoke(app, [*args, "--warehouse", str(warehouse)], catch_exceptions=False)


def cli_json(warehouse, *args: str) -> dict:
    result = cli(warehouse, *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


TRAIN = ["plan", "train", "--params", "70B", "--tokens", "2T"]


@pytest.fixture(scope="module")
def unconstrained(demo_warehouse) -> dict:
    return cli_json(demo_warehouse, *TRAIN)


def test_plan_train_json_has_every_input_and_the_three_answers(unconstrained):
    doc = unconstrained
    assert {"inputs", "chosen", "fastest_within_budget", "frontier"} <= doc.keys()
    assert doc["inputs"]["params"] == 70e9 and doc["inputs"]["tokens"] == 2e12
    assert doc["inputs"]["flops"] == pytest.approx(H100_FLOPS)
    for key in (
        "deadline_hours",
        "budget_usd",
        "max_gpus",
        "checkpoint_overhead",
        "checkpoint_interval_hours",
        "reserved_billing",
        "efficiency_curve",
    ):
        assert key in doc["inputs"]
    for plan in [doc["chosen"], doc["fastest_within_budget"], *doc["frontier"]]:
        assert plan.keys() >= PLAN_KEYS
        if plan["pricing_model"] == "spot":
            assert plan["expected_overhead_hours"] > 0 and plan["time_multiplier"] > 1
        # GPU-hours = 8.4e23 / (mfu * peak * 1e12 * 3600) at the plan's own MFU and peak
        assert plan["gpu_hours"] == pytest.approx(
            H100_FLOPS / (plan["mfu"] * plan["peak_tflops"] * 1e12 * 3600)
        )
    assert doc["frontier"][0] == doc["chosen"]


def test_the_chosen_plan_is_the_cheapest_candidate_and_the_frontier_undominated(
    demo_warehouse, unconstrained
):
    result = gpu_pricing.plan_train(params=70e9, tokens=2e12, warehouse=demo_warehouse)
    cands = result.candidates
    assert unconstrained["chosen"]["cost_usd"] == pytest.approx(cands["cost_usd"].min())
    assert unconstrained["fastest_within_budget"]["wall_clock_hours"] == pytest.approx(
        cands["wall_clock_hours"].min()
    )
    for f in unconstrained["frontier"]:
        better = cands.filter(
            (pl.col("cost_usd") < f["cost_usd"])
            & (pl.col("wall_clock_hours") < f["wall_clock_hours"])
        )
        assert better.is_empty()
    costs = [f["cost_usd"] for f in unconstrained["frontier"]]
    times = [f["wall_clock_hours"] for f in unconstrained["frontier"]]
    assert costs == sorted(costs) and times == sorted(times, reverse=True)


def test_the_70b_frontier_spans_several_offers_each_within_its_instance_limit(unconstrained):
    frontier = unconstrained["frontier"]
    offers = {
        (p["provider"], p["region"], p["zone"], p["instance_type"], p["pricing_model"])
        for p in frontier
    }
    assert len(offers) >= 3
    for p in frontier:
        assert p["instances"] <= p["max_instances"]
        assert p["capacity_source"] in {"published", "assumed", "configured"}
        assert p["capacity_note"]
    # no plan rents more than a reservation can hold in one region (64 instances)
    assert max(p["instances"] for p in frontier) <= 64


def test_suffixes_and_scientific_notation_mean_the_same(demo_warehouse, unconstrained):
    doc = cli_json(demo_warehouse, "plan", "train", "--params", "70e9", "--tokens", "2e12")
    assert doc["chosen"] == unconstrained["chosen"]


def test_a_deadline_is_never_exceeded_and_costs_at_least_the_unconstrained_plan(
    demo_warehouse, unconstrained
):
    cheapest = unconstrained["chosen"]
    deadline = cheapest["wall_clock_hours"] / 10
    doc = cli_json(demo_warehouse, *TRAIN, "--deadline-hours", str(deadline))
    assert doc["chosen"]["wall_clock_hours"] <= deadline
    assert doc["chosen"]["cost_usd"] >= cheapest["cost_usd"]
    assert all(p["wall_clock_hours"] <= deadline for p in doc["frontier"])


def test_a_deadline_date_is_hours_from_now(demo_counted_warehouse):
    day = (datetime.now(UTC) + timedelta(days=60)).date()
    doc = cli_json(demo_counted_warehouse, *TRAIN, "--deadline", day.isoformat())
    assert 59 * 24 < doc["inputs"]["deadline_hours"] <= 60 * 24
    assert doc["chosen"]["wall_clock_hours"] <= doc["inputs"]["deadline_hours"]


def test_a_budget_below_the_cheapest_plan_is_exit_2_naming_its_cost(demo_warehouse, unconstrained):
    cheapest = unconstrained["chosen"]["cost_usd"]
    result = cli(demo_warehouse, *TRAIN, "--budget-usd", str(cheapest * 0.9), "--json")
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"cheapest plan costs {cheapest:,.0f} USD" in lines[0]
    assert "closest miss" in lines[0]


def test_a_budget_and_deadline_pick_the_cheapest_plan_meeting_both(demo_warehouse, unconstrained):
    deadline = unconstrained["chosen"]["wall_clock_hours"] / 5
    budget = unconstrained["chosen"]["cost_usd"] * 3
    doc = cli_json(
        demo_warehouse, *TRAIN, "--deadline-hours", str(deadline), "--budget-usd", str(budget)
    )
    every = gpu_pricing.plan_train(params=70e9, tokens=2e12, warehouse=demo_warehouse).candidates
    ok = every.filter((pl.col("wall_clock_hours") <= deadline) & (pl.col("cost_usd") <= budget))
    assert doc["chosen"]["cost_usd"] == pytest.approx(ok["cost_usd"].min())
    assert doc["fastest_within_budget"]["wall_clock_hours"] == pytest.approx(
        ok["wall_clock_hours"].min()
    )


def test_1024_gpus_at_mfu_035_vs_512_at_050_both_on_the_frontier(demo_warehouse, tmp_path):
    curve = tmp_path / "curve.csv"
    curve.write_text("gpus,mfu\n512,0.5\n1024,0.35\n")
    doc = cli_json(
        demo_warehouse,
        *TRAIN,
        "--efficiency-curve",
        str(curve),
        "--min-gpus",
        "512",
        "--max-gpus",
        "1024",
        "--providers",
        "aws",
        "--pricing",
        "on_demand",
        "--gpu",
        "H100",
        "--max-instances",
        "128",
    )
    by = {p["gpus"]: p for p in doc["frontier"]}
    assert {p["capacity_source"] for p in doc["frontier"]} == {"configured"}
    assert sorted(by) == [512, 1024]
    assert by[512]["rate_usd_per_gpu_hour"] == by[1024]["rate_usd_per_gpu_hour"]
    # same rate: cost ratio 0.5 / 0.35 = 1.43, time ratio (512 * 0.5) / (1024 * 0.35) = 0.714
    assert by[1024]["cost_usd"] / by[512]["cost_usd"] == pytest.approx(1.4286, rel=1e-4)
    assert by[1024]["wall_clock_hours"] / by[512]["wall_clock_hours"] == pytest.approx(
        0.7143, rel=1e-4
    )


def test_the_plan_switches_from_spot_to_on_demand_at_the_break_even_rate(demo_counted_warehouse):
    args = [
        "plan",
        "train",
        "--params",
        "7B",
        "--tokens",
        "100B",
        "--providers",
        "aws",
        "--regions",
        "us-east-1",
        "--gpu",
        "H100",
        "--min-gpus",
        "8",
        "--max-gpus",
        "8",
        "--pricing",
        "spot,on_demand",
        "--checkpoint-overhead",
        "0.05",
        "--checkpoint-interval-hours",
        "1",
    ]
    cands = gpu_pricing.plan_train(
        params=7e9,
        tokens=1e11,
        warehouse=demo_counted_warehouse,
        providers="aws",
        regions="us-east-1",
        gpu_names="H100",
        min_gpus=8,
        max_gpus=8,
        pricing="spot,on_demand",
    ).candidates
    spot = cands.filter(pl.col("pricing_model") == "spot")["rate_usd_per_gpu_hour"].min()
    on_demand = cands.filter(pl.col("pricing_model") == "on_demand")["rate_usd_per_gpu_hour"].min()
    # one 8-GPU instance: p* = (2 / 1) * (1 - spot * 1.05 / on_demand)
    p_star = 2 * (1 - spot * 1.05 / on_demand)
    assert 0 < p_star < 2
    below = cli_json(demo_counted_warehouse, *args, "--preemption-rate", str(p_star * 0.99))["chosen"]
    above = cli_json(demo_counted_warehouse, *args, "--preemption-rate", str(p_star * 1.01))["chosen"]
    assert below["pricing_model"] == "spot" and above["pricing_model"] == "on_demand"
    assert below["preemption_rate_source"] == "--preemption-rate"


def test_published_interruption_buckets_set_the_spot_preemption_rate(demo_counted_warehouse, con_counted):
    p5 = con_counted.execute(
        """select preemption_rate_per_hour from mart_spot_on_demand_pairs
           where provider = 'aws' and instance_type = 'p5.48xlarge' and region = 'us-east-1'
           limit 1"""
    ).fetchone()[0]
    assert p5 == pytest.approx(-__import__("math").log(0.8) / 720)  # '>20%' bucket
    doc = cli_json(
        demo_counted_warehouse,
        *TRAIN,
        "--providers",
        "aws",
        "--pricing",
        "spot",
        "--gpu",
        "H100",
        "--min-gpus",
        "32",
        "--max-gpus",
        "32",
    )
    chosen = doc["chosen"]
    # 32 GPUs = 4 instances (the hyperscaler's assumed limit), each reclaimed at p: 4p
    assert chosen["preemption_rate_per_hour"] == pytest.approx(4 * p5)
    assert chosen["preemption_rate_source"] == "published interruption bucket"


def test_a_one_year_reservation_bills_its_term(demo_counted_warehouse):
    doc = cli_json(
        demo_counted_warehouse,
        *TRAIN,
        "--pricing",
        "reserved_1y",
        "--min-gpus",
        "512",
        "--max-gpus",
        "512",
        "--gpu",
        "H100",
    )
    chosen = doc["chosen"]
    assert chosen["wall_clock_hours"] < 8760 and chosen["min_term_hours"] == 8760
    assert chosen["cost_usd"] == pytest.approx(512 * 8760 * chosen["rate_usd_per_gpu_hour"])
    used = cli_json(
        demo_counted_warehouse,
        *TRAIN,
        "--pricing",
        "reserved_1y",
        "--min-gpus",
        "512",
        "--max-gpus",
        "512",
        "--gpu",
        "H100",
        "--reserved-billing",
        "used",
    )
    assert used["chosen"]["cost_usd"] == pytest.approx(
        used["chosen"]["gpu_hours"] * used["chosen"]["rate_usd_per_gpu_hour"]
    )


def test_a_compute_budget_is_split_by_chinchilla(demo_counted_warehouse):
    doc = cli_json(demo_counted_warehouse, "plan", "train", "--compute-flops", "5.76e23")
    # C = 6ND, D = 20N: N = sqrt(5.76e23 / 120) = 6.928e10
    assert doc["inputs"]["params"] == pytest.approx(6.928e10, rel=1e-4)
    assert doc["inputs"]["allocation"] == "20-tokens-per-param"
    fit = cli_json(
        demo_counted_warehouse,
        "plan",
        "train",
        "--compute-flops",
        "5.76e23",
        "--allocation",
        "power-law-fit",
    )
    assert 6 * fit["inputs"]["params"] * fit["inputs"]["tokens"] / 5.76e23 == pytest.approx(
        2.6513, rel=1e-4
    )
    usd = cli_json(demo_counted_warehouse, "plan", "train", "--compute-usd", "1M")
    assert usd["chosen"]["cost_usd"] == pytest.approx(1e6)
    assert usd["inputs"]["budget_usd"] == 1e6


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--params", "70X", "--tokens", "2T"], "--params"),
        (["--params", "70B"], "--tokens"),
        (["--params", "70B", "--tokens", "2T", "--deadline", "March 1"], "--deadline"),
        (["--params", "70B", "--tokens", "2T", "--deadline", "2001-01-01"], "past"),
        (["--params", "70B", "--tokens", "2T", "--pricing", "cheap"], "pricing"),
        (["--params", "70B", "--tokens", "2T", "--allocation", "kaplan"], "--allocation"),
        (
            ["--params", "70B", "--tokens", "2T", "--efficiency-curve", "/nonexistent.csv"],
            "--efficiency-curve",
        ),
        (
            ["--params", "70B", "--tokens", "2T", "--checkpoint-overhead", "-1"],
            "--checkpoint-overhead",
        ),
        (["--params", "70B", "--tokens", "2T", "--preemption-rate", "-1"], "--preemption-rate"),
        (
            ["--params", "70B", "--tokens", "2T", "--min-gpus", "64", "--max-gpus", "8"],
            "--min-gpus",
        ),
        (["--params", "70B", "--tokens", "2T", "--compute-flops", "1e24"], "exactly one of"),
        (
            [
                "--params",
                "70B",
                "--tokens",
                "2T",
                "--deadline-hours",
                "1",
                "--deadline",
                "2030-01-01",
            ],
            "not both",
        ),
    ],
)
def test_bad_plan_input_is_one_line_and_exit_2(demo_warehouse, args, named):
    result = cli(demo_warehouse, "plan", "train", *args, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0]


def test_plan_without_a_warehouse_says_to_refresh(tmp_path):
    result = cli(tmp_path / "missing.duckdb", *TRAIN)
    assert result.exit_code == 2 and "gpu-pricing refresh" in result.stderr


def test_plan_train_text_output_names_the_plans(demo_warehouse, unconstrained):
    result = cli(demo_warehouse, *TRAIN)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Chosen (cheapest meeting the constraints)" in out and "Frontier" in out
    assert f"{unconstrained['chosen']['cost_usd']:,.0f} USD" in out


def test_plan_serve_picks_the_cheapest_mix_and_prices_1m_tokens(demo_counted_warehouse):
    doc = cli_json(
        demo_counted_warehouse,
        "plan",
        "serve",
        "--params",
        "70B",
        "--tokens-per-month",
        "10B",
        "--peak-to-average",
        "2",
    )
    chosen, plans = doc["chosen"], doc["plans"]
    assert chosen == plans[0]
    assert [p["monthly_cost_usd"] for p in plans] == sorted(p["monthly_cost_usd"] for p in plans)
    assert chosen["cost_per_1m_tokens_usd"] == pytest.approx(chosen["monthly_cost_usd"] / 1e4)
    # the fleet covers the peak: 10e9 / (720 * 3600) * 2 = 7,716 tokens/s
    assert chosen["peak_gpus"] * chosen["tokens_per_second_per_gpu"] >= 1e10 / (720 * 3600) * 2
    # on the roofline, at a batch that gives each user the default 20 tokens/s or more
    assert chosen["tokens_per_second_per_user"] >= 20
    assert chosen["bound"] in {"memory", "compute"}
    assert chosen["usd_per_1m_output_tokens"] > chosen["usd_per_1m_input_tokens"] > 0
    assert doc["inputs"]["bandwidth_share"] == 0.61 and "measured" in doc["inputs"]["shares_source"]
    same = cli_json(
        demo_counted_warehouse,
        "plan",
        "serve",
        "--params",
        "70B",
        "--requests-per-month",
        "7812500",  # x (1024 + 256) tokens = 10B
    )
    assert same["chosen"] == chosen
    strategies = {
        p["strategy"]
        for p in gpu_pricing.plan_serve(
            params=70e9, tokens_per_month=1e10, warehouse=demo_counted_warehouse
        ).plans.to_dicts()
    }
    assert {"on_demand", "reserved_1y", "reserved_1y + on_demand"} <= strategies
    assert not any("spot" in s for s in strategies)  # only with --allow-spot


def test_plan_serve_over_budget_is_exit_2(demo_warehouse):
    result = cli(
        demo_warehouse,
        "plan",
        "serve",
        "--params",
        "70B",
        "--tokens-per-month",
        "10B",
        "--budget-usd",
        "10",
    )
    assert result.exit_code == 2 and "cheapest plan costs" in result.stderr


def test_the_python_api_returns_frames_from_a_read_only_warehouse(demo_warehouse):
    rates = gpu_pricing.rates(gpu="h100", pricing="spot", limit=5, warehouse=demo_warehouse)
    assert isinstance(rates, pl.DataFrame) and 0 < rates.height <= 5
    assert rates["price_usd_per_gpu_hour"].is_sorted()
    assert set(rates["gpu_name"]) == {"H100"}
    cheapest = gpu_pricing.cheapest(warehouse=demo_warehouse)
    assert {"gpu_name", "pricing_model", "price_usd_per_gpu_hour"} <= set(cheapest.columns)
    history = gpu_pricing.history("A100", warehouse=demo_warehouse)
    assert history.height and {"valid_from", "valid_to"} <= set(history.columns)
    estimate = gpu_pricing.estimate_train(
        70e9, 2e12, "H100", mfu=0.45, gpus=1024, warehouse=demo_warehouse
    )
    assert estimate["cost_usd"].is_sorted()
    first = estimate.row(0, named=True)
    assert first["cost_usd"] == pytest.approx(
        H100_FLOPS / (0.45 * first["peak_tflops"] * 1e12 * 3600) * first["rate_usd_per_gpu_hour"]
    )
    with gpu_pricing.connect(demo_warehouse) as con, pytest.raises(Exception, match="read-only"):
        con.execute("create table t (x int)")
    with pytest.raises(ValueError, match="unknown pricing model"):
        gpu_pricing.rates(pricing="cheap", warehouse=demo_warehouse)


def test_api_estimates_with_a_rate_need_no_warehouse(tmp_path):
    missing = tmp_path / "none.duckdb"
    train = gpu_pricing.estimate_train(70e9, 2e12, "H100", rate=4.0, warehouse=missing)
    # 8.4e23 / (0.45 * 989e12 * 3600) = 524,286 GPU-hours * 4 USD = 2,097,143 USD
    assert train["cost_usd"].item() == pytest.approx(2_097_143, rel=1e-6)
    infer = gpu_pricing.estimate_infer(
        7e9, 1e6, "A100", memory=40, rate=1.0, prompt_tokens=0, output_tokens=1000,
        kv_bytes_per_token=0, warehouse=missing,
    )
    # memory-bound decode: 14e9 bytes / (0.61 x 1.555e12 B/s) = 14.759 ms per token of the
    # 1,000 per request: 1.4759e7 GPU-seconds for 1e6 requests
    assert infer["gpu_seconds"].item() == pytest.approx(1000 * 14e9 / (0.61 * 1.555e12) * 1e6)
    assert infer["cost_usd"].item() == pytest.approx(1000 * 14e9 / (0.61 * 1.555e12) * 1e6 / 3600)
    assert not missing.exists()
    with pytest.raises(gpu_pricing.WarehouseError, match="gpu-pricing refresh"):
        gpu_pricing.estimate_train(70e9, 2e12, "H100", warehouse=missing)


def test_a_deadline_nothing_can_meet_is_exit_2_naming_the_fastest_plan(demo_warehouse):
    every = gpu_pricing.plan_train(params=70e9, tokens=2e12, warehouse=demo_warehouse).candidates
    fastest = every["wall_clock_hours"].min()
    result = cli(demo_warehouse, *TRAIN, "--deadline-hours", str(fastest / 2))
    assert result.exit_code == 2 and result.stdout == ""
    assert f"fastest takes {fastest:,.1f} h" in result.stderr
    assert "no plan meets the deadline" in result.stderr


def test_filters_nothing_matches_name_what_the_offers_hold(demo_warehouse):
    result = cli(demo_warehouse, *TRAIN, "--providers", "nosuchcloud")
    assert result.exit_code == 2
    # an unknown name is one line naming the closest known ones, never an empty answer
    assert "--providers 'nosuchcloud': unknown provider (closest:" in result.stderr
    serve = cli(demo_warehouse, "plan", "serve", "--params", "7B", "--tokens-per-month", "1T",
                "--gpu", "H900")
    assert serve.exit_code == 2 and "--gpu 'H900': unknown GPU (closest: H200, H100" in serve.stderr
    # known names that no current offer has together: what the offers hold
    serve = cli(demo_warehouse, "plan", "serve", "--params", "7B", "--tokens-per-month", "1T",
                "--gpu", "K80", "--providers", "AWS")
    assert serve.exit_code == 2 and "gpu_names with offers: " in serve.stderr


def test_every_plan_option_has_help():
    import typer.main

    group = typer.main.get_command(app).commands["plan"]
    missing = [
        f"plan {name} {'/'.join(p.opts)}"
        for name, command in group.commands.items()
        for p in command.params
        if getattr(p, "param_type_name", "") == "option" and not getattr(p, "help", None)
    ]
    assert missing == []


def test_bad_plan_input_is_reported_before_the_warehouse_is_read(tmp_path):
    result = cli(tmp_path / "missing.duckdb", "plan", "train", "--params", "70B",
                 "--checkpoint-overhead", "-1")
    assert result.exit_code == 2 and "--tokens" in result.stderr
    result = cli(tmp_path / "missing.duckdb", *TRAIN, "--checkpoint-overhead", "-1")
    assert result.exit_code == 2 and "--checkpoint-overhead" in result.stderr
    result = cli(tmp_path / "missing.duckdb", "plan", "train", "--compute-flops", "1e24",
                 "--allocation", "kaplan")
    assert result.exit_code == 2 and "--allocation" in result.stderr
