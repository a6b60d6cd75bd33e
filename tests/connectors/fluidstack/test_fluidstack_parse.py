"""FluidStack parse (connectors.fluidstack.parse) on the consumer-read configurations shape."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.fluidstack import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def body(recorded):
    return recorded("fluidstack", "configurations.json")["response"]


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("configurations", body)))


def test_a_gpu_type_is_one_gpu_per_region_at_its_per_gpu_price(pages_frame, body):
    offers = run(pages_frame, body).offers
    h100 = offers.filter(pl.col("instance_type") == "H100_SXM5_80GB").sort("region")
    assert h100.select(
        "region", "gpu_name", "gpu_memory_gib", "gpu_count", "price_usd_per_hour"
    ).rows() == [
        ("canada_1_na", "H100", 80.0, 1.0, 2.1),
        ("norway_4_eu", "H100", 80.0, 1.0, 2.1),
    ]


def test_a_string_price_is_cast_exactly(pages_frame, body):
    row = run(pages_frame, body).offers.filter(pl.col("gpu_name") == "RTX A6000").row(0, named=True)
    assert (row["price_usd_per_gpu_hour"], row["gpu_memory_gib"]) == (0.55, 48.0)


def test_types_are_named_from_their_words_and_region_less_types_excluded(pages_frame, body):
    res = run(pages_frame, body)
    assert res.unknown_gpu["n"].sum() == 0
    # the Quadro is named; its stated 16 GB is not the reference's 24 GB card, so it is
    # left without a memory rather than made the 24 GB card
    quadro = res.offers.filter(pl.col("instance_type") == "Quadro_RTX_6000_16GB")
    assert quadro.select("gpu_name", "gpu_memory_gib").rows() == [("QUADRO RTX 6000", None)]
    assert dict(res.excluded.select("reason", "n").rows()) == {"GPU type listed in no region": 1}


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, body):
    body[1]["price_per_gpu_hr"] = "n/a"
    assert run(pages_frame, body).rejected["reason"].to_list() == [
        "price_per_gpu_hr n/a is not a number"
    ]



def test_the_form_factor_in_the_gpu_type_is_the_offers_variant(pages_frame, body):
    offers = run(pages_frame, body).offers
    variants = dict(offers.select("instance_type", "gpu_variant").unique().rows())
    # "A100_PCIE_80GB": the form factor sits between underscores
    assert variants["A100_PCIE_80GB"] == "PCIe"
    assert variants["H100_SXM5_80GB"] == "SXM"
