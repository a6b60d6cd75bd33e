"""OCI parse (connectors.oci.parse) on the recorded-shape price list page."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.oci import parse


@pytest.fixture
def body(recorded):
    return recorded("oci", "products.json")


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("products", body)))


def one(rows, shape, model="on_demand") -> dict:
    return rows.filter((pl.col("instance_type") == shape) & (pl.col("pricing_model") == model)).row(
        0, named=True
    )


def test_a_shape_costs_its_part_price_per_gpu_times_its_gpu_count(pages_frame, body):
    row = one(run(pages_frame, body).offers, "BM.GPU.H100.8")
    # B98415 10.00 USD per GPU-hour x 8 GPUs = 80.00 USD/h
    assert (row["price_usd_per_hour"], row["price_usd_per_gpu_hour"]) == (80.0, 10.0)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("H100", 80.0, 8.0)
    assert (row["vcpus"], row["memory_gib"]) == (224.0, 2048.0)
    assert (row["region"], row["source_unit"]) == ("global", "GPU Per Hour (B98415)")


def test_every_shape_using_a_part_gets_its_own_offer(pages_frame, body):
    rows = run(pages_frame, body).offers.filter(pl.col("pricing_model") == "on_demand")
    a10 = rows.filter(pl.col("gpu_name") == "A10").sort("gpu_count")
    assert a10.select("instance_type", "price_usd_per_hour").rows() == [
        ("VM.GPU.A10.1", 2.0),
        ("VM.GPU.A10.2", 4.0),
        ("BM.GPU.A10.4", 8.0),
    ]


def test_preemptible_is_half_price_and_only_where_the_shape_allows_it(pages_frame, body):
    offers = run(pages_frame, body).offers
    spot = offers.filter(pl.col("pricing_model") == "spot")
    assert sorted(spot["instance_type"]) == [
        "BM.GPU.A10.4",
        "BM.GPU.A100-v2.8",
        "VM.GPU.A10.1",
        "VM.GPU.A10.2",
    ]
    a100 = one(offers, "BM.GPU.A100-v2.8", "spot")
    assert (a100["price_usd_per_gpu_hour"], a100["price_usd_per_hour"]) == (2.0, 16.0)
    assert a100["pricing_detail"] == "preemptible (50% of on-demand, documented)"
    assert offers.filter(
        (pl.col("instance_type") == "BM.GPU.H100.8") & (pl.col("pricing_model") == "spot")
    ).is_empty()


def test_licences_on_premises_rows_and_per_node_tiers_are_excluded_with_reasons(pages_frame, body):
    excluded = dict(run(pages_frame, body).excluded.select("reason", "n").rows())
    assert excluded == {
        "NVIDIA AI Enterprise software licence billed per GPU-hour, not a GPU rental": 1,
        "Compute Cloud@Customer: on-premises appliance pricing, not public cloud": 1,
        "GPU category row not billed per GPU-hour (e.g. VMware per-node tiers)": 1,
    }


def test_non_gpu_products_are_not_read(pages_frame, body):
    rows = parse.parse(pages_frame("products", body))
    assert "B97384" not in rows["partNumber"].to_list()


def others(rejected: pl.DataFrame) -> list[str]:
    """The rejection reasons besides the fixture's unmapped H100T part (always quarantined)."""
    return rejected.filter(~pl.col("reason").str.contains("B109480"))["reason"].to_list()


def test_a_gpu_part_no_shape_uses_is_quarantined_not_guessed(pages_frame, body):
    res = run(pages_frame, body)
    assert res.offers.filter(pl.col("instance_type") == "B109480").is_empty()
    (reason,) = res.rejected.filter(pl.col("reason").str.contains("B109480"))["reason"]
    assert reason.startswith(
        "part B109480 ('OCI - Compute - GPU - H100T') is a GPU-hour rental no shape"
    )
    assert "never guessed" in reason
    assert res.unknown_gpu["n"].sum() == 0


def test_a_part_whose_name_no_longer_names_its_gpu_is_quarantined(pages_frame, body):
    body["items"][1]["displayName"] = "OCI - Compute - GPU - B300"  # B98415, mapped to H100
    res = run(pages_frame, body)
    assert res.offers.filter(pl.col("instance_type") == "BM.GPU.H100.8").is_empty()
    (reason,) = others(res.rejected)
    assert reason.startswith("part B98415 is mapped to BM.GPU.H100.8 but its displayName")


def test_a_price_in_another_currency_is_rejected_without_a_rate(pages_frame, body):
    body["items"][1]["currencyCodeLocalizations"][0]["currencyCode"] = "CHF"
    res = run(pages_frame, body)
    assert others(res.rejected) == [
        "non-USD price in CHF and no recorded conversion rate "
        "(sql/seeds/seed_fx_rates.csv has no CHF row)"
    ]


def test_tiered_pay_as_you_go_prices_are_ambiguous_and_quarantined(pages_frame, body):
    prices = body["items"][2]["currencyCodeLocalizations"][0]["prices"]
    prices.append({"model": "PAY_AS_YOU_GO", "value": 3.5})
    res = run(pages_frame, body)
    assert set(others(res.rejected)) == {
        "part B95907: 2 PAY_AS_YOU_GO prices (tiered), ambiguous"
    }
