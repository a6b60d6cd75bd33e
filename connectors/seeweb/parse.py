"""Seeweb parse: raw plans pages -> canonical offers (pure Polars).

A GPU plan (`gpu` > 0) is one on-demand offer per region of `available_regions` at
`hourly_price` (the whole plan). Prices are EUR (settings.SOURCE_CURRENCY): the shared
normalise step converts them with the recorded rate (sql/seeds/seed_fx_rates.csv), or
quarantines them when none is recorded. Prices are decoded as text and cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd
from connectors.kit.normalise import cpu_only
from connectors.seeweb import settings as s

PLAN = pl.Struct(
    {
        "id": pl.String,
        "name": pl.String,
        "cpu": pl.String,
        "ram": pl.String,
        "disk": pl.String,
        "gpu": pl.String,
        "gpu_label": pl.String,
        "hourly_price": pl.String,
        "available": pl.Boolean,
        "available_regions": pl.List(pl.Struct({"location": pl.String})),
    }
)
PAGE = pl.Struct({"plans": pl.List(PLAN)})
MIB_PER_GIB = 1024


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    plans = (
        explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "plans")
    )
    gpus = decimal(pl.col("gpu"))
    regions = (
        pl.col("available_regions")
        .list.eval(pl.element().struct.field("location").str.strip_chars())
        .list.unique(maintain_order=True)
    )
    excluded = (
        pl.when(cpu_only(gpus, pl.col("gpu_label")))
        .then(pl.lit(s.EXCLUDE_CPU))
        .when(~pl.col("available").fill_null(True))
        .then(pl.lit(s.EXCLUDE_INACTIVE))
        .when(regions.list.len().fill_null(0) == 0)
        .then(pl.lit(s.EXCLUDE_NO_REGION))
    )
    rows = (
        plans.with_columns(_excluded=excluded)
        .with_columns(_region=pl.when(pl.col("_excluded").is_null()).then(regions))
        .explode("_region", empty_as_null=True, keep_nulls=True)
    )
    price = decimal(pl.col("hourly_price"))
    rejected = (
        pl.when(pl.col("name").is_null())
        .then(pl.lit("missing field name"))
        .when(price.is_null())
        .then(pl.format("hourly_price {} is not a number", pl.col("hourly_price")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_region", pl.lit("any")),
        instance_type=pl.col("name"),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        gpu_text=pl.col("gpu_label"),  # "H100 80GB": named by the shared GPU rule
        gpu_count=usd(gpus),
        vcpus=usd(decimal(pl.col("cpu"))),
        memory_gib=usd(decimal(pl.col("ram"))) / MIB_PER_GIB,
        # amounts in EUR here: the shared normalise step converts them with the recorded
        # rate (connectors/kit/fx.py) and notes the rate in source_unit
        price_usd_per_hour=usd(price),
        source_currency=pl.lit(s.SOURCE_CURRENCY),
        source_price=usd(price),
        source_unit=pl.lit(f"{s.SOURCE_CURRENCY} per hour (hourly_price, whole plan)"),
        _rejected=rejected,
    )
