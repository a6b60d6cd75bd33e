"""`gpu-pricing estimate` and `gpu-pricing breakeven`: contract flags, --json documents,
rates from the warehouse (never made up) and exit 2 on bad input."""

from __future__ import annotations

import json

import duckdb
import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app
from models import breakeven, serving, training
from warehouse import db

runner = CliRunner()
TRAIN = ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"]


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def cli_json(warehouse, *args: str) -> dict:
    result = cli(*args, "--warehouse", str(warehouse), "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def cheapest_offers(con, gpu: str, pricing: str, precision: str = "bf16_tflops") -> list[dict]:
    """The usable offers of a GPU, cheapest cost of a fixed amount of work first: the rate
    over the peak of the offer's own form factor (an H100 PCIe at 756 TFLOPS, SXM 989)."""
    return db.query(
        con,
        f"""select o.*, g.{precision} as peak from mart_gpu_offers_current o
            join dim_gpu_variants g using (gpu_name, gpu_memory_gib, gpu_variant)
            where o.gpu_name = $gpu and o.pricing_model = $pricing and g.{precision} is not null
              and o.is_verified and o.is_comparable
            order by o.price_usd_per_gpu_hour / g.{precision}, o.cheapest_order""",
        {"gpu": gpu, "pricing": pricing},
    ).to_dicts()


def test_training_70b_on_2t_tokens_at_4_usd_costs_about_2_1m(demo_warehouse):
    doc = cli_json(demo_warehouse, *TRAIN, "--mfu", "0.45", "--rate", "4")
    # 6 * 70e9 * 2e12 = 8.4e23 FLOPs; / (0.45 * 989e12 * 3600) = 524,286 GPU-hours;
    # * 4 USD = 2,097,143 USD
    assert doc["flops"] == pytest.approx(8.4e23)
    assert doc["gpu_hours"] == pytest.approx(524_286, rel=1e-5)
    assert doc["cost_usd"] == pytest.approx(2.1e6, rel=0.01)
    assert doc["cost_per_1m_tokens_usd"] == pytest.approx(2_097_143 / 2e6, rel=1e-5)
    assert (doc["rate_source"], doc["offer"], doc["alternatives"]) == ("--rate", None, [])
    for key in (
        "params",
        "tokens",
        "mfu",
        "gpus",
        "peak_tflops",
        "rate_usd_per_gpu_hour",
        "wall_clock_hours",
        "precision",
        "pricing_model",
        "gpu",
    ):
        assert key in doc


def test_training_without_a_rate_is_priced_at_the_cheapest_current_offer(demo_warehouse, con):
    doc = cli_json(demo_warehouse, *TRAIN, "--mfu", "0.45", "--gpus", "1024")
    offers = cheapest_offers(con, "H100", "on_demand")
    min_price = offers[0]["price_usd_per_gpu_hour"]
    assert doc["rate_source"] == "warehouse"
    assert doc["rate_usd_per_gpu_hour"] == min_price
    assert doc["cost_usd"] == pytest.approx(min_price * doc["gpu_hours"], rel=1e-12)
    assert doc["wall_clock_hours"] == pytest.approx(doc["gpu_hours"] / 1024)
    offer = doc["offer"]
    assert offer["price_usd_per_gpu_hour"] == min_price
    assert offer["pricing_model"] == "on_demand" and offer["gpu_name"] == "H100"
    assert offer["provider"] and offer["region"] and offer["instance_type"]
    assert offer["fetched_at"] and offer["load_id"]
    alternatives = doc["alternatives"]
    assert len(alternatives) == min(5, len(offers) - 1) > 0
    # the answer is the cheapest total cost, not the lowest rate
    costs = [a["cost_usd"] for a in alternatives]
    assert costs == sorted(costs) and costs[0] >= doc["cost_usd"]
    for a in alternatives:
        assert a["cost_usd"] == pytest.approx(
            a["price_usd_per_gpu_hour"] * a["gpu_hours"], rel=1e-12
        )


def test_training_pricing_and_memory_select_the_offer(demo_warehouse, con):
    doc = cli_json(demo_warehouse, *TRAIN, "--memory", "80", "--pricing", "spot")
    assert doc["offer"]["pricing_model"] == "spot"
    assert doc["offer"]["gpu_memory_gib"] == 80
    assert (
        doc["rate_usd_per_gpu_hour"]
        == cheapest_offers(con, "H100", "spot")[0]["price_usd_per_gpu_hour"]
    )


def test_training_text_output_names_the_offer_and_its_alternatives(demo_warehouse, con):
    result = cli(*TRAIN, "--warehouse", str(demo_warehouse))
    assert result.exit_code == 0, result.stderr
    offer = cheapest_offers(con, "H100", "on_demand")[0]
    assert offer["instance_type"] in result.stdout
    assert "as of" in result.stdout and "alternatives" in result.stdout


def test_inference_is_costed_on_the_roofline_worked_70b_on_h100_sxm(demo_warehouse):
    # 70B BF16 with Llama 3 70B's KV cache (327,680 bytes per token) on H100 SXM (3.35 TB/s,
    # 989 TFLOPS, NVLink) at 2 USD/GPU-hour, batch 1, 1024 prompt + 256 output tokens:
    # - replica: 140e9 + 1 x 1,280 x 327,680 = 140.42 GB > 0.9 x 80 GiB = 77.3 GB: 2 GPUs
    # - decode: (140e9 + 1,152 x 327,680) B / (2 x 3.35e12 x 0.61) = 34.348 ms (memory)
    #   vs 2 x 70e9 / (2 x 989e12 x 0.6) = 0.118 ms (compute); / 0.9 (2-way TP) = 38.164 ms
    # - 1 / 38.164 ms / 2 GPUs = 13.10 tokens/s per GPU (at the full bandwidth, no KV cache
    #   and no TP loss: 3.35e12 / 1.4e11 = 23.9 per GPU-equivalent, in
    #   tests/models/test_serving_roofline.py)
    doc = cli_json(
        demo_warehouse, "estimate", "infer", "--params", "70B", "--requests", "1M", "--gpu",
        "H100", "--rate", "2", "--kv-bytes-per-token", "327680",
    )
    memory = (140e9 + 1152 * 327_680) / (2 * 3.35e12 * 0.61)
    step = memory / 0.9
    assert (doc["bound"], doc["gpus_per_replica"], doc["batch"]) == ("memory", 2.0, 1.0)
    assert doc["decode_memory_seconds"] == pytest.approx(memory, rel=1e-9)
    assert doc["step_seconds"] == pytest.approx(step, rel=1e-9)
    assert doc["output_tokens_per_second_per_gpu"] == pytest.approx(1 / step / 2, rel=1e-9)
    assert doc["output_tokens_per_second_per_gpu"] == pytest.approx(13.10, abs=0.01)
    # cost: 2 GPUs x 2 USD/h for each request's prefill and its 256 decode steps
    prefill = 2 * 70e9 / (2 * 989e12 * 0.6) / 0.9
    per_request = 2 * (1024 * prefill + 256 * step)
    assert doc["gpu_seconds"] == pytest.approx(per_request * 1e6, rel=1e-9)
    assert doc["cost_usd"] == pytest.approx(per_request * 1e6 * 2 / 3600, rel=1e-9)
    assert doc["usd_per_1m_output_tokens"] == pytest.approx(2 * 2 * step / 3600 * 1e6, rel=1e-9)
    assert doc["memory_fit"]["fits"] is True


def test_inference_without_a_rate_is_the_cheapest_instance_that_holds_a_replica(
    demo_warehouse,
):
    doc = cli_json(
        demo_warehouse, "estimate", "infer", "--params", "70B", "--requests", "1M", "--gpu",
        "H100", "--batch", "32",
    )
    assert doc["offer"] is not None and doc["memory_fit"]["fits"] is True
    assert doc["gpus_per_replica"] <= doc["offer"]["gpu_count"]
    step = serving.decode(
        70e9, peak_tflops=doc["peak_tflops"], memory_bandwidth_gbps=doc["memory_bandwidth_gbps"],
        batch=32, context_tokens=1152, longest_tokens=1280, tp=int(doc["gpus_per_replica"]),
        has_link=doc["has_link"], rate_usd_per_gpu_hour=doc["rate_usd_per_gpu_hour"],
        prompt_tokens=1024, output_tokens=256,
    )
    assert doc["cost_usd"] == pytest.approx(step["usd_per_request"] * 1e6, rel=1e-9)
    fitting = [a for a in doc["alternatives"] if a["fits_memory"]]
    assert all(doc["cost_usd"] <= a["cost_usd"] for a in fitting)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ([*TRAIN, "--mfu", "1.5"], "--mfu"),
        ([*TRAIN, "--mfu", "0"], "--mfu"),
        (
            ["estimate", "train", "--params", "70e9", "--tokens", "-2e12", "--gpu", "H100"],
            "--tokens",
        ),
        (["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H900"], "H900"),
        ([*TRAIN, "--gpus", "0"], "--gpus"),
        ([*TRAIN, "--pricing", "hourly"], "--pricing"),
        ([*TRAIN, "--precision", "int4"], "--precision"),
        ([*TRAIN, "--memory", "50"], "--memory"),
        ([*TRAIN, "--rate", "-1"], "--rate"),
        (
            [
                "estimate", "infer", "--params", "70e9", "--requests", "1e6", "--gpu", "A100",
                "--bandwidth-share", "1.2",
            ],
            "--bandwidth-share",
        ),
        (
            [
                "breakeven",
                "spot",
                "--spot-rate",
                "1.5",
                "--on-demand-rate",
                "4",
                "--checkpoint-interval-hours",
                "1",
                "--preemption-rate",
                "2",
            ],
            "--preemption-rate",
        ),
        (["breakeven", "onprem", "--gpu", "H100", "--utilization", "0"], "--utilization"),
        (["breakeven", "onprem", "--gpu", "T4"], "--capex"),
    ],
)
def test_invalid_input_is_one_line_naming_it_and_exit_2(demo_warehouse, args, named):
    result = cli(*args, "--warehouse", str(demo_warehouse), "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0]


def test_a_gpu_without_the_precisions_peak_is_exit_2(demo_warehouse):
    result = cli(
        "estimate",
        "train",
        "--params",
        "7e9",
        "--tokens",
        "1e9",
        "--gpu",
        "T4",
        "--warehouse",
        str(demo_warehouse),
    )
    assert result.exit_code == 2
    assert "bf16" in result.stderr and "T4" in result.stderr


def test_a_gpu_with_no_current_offer_is_exit_2_never_a_made_up_rate(demo_warehouse, con):
    unoffered = db.query(
        con,
        """select gpu_name from dim_gpus where fp32_tflops is not null and gpu_name not in
           (select gpu_name from mart_gpu_offers_current where gpu_name is not null)
           order by gpu_name limit 1""",
    )["gpu_name"].to_list()
    assert unoffered, "the demo leaves some dim_gpus rows without an offer (e.g. K80)"
    result = cli(
        "estimate",
        "train",
        "--params",
        "7e9",
        "--tokens",
        "1e9",
        "--gpu",
        unoffered[0],
        "--precision",
        "fp32",
        "--warehouse",
        str(demo_warehouse),
        "--json",
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert f"no current on_demand offer for {unoffered[0]}" in result.stderr


def test_an_empty_warehouse_is_exit_2_with_a_hint(tmp_path):
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    for path in (empty, tmp_path / "missing.duckdb"):
        result = cli(*TRAIN, "--warehouse", str(path), "--json")
        assert result.exit_code == 2 and result.stdout == ""
        assert "refresh" in result.stderr and len(result.stderr.strip().splitlines()) == 1


# the GPU alone: no host share, host power or operations (the owning-cost extras at 0)
GPU_ONLY = ("--host-kw", "0", "--host-usd", "0", "--ops-usd-per-year", "0")


def test_buying_an_h100_at_30000_vs_4_usd_breaks_even_after_7500_hours(tmp_path):
    # 30,000 / 4 = 7,500 GPU-hours = 10.4 months of 720 h; no lookup, so no warehouse needed
    doc = cli_json(
        tmp_path / "none.duckdb",
        "breakeven",
        "onprem",
        "--gpu",
        "H100",
        "--capex",
        "30000",
        "--rate",
        "4",
        "--usd-per-kwh",
        "0",
        *GPU_ONLY,
    )
    assert doc["break_even_gpu_hours"] == 7500
    assert doc["break_even_months"] == pytest.approx(10.4167, abs=1e-4)


def test_onprem_defaults_to_reference_capex_and_agrees_with_the_mart(demo_warehouse, con):
    doc = cli_json(demo_warehouse, "breakeven", "onprem", "--gpu", "H100")
    mart = db.query(
        con, "select * from mart_breakeven_onprem where gpu_name = 'H100' and gpu_memory_gib = 80"
    ).to_dicts()[0]
    assert doc["capex_usd"] == mart["capex_usd"] == 30000
    assert doc["rate_usd_per_gpu_hour"] == mart["on_demand_usd_per_gpu_hour"]
    assert doc["break_even_gpu_hours"] == pytest.approx(mart["break_even_gpu_hours"], rel=1e-9)
    assert doc["break_even_months"] == pytest.approx(mart["break_even_months_at_100pct"], rel=1e-9)
    assert doc["offer"]["load_id"] and "dim_gpus" in doc["capex_source"]


def test_onprem_power_defaults_to_the_gpus_tdp(demo_warehouse):
    doc = cli_json(
        demo_warehouse,
        "breakeven",
        "onprem",
        "--gpu",
        "H100",
        "--rate",
        "4",
        "--usd-per-kwh",
        "0.10",
        "--utilization",
        "0.5",
        "--pue",
        "1",
        *GPU_ONLY,
    )
    # H100 TDP 700 W: 0.7 kW * 0.10 USD/kWh = 0.07 USD/h; 30000 / (4 - 0.07) = 7633.6 h
    assert doc["power_kw"] == 0.7
    assert doc["break_even_gpu_hours"] == pytest.approx(30000 / 3.93)
    assert doc["break_even_months"] == pytest.approx(30000 / 3.93 / (0.5 * 720))


def test_onprem_counts_the_whole_cost_of_owning_by_default(demo_warehouse):
    result = cli(
        "breakeven", "onprem", "--gpu", "H100", "--rate", "4", "--warehouse", str(demo_warehouse)
    )
    assert result.exit_code == 0, result.stderr
    doc = cli_json(demo_warehouse, "breakeven", "onprem", "--gpu", "H100", "--rate", "4")
    # power (0.7 kW TDP + 0.575 kW host) x PUE 1.56 x 0.10 USD/kWh = 0.1989 USD/h;
    # host 25% of 30,000 = 7,500 USD; operations 10% of 37,500 = 3,750 USD a year
    assert doc["power_usd_per_hour"] == pytest.approx(0.1989)
    assert doc["host_capex_usd"] == 7500 and doc["ops_usd_per_year"] == 3750
    assert doc["break_even_gpu_hours"] == pytest.approx(37_500 / (4 - 0.1989 - 3750 / 8760))
    assert "TDP" in doc["owning_source"]["power_kw"]
    for line in ("host", "power", "operations"):
        assert any(row.strip().startswith(line) for row in result.stdout.splitlines())
    assert "0 kW" not in result.stdout


def test_onprem_compares_whole_machines_of_the_same_form_factor(demo_warehouse, con):
    doc = cli_json(demo_warehouse, "breakeven", "onprem", "--gpu", "H100")
    assert doc["gpu_variant"] == "SXM"
    assert doc["offer"]["gpu_variant"] == "SXM" and doc["offer"]["provider"] != "vastai"
    assert "SXM form factor" in doc["compared_with"]


def test_spot_at_1_50_vs_4_00_stays_cheaper_up_to_1_21_preemptions_per_hour(tmp_path):
    doc = cli_json(
        tmp_path / "none.duckdb",
        "breakeven",
        "spot",
        "--spot-rate",
        "1.5",
        "--on-demand-rate",
        "4.0",
        "--checkpoint-overhead",
        "0.05",
        "--checkpoint-interval-hours",
        "1",
        "--preemption-rate",
        "0.2",
    )
    # p* = 2 / 1 * (1 - 1.5 * 1.05 / 4) = 1.2125; at p = 0.2: 1.05 / (1 - 0.1) = 1.1667
    assert doc["break_even_preemption_rate_per_hour"] == pytest.approx(1.2125)
    assert doc["time_multiplier"] == pytest.approx(1.05 / 0.9)
    assert doc["spot_usd_per_useful_hour"] == pytest.approx(1.75)
    assert doc["spot_is_cheaper"] is True


def test_spot_rates_default_to_the_cheapest_current_offers(demo_counted_warehouse, con_counted):
    doc = cli_json(
        demo_counted_warehouse,
        "breakeven",
        "spot",
        "--gpu",
        "H100",
        "--checkpoint-overhead",
        "0.1",
        "--checkpoint-interval-hours",
        "2",
    )
    spot = db.query(
        con_counted,
        """select min(price_usd_per_gpu_hour) as p from mart_gpu_offers_current
                           where gpu_name = 'H100' and pricing_model = 'spot'""",
    ).item()
    od = db.query(
        con_counted,
        """select min(price_usd_per_gpu_hour) as p from mart_gpu_offers_current
                         where gpu_name = 'H100' and pricing_model = 'on_demand'""",
    ).item()
    assert doc["spot_rate_usd_per_hour"] == spot
    assert doc["on_demand_rate_usd_per_hour"] == od
    assert doc["break_even_preemption_rate_per_hour"] == pytest.approx(
        breakeven.spot_breakeven_preemption_rate(spot, od, 0.1, 2.0), rel=1e-12
    )
    assert doc["spot_offer"]["pricing_model"] == "spot"
    assert doc["on_demand_offer"]["pricing_model"] == "on_demand"
    pairs = doc["same_instance_pairs"]
    assert pairs and all(p["gpu_name"] == "H100" for p in pairs)
    for p in pairs:  # from the spot_breakeven macro at the same assumptions
        assert p["break_even_preemption_rate_per_hour"] == pytest.approx(
            breakeven.spot_breakeven_preemption_rate(
                p["spot_usd_per_gpu_hour"], p["on_demand_usd_per_gpu_hour"], 0.1, 2.0
            ),
            rel=1e-9,
        )


def test_spot_without_rates_or_a_gpu_is_exit_2(tmp_path):
    result = cli("breakeven", "spot", "--spot-rate", "1.5", "--warehouse", str(tmp_path / "w"))
    assert result.exit_code == 2 and "--gpu" in result.stderr


def test_training_estimate_matches_models_at_the_given_rate(demo_warehouse):
    doc = cli_json(
        demo_warehouse, *TRAIN, "--mfu", "0.4", "--gpus", "256", "--rate", "2.5", "--full-recompute"
    )
    expected = training.estimate_training(70e9, 2e12, 989, 0.4, 256, 2.5, full_recompute=True)
    assert {k: doc[k] for k in expected} == expected


def test_the_readme_estimate_example_is_a_plausible_run(demo_warehouse):
    """README's estimate example fits the model in memory and finishes in weeks, not
    decades (1 GPU would take 28,578 days)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("uv run gpu-pricing estimate"))
    args = line.split()[3:]
    doc = cli_json(demo_warehouse, *args)
    assert doc["memory_fit"]["fits"] is True
    assert 1 <= doc["wall_clock_days"] <= 90


def test_without_gpus_the_estimate_uses_the_fewest_that_hold_the_model(demo_warehouse):
    doc = cli_json(demo_warehouse, *TRAIN)
    # 70e9 x 16 bytes = 1,043 GiB: 14 GPUs of 80 GiB
    assert (doc["gpus"], doc["gpus_source"]) == (14, "memory fit")
    assert doc["memory_fit"]["fits"] is True and doc["memory_fit"]["min_gpus"] == 14
    text = cli(*TRAIN, "--warehouse", str(demo_warehouse)).stdout
    assert "the fewest that hold the model" in " ".join(text.split())


def test_the_headline_is_the_cheapest_total_cost_not_the_lowest_rate(demo_counted_warehouse, con_counted):
    """An H100 PCIe offer with a lower rate but a lower peak costs more for the same run:
    the answer is the offer whose total is lowest, and no listed alternative is cheaper."""
    doc = cli_json(demo_counted_warehouse, *TRAIN, "--gpus", "1024")
    assert all(a["cost_usd"] >= doc["cost_usd"] for a in doc["alternatives"])
    lowest_rate = db.query(
        con_counted,
        """select min(o.price_usd_per_gpu_hour) as r from mart_gpu_offers_current o
           join int_offers_usable u using (cheapest_order)
           where o.gpu_name = 'H100' and o.pricing_model = 'on_demand'""",
    )["r"][0]
    assert lowest_rate < doc["rate_usd_per_gpu_hour"]  # the demo has such a PCIe offer
