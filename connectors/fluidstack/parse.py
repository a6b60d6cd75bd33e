"""FluidStack parse: raw configurations pages -> canonical offers (pure Polars).

Each configuration prices one GPU type per GPU-hour (`price_per_gpu_hr`, sold in the
counts of `gpu_counts`) in the regions of `regions`: one on-demand offer of one GPU per
GPU type and region (instance_type = the GPU type), as RunPod's per-GPU list prices are.
Memory per GPU is the "<n>GB" suffix of the type. Prices cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.fluidstack import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd

ITEM = pl.Struct(
    {
        "gpu_type": pl.String,
        "gpu_counts": pl.List(pl.String),
        "price_per_gpu_hr": pl.String,
        "regions": pl.List(pl.String),
    }
)


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    wrapped = pages.filter(pl.col("endpoint") == s.ENDPOINT).with_columns(
        payload=pl.concat_str(pl.lit('{"items":'), pl.col("payload"), pl.lit("}"))
    )
    items = explode_pages(wrapped, pl.Struct({"items": pl.List(ITEM)}), "items")
    excluded = pl.when(pl.col("regions").list.len().fill_null(0) == 0).then(
        pl.lit("GPU type listed in no region")
    )
    rows = (
        items.with_columns(_excluded=excluded)
        .with_columns(_region=pl.when(pl.col("_excluded").is_null()).then(pl.col("regions")))
        .explode("_region", empty_as_null=True, keep_nulls=True)
    )
    price = decimal(pl.col("price_per_gpu_hr"))
    rejected = (
        pl.when(pl.col("gpu_type").is_null())
        .then(pl.lit("missing field gpu_type"))
        .when(price.is_null())
        .then(pl.format("price_per_gpu_hr {} is not a number", pl.col("price_per_gpu_hr")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_region", pl.lit("any")),
        instance_type=pl.col("gpu_type"),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        # the GPU, its memory and form factor are read from gpu_type ("H100_PCIE_80GB")
        # by the shared GPU rule (common/gpu.py)
        gpu_text=pl.col("gpu_type"),
        gpu_count=pl.lit(1.0),
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.lit("USD per GPU-hour (price_per_gpu_hr)"),
        _rejected=rejected,
    )
