"""The serving planner (gpu_pricing.plan.serve_candidates) on a hand-built offer frame."""

from __future__ import annotations

import polars as pl
import pytest

from gpu_pricing import plan
from tests.app.plan.test_train_planner import SPECS, offers

MONTH = 720 * 3600


def per_gpu(frame: pl.DataFrame) -> float:
    """The most tokens per GPU-second an H100 offer serves a 7B model on the roofline
    (1024 prompt + 256 output tokens per request, 20 tokens/s per user at least)."""
    options = plan.serve_options(
        plan.usable_offers(frame, SPECS, "bf16"), params=7e9, prompt_tokens=1024, output_tokens=256
    )
    return options["tokens_per_second_per_gpu"].max()


PER_GPU = per_gpu(
    offers({"gpu_count": 1.0, "instance_type": "one"})
)


def serve(frame: pl.DataFrame, average_gpus: float, peak_to_average: float, **kw) -> pl.DataFrame:
    return plan.serve_candidates(
        frame,
        SPECS,
        params=7e9,
        tokens_per_month=average_gpus * PER_GPU * MONTH,
        peak_to_average=peak_to_average,
        **kw,
    )


ONE_GPU = offers(
    {"gpu_count": 1.0, "instance_type": "one"},
    {
        "gpu_count": 1.0,
        "instance_type": "one",
        "pricing_model": "reserved_1y",
        "price_usd_per_gpu_hour": 2.0,
    },
    {
        "gpu_count": 1.0,
        "instance_type": "one",
        "pricing_model": "spot",
        "price_usd_per_gpu_hour": 1.0,
    },
)


def test_a_reserved_base_and_on_demand_peak_beats_either_alone():
    plans = {p["strategy"]: p for p in serve(ONE_GPU, 10, 1.5).to_dicts()}
    # average A = 10 GPUs of load, peak P = 15, low m = 2A - P = 5; u* = 2 / 4 = 0.5:
    # base B = P - u* (P - m) = 15 - 0.5 * 10 = 10 GPUs reserved;
    # on-demand above B: 720 * (P - B)**2 / (2 (P - m)) = 720 * 25 / 20 = 900 GPU-hours
    mix = plans["reserved_1y + on_demand"]
    assert (mix["peak_gpus"], mix["base_gpus"]) == (15, 10)
    assert mix["burst_gpu_hours_per_month"] == pytest.approx(900)
    assert mix["monthly_cost_usd"] == pytest.approx(10 * 2 * 720 + 900 * 4)  # 18,000
    assert plans["on_demand"]["monthly_cost_usd"] == pytest.approx(15 * 4 * 720)  # 43,200
    assert plans["reserved_1y"]["monthly_cost_usd"] == pytest.approx(15 * 2 * 720)  # 21,600
    assert plans["reserved_1y"]["commitment_usd"] == pytest.approx(15 * 2 * 8760)
    tokens = 10 * PER_GPU * MONTH
    assert mix["cost_per_1m_tokens_usd"] == pytest.approx(18_000 / tokens * 1e6)
    cheapest = serve(ONE_GPU, 10, 1.5).row(0, named=True)
    assert cheapest["strategy"] == "reserved_1y + on_demand"


def test_spot_is_considered_only_when_allowed():
    assert not any("spot" in s for s in serve(ONE_GPU, 10, 1.5)["strategy"])
    allowed = {p["strategy"]: p for p in serve(ONE_GPU, 10, 1.5, allow_spot=True).to_dicts()}
    assert allowed["spot"]["monthly_cost_usd"] == pytest.approx(15 * 1 * 720)
    assert "reserved_1y + spot" not in allowed  # u* = 2 / 1 >= 1: the base never pays


def test_a_steady_load_is_all_reserved():
    plans = {p["strategy"]: p for p in serve(ONE_GPU, 10, 1.0).to_dicts()}
    # P = A: no burst to cover, the mix degenerates and is not listed
    assert "reserved_1y + on_demand" not in plans
    assert serve(ONE_GPU, 10, 1.0).row(0, named=True)["strategy"] == "reserved_1y"


def test_the_fleet_holds_the_model_and_rounds_to_whole_instances():
    eight = offers({"gpu_count": 8.0})
    row = plan.serve_candidates(eight, SPECS, params=70e9, tokens_per_month=1e6).row(0, named=True)
    # 70e9 * 2 bytes = 140e9 bytes of weights and the KV cache do not fit one H100 of 80 GiB
    # at 90%: a replica of 2 GPUs or more; one 8-GPU instance
    assert row["peak_gpus"] == 8 and row["gpus_per_replica"] >= 2


def test_a_tiny_load_still_needs_one_instance():
    row = serve(offers({"gpu_count": 8.0}), 1e-9, 1.0).row(0, named=True)
    assert row["peak_gpus"] == 8 and row["monthly_cost_usd"] == pytest.approx(8 * 4 * 720)


def test_the_chosen_batch_is_the_cheapest_meeting_the_latency_bound():
    frame = offers({"gpu_count": 8.0})
    options = plan.serve_options(
        plan.usable_offers(frame, SPECS, "bf16"), params=7e9, prompt_tokens=1024, output_tokens=256
    )
    row = plan.serve_candidates(frame, SPECS, params=7e9, tokens_per_month=1e9).row(0, named=True)
    # every option meets 20 tokens/s per user; the plan takes the one serving the most
    # tokens per GPU-second (the cheapest per token at one rate)
    assert options["tokens_per_second_per_user"].min() >= 20
    best = options.sort("tokens_per_second_per_gpu", descending=True).row(0, named=True)
    assert (row["batch"], row["gpus_per_replica"]) == (best["batch"], best["gpus_per_replica"])
    assert row["tokens_per_second_per_user"] >= 20
    # a stricter bound picks another batch or replica size, at a higher cost per token
    strict = plan.serve_candidates(
        frame, SPECS, params=7e9, tokens_per_month=1e9, min_tokens_per_second_per_user=120
    ).row(0, named=True)
    assert strict["tokens_per_second_per_user"] >= 120
    assert (strict["batch"], strict["gpus_per_replica"]) != (row["batch"], row["gpus_per_replica"])
    assert strict["usd_per_1m_output_tokens"] > row["usd_per_1m_output_tokens"]


def test_a_plan_states_its_bound_and_token_costs_on_the_roofline():
    frame = offers({"gpu_count": 8.0})
    row = plan.serve_candidates(
        frame, SPECS, params=70e9, tokens_per_month=1e9, batch=1, kv_bytes_per_token=0,
        min_tokens_per_second_per_user=1,
    ).row(0, named=True)
    # batch 1 on 2 H100s: memory-bound, 1.4e11 B / (2 * 3.35e12 * 0.61) / 0.9 = 38.06 ms
    assert row["bound"] == "memory" and row["gpus_per_replica"] == 2
    assert row["step_seconds"] == pytest.approx(1.4e11 / (2 * 3.35e12 * 0.61) / 0.9, rel=1e-9)
    # 4 USD/GPU-hour x 2 GPUs x 38.06 ms per token = 84.6 USD per 1M output tokens
    assert row["usd_per_1m_output_tokens"] == pytest.approx(
        4 * 2 * row["step_seconds"] / 3600 * 1e6, rel=1e-9
    )
    assert row["usd_per_1m_input_tokens"] == pytest.approx(
        4 * 2 * (2 * 70e9 / (2 * 989e12 * 0.6) / 0.9) / 3600 * 1e6, rel=1e-9
    )
