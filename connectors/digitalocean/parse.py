"""DigitalOcean parse: raw sizes pages -> canonical offers (pure Polars).

A GPU Droplet size (`gpu_info` present) becomes one on-demand offer per region slug at
`price_hourly` (the whole Droplet, USD); per GPU = price / `gpu_info.count`. CPU sizes are
excluded once per size, unavailable sizes once per size, both with a reason. Prices are
decoded as text and cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.digitalocean import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd

SIZE = pl.Struct(
    {
        "slug": pl.String,
        "memory": pl.String,
        "vcpus": pl.String,
        "price_hourly": pl.String,
        "price_monthly": pl.String,
        "regions": pl.List(pl.String),
        "available": pl.Boolean,
        "description": pl.String,
        "gpu_info": pl.Struct(
            {
                "count": pl.String,
                "vram": pl.Struct({"amount": pl.String, "unit": pl.String}),
                "model": pl.String,
            }
        ),
    }
)
PAGE = pl.Struct({"sizes": pl.List(SIZE)})
MIB_PER_GIB = 1024


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    sizes = (
        explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "sizes")
        .unique("slug", keep="first", maintain_order=True)  # a size repeated across pages
        .with_columns(_model=pl.col("gpu_info").struct.field("model"))
    )
    is_gpu = pl.col("gpu_info").is_not_null()
    usable = pl.col("available").fill_null(True) & (pl.col("regions").list.len() > 0)
    excluded = (
        pl.when(~is_gpu)
        .then(pl.lit(s.EXCLUDE_CPU))
        .when(~usable.fill_null(False))
        .then(pl.lit(s.EXCLUDE_UNAVAILABLE))
    )
    rows = (
        sizes.with_columns(_excluded=excluded)
        .with_columns(
            _region=pl.when(pl.col("_excluded").is_null()).then(pl.col("regions"))
        )
        .explode("_region", empty_as_null=True, keep_nulls=True)
    )
    price = decimal(pl.col("price_hourly"))
    gpus = decimal(pl.col("gpu_info").struct.field("count"))
    rejected = (
        pl.when(pl.col("slug").is_null())
        .then(pl.lit("missing field slug"))
        .when(price.is_null())
        .then(pl.format("price_hourly {} is not a number", pl.col("price_hourly")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_region", pl.lit("any")),
        instance_type=pl.col("slug"),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        # `gpu_info.model` ("nvidia_h100", "nvidia_rtx6000_ada"): the GPU is named by the
        # shared GPU rule (common/gpu.py), the size slug read where it is null
        gpu_text=pl.col("_model"),
        gpu_count=usd(gpus),
        vcpus=usd(decimal(pl.col("vcpus"))),
        memory_gib=usd(decimal(pl.col("memory"))) / MIB_PER_GIB,
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.lit("USD per hour (price_hourly, whole Droplet)"),
        _rejected=rejected,
    )
