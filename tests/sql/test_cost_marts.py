"""The cost marts and table macros agree with models/ to 1e-9 on the same inputs."""

from __future__ import annotations

import math

import duckdb
import pytest

from models import breakeven, serving, training
from warehouse import db

REL = 1e-9


def rows(con, sql: str, params=None) -> list[dict]:
    return db.query(con, sql, params).to_dicts()


def close(value: float):
    return pytest.approx(value, rel=REL, abs=0)


def test_cost_per_token_mart_agrees_with_models_for_every_priced_offer(con):
    got = rows(con, "select * from mart_cost_per_token")
    offers = rows(
        con,
        """select count(*) as n from mart_gpu_offers_current
           where is_comparable and is_verified""",
    )[0]["n"]
    assert len(got) == offers > 0
    # GPU-only prices (GCP accelerator SKUs, host billed apart) would understate the cost
    assert not [r for r in got if r["instance_type"].startswith("nvidia-l4")]
    assert {
        (r["mfu"], r["precision"], r["serving_batch_size"], r["serving_context_tokens"])
        for r in got
    } == {(0.45, "bf16", 1.0, 1024.0)}
    assert {(r["decode_bandwidth_share"], r["decode_compute_share"]) for r in got} == {(0.61, 0.6)}
    costed = [r for r in got if r["peak_tflops"] is not None]
    assert costed
    for r in costed:
        rate = r["price_usd_per_gpu_hour"]
        train = training.estimate_training(1e9, 1e6, r["peak_tflops"], r["mfu"], 1, rate)
        assert r["training_flops_per_1m_tokens_per_b_params"] == train["flops"]
        assert r["training_gpu_hours_per_1m_tokens_per_b_params"] == close(train["gpu_hours"])
        assert r["usd_per_1m_training_tokens_per_b_params"] == close(train["cost_usd"])
    # serving: the roofline Python calls (the same macro) for the same offer
    served = [r for r in costed if r["memory_bandwidth_gbps"] is not None]
    assert served
    for r in served:
        step = serving.decode(
            1e9, peak_tflops=r["peak_tflops"], memory_bandwidth_gbps=r["memory_bandwidth_gbps"],
            context_tokens=1024, gpu_memory_gib=r["gpu_memory_gib"],
            rate_usd_per_gpu_hour=r["price_usd_per_gpu_hour"],
        )
        assert r["decode_bound"] == step["bound"] == "memory"
        assert r["usd_per_1m_output_tokens_per_b_params"] == close(step["usd_per_1m_output_tokens"])
        assert r["usd_per_1m_input_tokens_per_b_params"] == close(step["usd_per_1m_input_tokens"])


def test_the_old_cost_per_inference_token_columns_keep_working_for_one_release(con):
    """mart_cost_per_token's usd_per_1m_inference_tokens_per_b_params and the macro's
    usd_per_1m_inference_tokens (their names before the serving roofline) read the
    roofline's cost per 1M output tokens, in the same unit, for every row."""
    got = rows(
        con,
        """select usd_per_1m_inference_tokens_per_b_params as old,
                  usd_per_1m_output_tokens_per_b_params as new
           from mart_cost_per_token""",
    )
    assert got and [r["old"] for r in got] == [r["new"] for r in got]
    assert any(r["old"] is not None for r in got)
    called = rows(
        con,
        """select usd_per_1m_inference_tokens as old, usd_per_1m_output_tokens as new
           from cost_per_token(params_b := 70, serving_batch := 8)""",
    )
    assert called and [r["old"] for r in called] == [r["new"] for r in called]
    assert any(r["old"] is not None for r in called)


def test_cost_per_token_mart_hand_computed_h100_gpu_hours(con):
    # 6 * 1e9 params * 1e6 tokens = 6e15 FLOPs; 0.45 * 989e12 FLOP/s * 3600 s = 1.60218e18
    # FLOPs per GPU-hour; 6e15 / 1.60218e18 = 0.0037448976 GPU-hours per 1M tokens per 1B.
    # H100 PCIe offers (RunPod, Lambda) at their own 756 TFLOPS: 0.45 * 756e12 * 3600 =
    # 1.22472e18; 6e15 / 1.22472e18 = 0.0048990790 (dim_gpu_variants).
    got = rows(
        con,
        """select gpu_variant, any_value(training_gpu_hours_per_1m_tokens_per_b_params) as h,
                  count(distinct training_gpu_hours_per_1m_tokens_per_b_params) as n
           from mart_cost_per_token where gpu_name = 'H100' and gpu_memory_gib = 80
           group by all order by gpu_variant""",
    )
    assert [(r["gpu_variant"], r["h"], r["n"]) for r in got] == [
        ("PCIe", pytest.approx(0.0048990790, rel=1e-8), 1),
        ("SXM", pytest.approx(0.0037448976, rel=1e-8), 1),
    ]


def test_gpus_without_a_bf16_peak_keep_their_rows_with_null_costs(con):
    got = rows(
        con,
        """select c.usd_per_1m_training_tokens_per_b_params as train,
                  c.usd_per_1m_output_tokens_per_b_params as serve
           from mart_cost_per_token c join dim_gpus g using (gpu_name, gpu_memory_gib)
           where g.bf16_tflops is null""",
    )
    assert got  # the demo has T4 and V100 offers
    assert all(r["train"] is None and r["serve"] is None for r in got)


def test_cost_per_token_macro_agrees_with_models_at_other_assumptions(con):
    got = rows(
        con,
        """select c.*, g.fp32_tflops, g.interconnect_gbps from cost_per_token(
               mfu := 0.4, params_b := 7, precision := 'fp32', serving_batch := 64,
               serving_context := 2048, bandwidth_fraction := 0.8, compute_fraction := 0.7) c
           join dim_gpu_variants g using (gpu_name, gpu_memory_gib, gpu_variant)""",
    )
    assert got
    for r in got:
        assert (r["mfu"], r["params_b"], r["precision"], r["serving_batch_size"]) == (
            0.4,
            7.0,
            "fp32",
            64.0,
        )
        assert r["peak_tflops"] == r["fp32_tflops"]
        rate = r["price_usd_per_gpu_hour"]
        train = training.estimate_training(7e9, 1e6, r["peak_tflops"], 0.4, 1, rate)
        assert r["usd_per_1m_training_tokens"] == close(train["cost_usd"])
        assert r["training_gpu_hours_per_1m_tokens"] == close(train["gpu_hours"])
        if r["peak_tflops"] is None or r["memory_bandwidth_gbps"] is None:
            assert r["usd_per_1m_output_tokens"] is None
            continue
        step = serving.decode(
            7e9, peak_tflops=r["peak_tflops"], memory_bandwidth_gbps=r["memory_bandwidth_gbps"],
            batch=64, context_tokens=2048, precision="fp32", gpu_memory_gib=r["gpu_memory_gib"],
            has_link=r["interconnect_gbps"] is not None, bandwidth_share=0.8, compute_share=0.7,
            rate_usd_per_gpu_hour=rate,
        )
        assert r["gpus_per_replica"] == step["tp"]
        assert r["usd_per_1m_output_tokens"] == close(step["usd_per_1m_output_tokens"])
        assert r["usd_per_1m_input_tokens"] == close(step["usd_per_1m_input_tokens"])


def test_cost_per_token_macro_defaults_are_mfu_045_and_70b(con):
    got = rows(
        con,
        """select distinct mfu, params_b, precision, serving_batch_size, serving_context_tokens,
                  decode_bandwidth_share, decode_compute_share from cost_per_token()""",
    )
    assert got == [
        {
            "mfu": 0.45, "params_b": 70.0, "precision": "bf16", "serving_batch_size": 1.0,
            "serving_context_tokens": 1024.0, "decode_bandwidth_share": 0.61,
            "decode_compute_share": 0.6,
        }
    ]


def test_70b_bf16_on_h100_sxm_serves_about_24_tokens_per_second_per_gpu_at_batch_1(con):
    # 3.35e12 B/s / (70e9 x 2 bytes) = 23.9 tokens/s per GPU-equivalent at the full
    # bandwidth; at the measured 61% and 2 GPUs per replica over NVLink (0.9): 12.9
    got = rows(
        con,
        """select distinct gpus_per_replica, decode_bound, output_tokens_per_second_per_gpu
           from cost_per_token(params_b := 70, serving_context := 0, bandwidth_fraction := 1)
           where gpu_name = 'H100' and gpu_variant = 'SXM'""",
    )
    assert len(got) == 1
    (r,) = got
    assert (r["gpus_per_replica"], r["decode_bound"]) == (2.0, "memory")
    assert r["output_tokens_per_second_per_gpu"] / 0.9 == pytest.approx(3.35e12 / 1.4e11)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("cost_per_token(mfu := 1.5)", "mfu must be in (0, 1], got 1.5"),
        ("cost_per_token(mfu := 0)", "mfu must be in (0, 1]"),
        ("cost_per_token(params_b := -7)", "params_b must be > 0"),
        ("cost_per_token(precision := 'int4')", "precision must be fp32, tf32, bf16 or fp8"),
        ("cost_per_token(serving_batch := 0)", "serving_batch must be a whole number >= 1"),
        ("cost_per_token(bandwidth_fraction := 1.2)", "bandwidth_fraction must be in (0, 1]"),
        ("breakeven_onprem(utilization := 0)", "utilization must be in (0, 1]"),
        ("breakeven_onprem(residual_fraction := 1)", "residual_fraction must be in [0, 1)"),
        ("spot_breakeven(checkpoint_interval_hours := 0)", "checkpoint_interval_hours must be > 0"),
        ("spot_breakeven(checkpoint_overhead := -0.1)", "checkpoint_overhead must be >= 0"),
    ],
)
def test_macros_reject_invalid_assumptions_naming_them(con, call, message):
    with pytest.raises(
        duckdb.Error, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    ):
        rows(con, f"select * from {call}")


def test_breakeven_onprem_mart_agrees_with_models(con):
    got = rows(con, "select * from mart_breakeven_onprem")
    both = [r for r in got if r["capex_usd"] is not None and r["on_demand_usd_per_gpu_hour"]]
    assert both  # H100 80 and A100 40 have a reference capex and demo offers
    for r in both:
        # the whole cost of owning at the stated defaults (seed_conventions)
        owning = breakeven.owning_defaults(r["capex_usd"], r["tdp_watts"])
        full = breakeven.onprem(r["capex_usd"], r["on_demand_usd_per_gpu_hour"], 1.0, **owning)
        half = breakeven.onprem(r["capex_usd"], r["on_demand_usd_per_gpu_hour"], 0.5, **owning)
        assert r["power_usd_per_hour"] == close(full["power_usd_per_hour"])
        assert r["ops_usd_per_year"] == close(full["ops_usd_per_year"])
        assert r["break_even_gpu_hours"] == close(full["break_even_gpu_hours"])
        assert r["break_even_months_at_100pct"] == close(full["break_even_months"])
        assert r["break_even_months_at_50pct"] == close(half["break_even_months"])
    missing = [r for r in got if r["capex_usd"] is None or r["on_demand_usd_per_gpu_hour"] is None]
    assert all(r["break_even_gpu_hours"] is None for r in missing)


def test_breakeven_onprem_mart_uses_the_cheapest_whole_machine_of_the_default_form(con):
    # verified whole machines of the GPU's default form factor, no marketplace listing
    cheapest = {
        (r["gpu_name"], r["gpu_memory_gib"]): r["rate"]
        for r in rows(
            con,
            """select o.gpu_name, o.gpu_memory_gib, min(o.price_usd_per_gpu_hour) as rate
               from mart_gpu_offers_current o
               join dim_gpu_variants v using (gpu_name, gpu_memory_gib, gpu_variant)
               where o.pricing_model = 'on_demand' and v.is_default_variant
                 and o.is_verified and o.is_comparable
                 and o.provider not in (select provider from seed_provider_classes
                                        where provider_class = 'marketplace')
               group by all""",
        )
    }
    mart = {
        (r["gpu_name"], r["gpu_memory_gib"]): r["on_demand_usd_per_gpu_hour"]
        for r in rows(
            con,
            """select * from mart_breakeven_onprem
               where on_demand_usd_per_gpu_hour is not null""",
        )
    }
    assert mart == cheapest
    traced = rows(
        con,
        """select count(*) as n from mart_breakeven_onprem m
           join mart_gpu_offers_current o
             on o.load_id = m.load_id and o.instance_type = m.instance_type
            and o.pricing_model = 'on_demand'
            and o.price_usd_per_gpu_hour = m.on_demand_usd_per_gpu_hour""",
    )[0]["n"]
    assert traced >= len(mart)


def test_breakeven_onprem_macro_with_power_and_resale_agrees_with_models(con):
    got = rows(
        con,
        """select * from breakeven_onprem(
               utilization := 0.5, usd_per_kwh := 0.12, residual_fraction := 0.2,
               pue := 1.3, host_kw := 0.4, host_fraction := 0.3, ops_fraction := 0.05)
           where break_even_gpu_hours is not null""",
    )
    assert got
    for r in got:
        expected = breakeven.onprem(
            r["capex_usd"],
            r["on_demand_usd_per_gpu_hour"],
            0.5,
            power_kw=r["tdp_watts"] / 1000,
            usd_per_kwh=0.12,
            residual_value_usd=r["capex_usd"] * 0.2,
            pue=1.3,
            host_kw=0.4,
            host_capex_usd=r["capex_usd"] * 0.3,
            ops_usd_per_year=0.05 * r["capex_usd"] * 1.3,
        )
        assert r["power_kw"] == r["tdp_watts"] / 1000
        assert r["power_usd_per_hour"] == close(expected["power_usd_per_hour"])
        assert r["break_even_gpu_hours"] == close(expected["break_even_gpu_hours"])
        assert r["break_even_months"] == close(expected["break_even_months"])
        assert r["owning_breaks_even"] is True


def test_breakeven_onprem_macro_says_when_power_outweighs_the_rent(con):
    # 0.7 kW at 1000 USD/kWh = 700 USD/h, far above any rental rate: never breaks even
    got = rows(
        con,
        """select * from breakeven_onprem(power_kw := 0.7, usd_per_kwh := 1000)
           where capex_usd is not null and on_demand_usd_per_gpu_hour is not null""",
    )
    assert got
    assert all(r["break_even_gpu_hours"] is None and r["owning_breaks_even"] is False for r in got)


def test_spot_breakeven_mart_agrees_with_models(con):
    got = rows(con, "select * from mart_spot_breakeven")
    assert got
    for r in got:
        assert (r["checkpoint_overhead"], r["checkpoint_interval_hours"]) == (0.05, 1.0)
        expected = breakeven.spot(
            r["spot_usd_per_hour"],
            r["on_demand_usd_per_hour"],
            0.05,
            1.0,
            r["preemption_rate_per_hour"],
        )
        assert r["spot_discount"] == close(expected["spot_discount"])
        assert r["break_even_preemption_rate_per_hour"] == close(
            expected["break_even_preemption_rate_per_hour"]
        )
        if r["preemption_rate_per_hour"] is None:
            assert r["effective_spot_usd_per_hour"] is None
        else:
            assert r["time_multiplier"] == close(expected["time_multiplier"])
            assert r["effective_spot_usd_per_hour"] == close(expected["spot_usd_per_useful_hour"])
            assert r["spot_is_cheaper"] == expected["spot_is_cheaper"]


def test_spot_breakeven_pairs_each_spot_offer_with_its_own_instance_on_demand_price(con_counted):
    expected = rows(
        con_counted,
        """select s.provider, s.region, s.zone, s.instance_type,
                  s.price_usd_per_hour as spot, d.price_usd_per_hour as od
           from mart_gpu_offers_current s join mart_gpu_offers_current d
             on d.provider = s.provider and d.region = s.region
            and d.instance_type = s.instance_type and d.zone is not distinct from s.zone
           where s.pricing_model = 'spot' and d.pricing_model = 'on_demand'
           order by all""",
    )
    got = rows(
        con_counted,
        """select provider, region, zone, instance_type, spot_usd_per_hour as spot,
                  on_demand_usd_per_hour as od
           from mart_spot_breakeven where zone is null order by all""",
    )
    regional = [r for r in expected if r["zone"] is None]
    assert got == regional and got


def test_spot_breakeven_macro_at_other_checkpointing_agrees_with_models(con):
    got = rows(
        con,
        """select * from spot_breakeven(
               checkpoint_overhead := 0.1, checkpoint_interval_hours := 0.5, restart_hours := 0.25)""",
    )
    assert got
    for r in got:
        expected = breakeven.spot(
            r["spot_usd_per_hour"],
            r["on_demand_usd_per_hour"],
            0.1,
            0.5,
            r["preemption_rate_per_hour"],
            restart_hours=0.25,
        )
        assert (r["checkpoint_overhead"], r["checkpoint_interval_hours"], r["restart_hours"]) == (
            0.1,
            0.5,
            0.25,
        )
        assert r["break_even_preemption_rate_per_hour"] == close(
            expected["break_even_preemption_rate_per_hour"]
        )
        if r["preemption_rate_per_hour"] is not None:
            assert r["effective_spot_usd_per_hour"] == close(expected["spot_usd_per_useful_hour"])


def test_interruption_buckets_become_hourly_rates_at_the_upper_bound(con):
    got = {
        r["interruption_bucket"]: r
        for r in rows(con, "select * from dim_spot_interruption_buckets")
    }
    assert set(got) == {"<5%", "5-10%", "10-15%", "15-20%", ">20%"}
    # '5-10%' -> f = 0.10 interrupted per 720-hour month: p = -ln(0.9) / 720 = 0.000146334
    assert got["5-10%"]["preemption_rate_per_hour"] == pytest.approx(0.000146334, rel=1e-5)
    for label, r in got.items():
        f = r["interruption_fraction_per_month"]
        assert f == (r["interruption_fraction_high"] or r["interruption_fraction_low"])
        assert r["preemption_rate_per_hour"] == close(-math.log(1 - f) / 720)
        assert r["interruption_rate_is_lower_bound"] == (label == ">20%")


def test_published_interruption_buckets_set_the_hourly_preemption_rate(con_counted):
    published = {
        (r["provider"], r["region"], r["instance_type"]): r["interruption_bucket"]
        for r in rows(
            con_counted,
            """select provider, region, instance_type, interruption_bucket
               from mart_spot_price_stats where interruption_bucket is not null""",
        )
    }
    pairs = rows(con_counted, "select * from mart_spot_on_demand_pairs")
    known = [r for r in pairs if (r["provider"], r["region"], r["instance_type"]) in published]
    assert known, "the demo's AWS spot offers carry Spot Advisor buckets"
    # the label's upper bound, '>20%' its lower bound, as a share interrupted per month
    upper = {"<5%": 0.05, "5-10%": 0.10, "10-15%": 0.15, "15-20%": 0.20, ">20%": 0.20}
    for r in known:
        bucket = published[(r["provider"], r["region"], r["instance_type"])]
        assert r["interruption_bucket"] == bucket
        assert r["preemption_rate_per_hour"] == close(-math.log(1 - upper[bucket]) / 720)
    unknown = [r for r in pairs if r not in known]
    assert all(r["preemption_rate_per_hour"] is None for r in unknown)
    effective = rows(
        con_counted,
        "select * from mart_spot_breakeven where effective_spot_usd_per_hour is not null",
    )
    assert len(effective) == len(known)


def test_reserved_breakeven_mart_agrees_with_models(con_counted):
    got = rows(con_counted, "select * from mart_reserved_breakeven")
    assert got
    assert {r["term"] for r in got} <= {"reserved_1y", "reserved_3y"}
    for r in got:
        threshold = breakeven.reserved_breakeven_utilization(
            r["reserved_effective_usd_per_hour"], r["on_demand_usd_per_hour"]
        )
        assert r["break_even_utilization"] == close(threshold)
        assert r["commitment_can_pay"] == (threshold < 1)


def test_macros_work_in_a_plain_read_only_session(demo_warehouse):
    fresh = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        cost = db.query(fresh, "select * from cost_per_token(mfu := 0.4, params_b := 7)")
        onprem = db.query(fresh, "select * from breakeven_onprem(utilization := 0.5)")
        spot = db.query(fresh, "select * from spot_breakeven(checkpoint_overhead := 0.05)")
    finally:
        fresh.close()
    assert cost.height > 0 and set(cost["mfu"]) == {0.4} and set(cost["params_b"]) == {7.0}
    assert cost["usd_per_1m_training_tokens"].drop_nulls().min() > 0
    assert onprem.height > 0 and set(onprem["utilization"]) == {0.5}
    assert spot.height > 0
