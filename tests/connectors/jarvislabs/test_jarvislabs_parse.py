"""JarvisLabs parse (connectors.jarvislabs.parse) on gpuhunt's recorded server_meta."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.jarvislabs import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def body(recorded):
    return recorded("jarvislabs", "server_meta.json")


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("server_meta", body)))


def test_a_row_is_one_gpu_at_its_per_gpu_price_with_its_host_share(pages_frame, body):
    offers = run(pages_frame, body).offers
    a100 = (
        offers.filter(pl.col("instance_type") == "A100-80GB")
        .filter(pl.col("pricing_model") == "on_demand")
        .row(0, named=True)
    )
    assert (a100["gpu_name"], a100["gpu_memory_gib"], a100["gpu_count"]) == ("A100", 80.0, 1.0)
    assert (a100["price_usd_per_hour"], a100["vcpus"], a100["memory_gib"]) == (1.49, 28.0, 112.0)
    assert (a100["region"], a100["pricing_detail"]) == ("india-noida-01", "vm")


def test_vm_and_container_rows_are_separate_offers_and_spot_is_kept(pages_frame, body):
    l4 = run(pages_frame, body).offers.filter(pl.col("gpu_name") == "L4")
    assert sorted(l4.select("pricing_model", "pricing_detail", "price_usd_per_hour").rows()) == [
        ("on_demand", "container", 0.44),
        ("on_demand", "vm", 0.44),
        ("spot", "container spot", 0.29),
        ("spot", "vm spot", 0.29),
    ]


def test_a_row_without_a_workload_is_a_vm_and_both_rtx_pro_spellings_map(pages_frame, body):
    offers = run(pages_frame, body).offers
    h100 = offers.filter((pl.col("gpu_name") == "H100") & (pl.col("region") == "europe-01"))
    assert h100.select("pricing_detail", "price_usd_per_gpu_hour").rows() == [("vm", 2.99)]
    pro = offers.filter(pl.col("gpu_name") == "RTX PRO 6000")
    assert sorted(set(pro["instance_type"])) == ["RTX PRO 6000", "RTX-PRO6000"]
    assert set(pro["gpu_memory_gib"]) == {96.0}


def test_a_price_that_is_not_a_number_is_quarantined(pages_frame, body):
    body["server_meta"][2]["price_per_hour"] = "TBD"
    res = run(pages_frame, body)
    assert res.rejected["reason"].to_list() == ["price_per_hour TBD is not a number"]


def test_an_unmapped_gpu_type_is_kept_with_gpu_name_null(pages_frame, body):
    body["server_meta"][0]["gpu_type"] = "A800"  # not in the GPU reference
    res = run(pages_frame, body)
    assert res.unknown_gpu["n"].sum() == 2  # its on-demand and spot rows
