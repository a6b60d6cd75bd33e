"""Names people type: GPU aliases, any case, providers and pricing models with aliases,
70B / 2T counts, fp16; a miss exits 2 naming the closest known names. Sheet providers
(coreweave, paperspace, fluidstack) are providers everywhere."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pytest

from common import names
from services import alerts, config
from tests._cli import cli, cli_json

TRAIN = ["estimate", "train", "--tokens", "2e12", "--gpu", "H100", "--rate", "2"]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("h100", names.Gpu("H100")),
        ("H100 SXM", names.Gpu("H100", None, "SXM")),
        ("nvidia h100 pcie", names.Gpu("H100", None, "PCIe")),
        ("H100 SXM5", names.Gpu("H100", None, "SXM")),
        ("A100-80GB", names.Gpu("A100", 80.0)),
        ("a100 80gb", names.Gpu("A100", 80.0)),
        ("A100 80G PCIe", names.Gpu("A100", 80.0, "PCIe")),
        ("H100 NVL", names.Gpu("H100NVL")),
        ("rtx a6000", names.Gpu("RTX A6000")),
        ("L4 PCIe", names.Gpu("L4")),  # one form factor only: nothing to tell apart
    ],
)
def test_gpu_names_as_people_type_them(typed, expected):
    assert names.gpu(typed) == expected


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("70B", 70e9), ("2T", 2e12), ("1.5M", 1.5e6), ("512k", 512e3), ("7e9", 7e9), ("2_000", 2e3)],
)
def test_counts_with_suffixes(typed, expected):
    assert names.count(typed) == expected


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("ondemand", "on_demand"),
        ("On-Demand", "on_demand"),
        ("preemptible", "spot"),
        ("SPOT", "spot"),
        ("1y", "reserved_1y"),
        ("reserved-3y", "reserved_3y"),
    ],
)
def test_pricing_model_aliases(typed, expected):
    assert names.pricing_model(typed) == expected


def test_rates_reads_gpu_aliases_and_filters_on_them(demo_warehouse):
    sxm = cli_json(demo_warehouse, "rates", "--gpu", "H100 SXM", "--limit", "500")["rates"]
    assert sxm and {(r["gpu_name"]) for r in sxm} == {"H100"}
    a100 = cli_json(demo_warehouse, "rates", "--gpu", "A100-80GB", "--limit", "500")["rates"]
    assert a100 and {(r["gpu_name"], r["gpu_memory_gib"]) for r in a100} == {("A100", 80.0)}
    same = cli_json(demo_warehouse, "rates", "--gpu", "a100 80gb", "--limit", "500")["rates"]
    assert same == a100


def test_rates_reads_provider_and_pricing_in_any_case(demo_warehouse):
    aws = cli_json(demo_warehouse, "rates", "--provider", "AWS", "--pricing", "On-Demand")
    assert aws["count"] > 0
    assert {(r["provider"], r["pricing_model"]) for r in aws["rates"]} == {("aws", "on_demand")}


def test_history_reads_pricing_aliases(demo_warehouse):
    doc = cli_json(demo_warehouse, "history", "--gpu", "h100", "--pricing", "ondemand")
    assert doc["count"] > 0 and {r["pricing_model"] for r in doc["history"]} == {"on_demand"}


@pytest.mark.parametrize(
    ("args", "closest"),
    [
        (["rates", "--gpu", "H1OO"], "closest: H100"),
        (["rates", "--provider", "amazon"], "unknown provider"),
        (["rates", "--provider", "coreweeve"], "closest: coreweave"),
        (["history", "--gpu", "A1000"], "closest: A100"),
        (["rates", "--pricing", "hourly"], "on_demand, spot"),
        (["estimate", "train", "--params", "7e9", "--tokens", "1e9", "--gpu", "H1000"], "closest"),
        (["rates", "--provider", "sheets"], "coreweave"),
    ],
)
def test_a_miss_exits_2_and_names_what_exists(demo_warehouse, args, closest):
    result = cli(*args, "--warehouse", demo_warehouse)
    assert result.exit_code == 2, result.output
    assert closest in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_estimate_takes_70b_2t_and_fp16(demo_warehouse):
    doc = cli_json(
        demo_warehouse, "estimate", "train", "--params", "70B", "--tokens", "2T",
        "--gpu", "H100 SXM", "--precision", "fp16", "--rate", "2",
    )  # fmt: skip
    assert (doc["params"], doc["tokens"]) == (70e9, 2e12)
    assert doc["precision"] == "bf16" and doc["peak_tflops"] == 989.0
    assert "fp16 = bf16 peak" in doc["precision_note"]
    pcie = cli_json(
        demo_warehouse, "estimate", "infer", "--params", "7B", "--prompt-tokens", "2048",
        "--requests", "1M", "--gpu", "h100 pcie", "--rate", "2",
    )  # fmt: skip
    assert (pcie["prompt_tokens"], pcie["requests"], pcie["peak_tflops"]) == (2048, 1e6, 756.0)


def test_a_count_that_is_not_a_number_is_a_usage_error(demo_warehouse):
    result = cli(*TRAIN, "--params", "70X", "--warehouse", demo_warehouse)
    assert result.exit_code == 2
    assert result.stderr.strip() == "gpu-pricing: --params '70X': not a number (e.g. 70e9, 70B, 2T, 1.5M, 2K)"


def test_rates_lists_a_sheet_provider(demo_warehouse):
    doc = cli_json(demo_warehouse, "rates", "--provider", "CoreWeave")
    assert doc["count"] > 0 and {r["provider"] for r in doc["rates"]} == {"coreweave"}


def test_budgets_and_rules_can_name_sheet_providers(demo_warehouse):
    cfg = config.parse(
        {
            "budgets": [
                {
                    "name": "cw",
                    "gpu": "h100",
                    "gpus": 8,
                    "hours_per_day": 24,
                    "budget_usd": 100_000,
                    "providers": ["CoreWeave"],
                }
            ],
            "rules": [
                {
                    "name": "ps",
                    "kind": "price_above",
                    "gpu": "H100",
                    "pricing_model": "on-demand",
                    "usd_per_gpu_hour": 3.0,
                    "providers": ["paperspace"],
                }
            ],
        }
    )
    assert cfg.budgets[0].providers == ("coreweave",) and cfg.rules[0].pricing_model == "on_demand"
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        result = {e.rule: e for e in alerts.evaluate(con, cfg, datetime(2026, 11, 21))}
    finally:
        con.close()
    # CoreWeave HGX H100 on-demand 49.24 / 8 = 6.155 per GPU-hour; Paperspace H100 3.09
    assert result["rate:ps"].value == 3.09 and result["rate:ps"].state == "ALARM"
    budget = [e for rule, e in result.items() if rule.startswith("budget:cw")]
    assert budget and all(e.value is not None for e in budget)
    assert "coreweave" in budget[0].message


def test_a_budget_naming_the_sheets_connector_is_told_which_providers_to_name():
    with pytest.raises(config.ConfigError) as err:
        config.parse(
            {
                "rules": [
                    {
                        "name": "r",
                        "kind": "price_above",
                        "gpu": "H100",
                        "usd_per_gpu_hour": 3.0,
                        "providers": ["sheets"],
                    }
                ]
            }
        )
    assert "rules[0].providers[0]" in str(err.value) and "coreweave" in str(err.value)


# -- every name form at every door ---------------------------------------------------------

GPU_FORMS = ["H100", "h100", "H100-80GB", "h100 sxm", "nvidia h100 80gb"]
PRICING_FORMS = ["on-demand", "ondemand", "On_Demand", "OD"]


@pytest.mark.parametrize("typed", GPU_FORMS)
def test_every_door_reads_gpu_aliases(demo_warehouse, typed):
    import gpu_pricing

    api_rates = gpu_pricing.rates(gpu=typed, warehouse=demo_warehouse)
    assert api_rates.height > 0 and set(api_rates["gpu_name"]) == {"H100"}
    assert cli_json(demo_warehouse, "rates", "--gpu", typed)["count"] > 0
    assert gpu_pricing.history(typed, warehouse=demo_warehouse).height > 0
    assert gpu_pricing.estimate_train(70e9, 2e12, typed, rate=2.0).height == 1
    assert gpu_pricing.estimate_train(70e9, 2e12, typed, warehouse=demo_warehouse).height > 0
    plan = gpu_pricing.plan_train(params=7e9, tokens=1e11, gpu_names=typed, warehouse=demo_warehouse)
    assert set(plan.candidates["gpu_name"]) == {"H100"}
    doc = cli_json(demo_warehouse, "plan", "serve", "--params", "7B", "--tokens-per-month",
                   "1T", "--gpu", typed)  # fmt: skip
    assert doc["chosen"]["gpu_name"] == "H100"


@pytest.mark.parametrize("typed", PRICING_FORMS)
def test_every_door_reads_pricing_aliases(demo_warehouse, typed):
    import gpu_pricing

    assert set(gpu_pricing.rates(pricing=typed, warehouse=demo_warehouse)["pricing_model"]) == {
        "on_demand"
    }
    plan = gpu_pricing.plan_train(params=7e9, tokens=1e11, pricing=typed, warehouse=demo_warehouse)
    assert set(plan.candidates["pricing_model"]) == {"on_demand"}
    doc = cli_json(demo_warehouse, *TRAIN, "--params", "7e9", "--pricing", typed)
    assert doc["pricing_model"] == "on_demand"


def test_every_door_reads_provider_and_region_in_any_case(demo_warehouse):
    import gpu_pricing

    rows = gpu_pricing.rates(provider="AWS", region="US-EAST-1", warehouse=demo_warehouse)
    assert rows.height > 0 and set(rows["provider"]) == {"aws"}
    assert set(rows["region"]) == {"us-east-1"}
    plan = gpu_pricing.plan_train(
        params=7e9, tokens=1e11, providers="AWS", regions="US-East-1", warehouse=demo_warehouse
    )
    assert set(plan.candidates["provider"]) == {"aws"}
    doc = cli_json(demo_warehouse, "plan", "train", "--params", "7B", "--tokens", "100B",
                   "--providers", "PaperSpace,AWS")  # fmt: skip
    assert doc["chosen"]["provider"] in {"aws", "paperspace"}


def test_every_pricing_model_the_warehouse_holds_is_taken_everywhere(demo_counted_warehouse):
    import gpu_pricing
    from common.schemas import PRICING_MODELS

    held = set(gpu_pricing.rates(warehouse=demo_counted_warehouse)["pricing_model"])
    assert {"capacity_block", "savings_plan_1y", "savings_plan_3y"} <= held
    for model in PRICING_MODELS:
        assert names.pricing_model(model.replace("_", "-").upper()) == model
        rows = gpu_pricing.rates(pricing=model, warehouse=demo_counted_warehouse)
        assert set(rows["pricing_model"]) <= {model}
        if model in held:
            plan = gpu_pricing.plan_train(
                params=1e9, tokens=1e10, pricing=model, warehouse=demo_counted_warehouse
            )
            assert set(plan.candidates["pricing_model"]) == {model}


@pytest.mark.parametrize(
    ("call", "closest"),
    [
        (lambda w: __import__("gpu_pricing").rates(gpu="H1000", warehouse=w), "H100"),
        (lambda w: __import__("gpu_pricing").rates(provider="amazon", warehouse=w), "provider"),
        (lambda w: __import__("gpu_pricing").rates(provider="aws", region="us-eest-1", warehouse=w), "us-east-1"),
        (lambda w: __import__("gpu_pricing").rates(pricing="spott", warehouse=w), "spot"),
        (lambda w: __import__("gpu_pricing").plan_train(params=1e9, tokens=1e10, gpu_names="H1000", warehouse=w), "H100"),
    ],
)
def test_the_api_raises_on_an_unknown_name_never_an_empty_frame(demo_warehouse, call, closest):
    with pytest.raises(ValueError, match=closest):
        call(demo_warehouse)
