"""Hyperstack parse (connectors.hyperstack.parse) on the documented pricebook shape."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.hyperstack import parse
from connectors.kit.normalise import normalise


@pytest.fixture
def body(recorded):
    return recorded("hyperstack", "pricebook.json")["response"]


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("pricebook", body)))


def offer(rows, name) -> dict:
    return rows.filter(pl.col("instance_type") == name).row(0, named=True)


def test_a_gpu_entry_is_one_gpu_at_its_pricebook_value(pages_frame, body):
    row = offer(run(pages_frame, body).offers, "RTX-A4000")  # the docs' example, 0.58
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("RTX A4000", 16.0, 1.0)
    assert (row["price_usd_per_hour"], row["price_usd_per_gpu_hour"]) == (0.58, 0.58)
    assert (row["pricing_model"], row["region"]) == ("on_demand", "global")


def test_form_factors_of_one_part_share_a_gpu_name(pages_frame, body):
    offers = run(pages_frame, body).offers.filter(pl.col("gpu_name") == "H100")
    assert sorted(offers["instance_type"]) == [
        "H100-80G-PCIe",
        "H100-80G-PCIe-spot",
        "H100-80G-SXM5",
    ]
    assert set(offers["gpu_memory_gib"]) == {80.0}


def test_a_spot_entry_is_the_spot_price_of_its_gpu(pages_frame, body):
    row = offer(run(pages_frame, body).offers, "H100-80G-PCIe-spot")
    assert (row["pricing_model"], row["pricing_detail"]) == ("spot", "spot VM")
    assert row["price_usd_per_gpu_hour"] == 1.52


def test_a_discounted_entry_charges_its_value_and_keeps_the_list_price_in_the_detail(
    pages_frame, body
):
    row = offer(run(pages_frame, body).offers, "A100-80G-PCIe")
    assert row["price_usd_per_gpu_hour"] == 1.2
    assert row["pricing_detail"] == "discount applied (list 1.35)"
    assert str(row["effective_at"]) == "2026-11-01 00:00:00"
    assert str(row["expires_at"]) == "2026-12-31 23:59:59"


def test_non_gpu_entries_and_expired_prices_are_excluded_with_reasons(pages_frame, body):
    excluded = dict(run(pages_frame, body).excluded.select("reason", "n").rows())
    assert excluded == {
        "host vCPU or RAM component price, not a GPU rental": 2,
        "storage price, not a GPU rental": 1,
        "network price, not a GPU rental": 1,
        "per-token model inference price, not a GPU rental": 1,
        "price period ended before the fetch (end_time)": 1,  # H200, ended 2026-10-01
    }


def test_a_gpu_outside_the_map_is_named_by_the_shared_rule(pages_frame, body):
    res = run(pages_frame, body)
    # not in Hyperstack's map: named by the shared GPU rule from the pricebook name
    row = offer(res.offers, "RTX-5090")
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("RTX 5090", 32.0)
    assert res.unknown_gpu["n"].sum() == 0


def test_a_value_that_is_not_a_number_is_quarantined_with_it(pages_frame, body):
    body[1]["value"] = "2,40"
    res = run(pages_frame, body)
    assert res.rejected["reason"].to_list() == ["value 2,40 is not a number"]
    assert res.offers.filter(pl.col("instance_type") == "H100-80G-SXM5").is_empty()


def test_prices_are_exact_decimals(pages_frame, body):
    body[0]["value"] = "0.69"  # a string price: cast exactly, never through float text
    row = offer(run(pages_frame, body).offers, "RTX-A4000")
    assert row["price_usd_per_hour"] == 0.69
