"""Seeweb parse (connectors.seeweb.parse) through the shared normalise step: EUR plan
prices converted with the recorded rate (sql/seeds/seed_fx_rates.csv), and quarantined
with the currency named when no rate is recorded."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit import fx as kit_fx
from connectors.kit.normalise import normalise
from connectors.seeweb import parse


@pytest.fixture
def body(recorded):
    return recorded("seeweb", "plans.json")


def run(pages_frame, body):
    return normalise(parse.parse(pages_frame("plans", body)))


def test_eur_prices_convert_with_the_recorded_rate_and_say_so(pages_frame, body):
    (eur,) = kit_fx.rates().filter(pl.col("currency") == "EUR").rows(named=True)
    assert (eur["usd_per_unit"], str(eur["as_of"])) == (1.1463, "2026-09-22")
    offers = run(pages_frame, body).offers
    a100 = offers.filter(pl.col("instance_type") == "ECS2GPU3").row(0, named=True)
    # 1.98 EUR/h x 1.1463 USD/EUR = 2.269674 USD/h for 2 x A100 80 GB -> 1.134837 per GPU
    assert (a100["price_usd_per_hour"], a100["price_usd_per_gpu_hour"]) == (2.269674, 1.134837)
    assert (a100["source_currency"], a100["source_price"]) == ("EUR", 1.98)
    assert (a100["gpu_name"], a100["gpu_memory_gib"], a100["gpu_count"]) == ("A100", 80.0, 2.0)
    assert (a100["vcpus"], a100["memory_gib"]) == (32.0, 240.0)
    assert a100["source_unit"] == (
        "EUR per hour (hourly_price, whole plan); converted to USD at 1.1463 USD per EUR, "
        "reference rate of 2026-09-22 (ECB euro foreign exchange reference rates)"
    )
    l40s = offers.filter(pl.col("instance_type") == "ECS1GPU7")
    assert sorted(l40s["region"]) == ["it-fr2", "it-mi2"]
    assert set(l40s["gpu_name"]) == {"L40S"}  # "L40s 48GB", matched case-insensitively
    assert offers.height == 5 and set(offers["pricing_model"]) == {"on_demand"}


def test_without_a_recorded_eur_rate_every_price_is_quarantined_naming_eur(
    pages_frame, body, tmp_path, monkeypatch
):
    csv = tmp_path / "seed_fx_rates.csv"
    csv.write_text("currency,usd_per_unit,as_of,source\nGBP,1.3,2026-09-22,test rate\n")
    monkeypatch.setattr(kit_fx, "RATES_CSV", csv)
    res = run(pages_frame, body)
    assert res.offers.is_empty()
    # L40S in 2 regions, A100 x2, MI300X and H100 in 1 each
    assert res.rejected["reason"].to_list() == [
        "non-USD price in EUR and no recorded conversion rate "
        "(sql/seeds/seed_fx_rates.csv has no EUR row)"
    ] * 5
    assert '"hourly_price":"1.98"' in res.rejected["record"].str.join("").item()


def test_cpu_plans_are_excluded(pages_frame, body):
    excluded = dict(run(pages_frame, body).excluded.select("reason", "n").rows())
    assert excluded == {"CPU-only plan (no GPU)": 1}


def test_a_price_that_is_not_a_number_is_quarantined_with_it(pages_frame, body):
    body["plans"][0]["hourly_price"] = "0,85"
    reasons = set(run(pages_frame, body).rejected["reason"])
    assert "hourly_price 0,85 is not a number" in reasons
