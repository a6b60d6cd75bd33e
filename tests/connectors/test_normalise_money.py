"""The shared normalise rounds money to the nano-dollar: float division noise is gone
from every published price, exact source prices are untouched."""

from __future__ import annotations

from datetime import datetime

import polars as pl

from connectors.kit.normalise import MONEY_DECIMALS, normalise


def offer(price: float, gpus: float, name: str = "x") -> dict:
    return {
        "provider": "test",
        "region": "r",
        "instance_type": name,
        "pricing_model": "on_demand",
        "gpu_count": gpus,
        "price_usd_per_hour": price,
        "fetched_at": datetime(2026, 11, 20, 2),
        "load_id": "l",
        "endpoint": "e",
    }


def published(*rows: dict) -> list[tuple[float, float]]:
    frame = pl.DataFrame(list(rows))
    return normalise(frame).offers.select("price_usd_per_hour", "price_usd_per_gpu_hour").rows()


def test_float_noise_is_rounded_away_in_both_prices():
    noisy = pl.Series([69.0]).__truediv__(100)[0]  # Polars: 0.6900000000000001
    assert noisy != 0.69
    assert published(offer(noisy, 1), offer(0.1 + 0.2, 1, "y")) == [(0.69, 0.69), (0.3, 0.3)]


def test_per_gpu_division_is_rounded_to_nine_decimals():
    # 1 / 3 = 0.333333333 (9 decimals); 27.197 / 8 = 3.399625 exactly
    assert MONEY_DECIMALS == 9
    assert published(offer(1.0, 3), offer(27.197, 8, "y")) == [
        (1.0, 0.333333333),
        (27.197, 3.399625),
    ]


def test_exact_nano_priced_sums_are_kept_as_they_are():
    # a GCP composed machine: 208 x 0.02152 + 1872 x 0.00266234 + 8 x 4.2007612
    assert published(offer(43.06615008, 8)) == [(43.06615008, 5.38326876)]
