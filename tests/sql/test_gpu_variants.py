"""GPU form factors with different specs are their own rows: an H100 PCIe offer is costed
at the PCIe peak (756 dense BF16 TFLOPS), not the SXM one (989)."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import polars as pl
import pytest

from common.gpu import form_factor
from tests._cli import cli_json

SEEDS = Path(__file__).resolve().parents[2] / "sql" / "seeds"


@pytest.fixture(scope="module")
def con(demo_warehouse):
    connection = duckdb.connect(str(demo_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.mark.parametrize(
    ("raw", "variant"),
    [
        ("NVIDIA H100 PCIe", "PCIe"),
        ("8x H100 (80 GB SXM5)", "SXM"),
        ("H100 PCIE", "PCIe"),
        ("NVIDIA A100-SXM4-80GB", "SXM"),
        ("NVIDIA L4", None),
    ],
)
def test_the_form_factor_is_read_from_the_providers_gpu_name(raw, variant):
    got = pl.select(form_factor(pl.lit(raw))).item()
    assert got == variant


def test_every_extra_variant_names_an_existing_base_row():
    with (SEEDS / "seed_gpu_specs.csv").open(newline="") as fh:
        base = {(r["gpu_name"], float(r["gpu_memory_gib"])) for r in csv.DictReader(fh)}
    with (SEEDS / "seed_gpu_variants.csv").open(newline="") as fh:
        variants = list(csv.DictReader(fh))
    assert variants
    for row in variants:
        assert (row["gpu_name"], float(row["gpu_memory_gib"])) in base, row
        assert row["gpu_variant"] != row["base_variant"] and row["spec_source"].startswith("http")


def test_runpod_h100_pcie_is_costed_at_the_pcie_peak(con):
    peaks = dict(
        con.sql(
            """select instance_type, any_value(peak_tflops) from mart_cost_per_token
               where provider = 'runpod' and gpu_name = 'H100' group by all"""
        ).fetchall()
    )
    assert peaks == {"NVIDIA H100 PCIe": 756.0, "NVIDIA H100 80GB HBM3": 989.0}
    lambda_pcie = con.sql(
        """select gpu_variant from mart_gpu_offers_current
           where provider = 'lambdalabs' and instance_type = 'gpu_1x_h100_pcie'"""
    ).fetchall()
    assert lambda_pcie == [("PCIe",)]


def test_dim_gpus_keeps_one_row_per_name_and_memory(con):
    [(rows, keys)] = con.sql(
        "select count(*), count(distinct (gpu_name, gpu_memory_gib)) from dim_gpus"
    ).fetchall()
    assert rows == keys
    variants = con.sql(
        """select gpu_variant, is_default_variant, bf16_tflops from dim_gpu_variants
           where gpu_name = 'H100' and gpu_memory_gib = 80 order by gpu_variant"""
    ).fetchall()
    assert variants == [("PCIe", False, 756.0), ("SXM", True, 989.0)]


def test_an_estimate_prices_each_offer_at_its_own_variants_peak(demo_counted_warehouse):
    doc = cli_json(
        demo_counted_warehouse, "estimate", "train", "--params", "7e9", "--tokens", "1e11",
        "--gpu", "H100", "--pricing", "spot", "--gpus", "64",
    )  # fmt: skip
    offers = [doc["offer"], *doc["alternatives"]]
    assert {"PCIe", "SXM"} <= {o["gpu_variant"] for o in offers}  # RunPod's PCIe among them
    for offer in offers:
        expected = 756.0 if offer["gpu_variant"] == "PCIe" else 989.0
        assert offer.get("peak_tflops", doc["peak_tflops"]) == expected, offer
