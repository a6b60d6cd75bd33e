"""The Python API and the planners cost an offer at its own form factor's peak, as the
command line and the cost marts do (dim_gpu_variants: an H100 PCIe offer at 756 dense BF16
TFLOPS, the SXM part at 989), not at the default variant of the GPU's name."""

from __future__ import annotations

import polars as pl
import pytest

import gpu_pricing
from tests._cli import cli_json


def test_estimate_train_costs_each_h100_offer_at_its_form_factor(demo_warehouse):
    got = gpu_pricing.estimate_train(70e9, 2e12, "H100", memory=80, warehouse=demo_warehouse)
    peaks = dict(
        got.group_by("gpu_variant").agg(pl.col("peak_tflops").unique()).iter_rows()
    )
    assert peaks == {"SXM": [989.0], "PCIe": [756.0]}
    # one row per offer: no offer joined to two form factors
    key = ["provider", "region", "zone", "instance_type", "pricing_model"]
    assert got.select(key).is_duplicated().sum() == 0


def test_the_api_and_the_command_line_price_the_cheapest_offer_alike(demo_warehouse):
    doc = cli_json(demo_warehouse, "estimate", "train", "--params", "70e9", "--tokens", "2e12",
                   "--gpu", "H100", "--memory", "80")
    api = gpu_pricing.estimate_train(70e9, 2e12, "H100", memory=80, warehouse=demo_warehouse)
    offer = doc["offer"]
    row = api.filter(
        (pl.col("provider") == offer["provider"])
        & (pl.col("instance_type") == offer["instance_type"])
        & (pl.col("region") == offer["region"])
    ).row(0, named=True)
    assert row["peak_tflops"] == doc["peak_tflops"]
    assert row["gpu_hours"] == pytest.approx(doc["gpu_hours"], rel=1e-12)


def test_a_training_plan_on_an_h100_pcie_offer_uses_the_pcie_peak(demo_counted_warehouse):
    plan = gpu_pricing.plan_train(
        params=7e9, tokens=140e9, gpu_names=["H100"], warehouse=demo_counted_warehouse
    )
    key = ["provider", "region", "zone", "instance_type", "pricing_model"]
    variants = gpu_pricing.offers(demo_counted_warehouse).select(*key, "gpu_variant")
    costed = plan.candidates.join(variants, on=key, how="left", nulls_equal=True)
    assert costed["gpu_variant"].null_count() == 0
    peaks = dict(costed.group_by("gpu_variant").agg(pl.col("peak_tflops").unique()).iter_rows())
    assert peaks == {"SXM": [989.0], "PCIe": [756.0]}


def test_offers_without_a_form_factor_take_the_default_one_once(demo_warehouse):
    # an offers frame of the caller's own, naming no variant: costed at the default (SXM)
    offers = gpu_pricing.offers(demo_warehouse).filter(pl.col("gpu_name") == "H100").drop(
        "gpu_variant"
    )
    plan = gpu_pricing.plan_train(
        params=7e9, tokens=140e9, offers_frame=offers,
        specs_frame=None, warehouse=demo_warehouse,
    )
    assert set(plan.candidates["peak_tflops"].unique()) == {989.0}
