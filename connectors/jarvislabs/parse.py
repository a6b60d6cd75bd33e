"""JarvisLabs parse: raw server-meta pages -> canonical offers (pure Polars).

Each `server_meta` row prices one GPU of a type in a region for a workload (VM or
container): one on-demand offer per row at `price_per_hour` (per GPU, host share of
`cpus_per_gpu` vCPUs and `ram_per_gpu` GB included), and one spot offer where
`spot_price` is given. instance_type = the API's `gpu_type`; pricing_detail = the
workload. `cpu_meta` (CPU-only VMs) is not read. Prices are cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.jarvislabs import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd

ROW = pl.Struct(
    {
        "gpu_type": pl.String,
        "region": pl.String,
        "price_per_hour": pl.String,
        "spot_price": pl.String,
        "vram": pl.String,
        "cpus_per_gpu": pl.String,
        "ram_per_gpu": pl.String,
        "workload_type": pl.String,
        "num_gpus": pl.String,
        "num_free_devices": pl.String,
    }
)
PAGE = pl.Struct({"server_meta": pl.List(ROW)})


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    rows = explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "server_meta")
    workload = pl.col("workload_type").fill_null(s.NULL_WORKLOAD)
    on_demand = rows.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=workload,
        _raw=pl.col("price_per_hour"),
        _field=pl.lit("price_per_hour"),
    )
    spot = rows.filter(pl.col("spot_price").is_not_null()).with_columns(
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.format("{} spot", workload),
        _raw=pl.col("spot_price"),
        _field=pl.lit("spot_price"),
    )
    price = decimal(pl.col("_raw"))
    rejected = (
        pl.when(pl.col("gpu_type").is_null() | pl.col("region").is_null())
        .then(pl.lit("missing field gpu_type or region"))
        .when(price.is_null())
        .then(pl.format("{} {} is not a number", pl.col("_field"), pl.col("_raw")))
    )
    return pl.concat([on_demand, spot]).with_columns(
        provider=pl.lit(s.PROVIDER),
        instance_type=pl.col("gpu_type"),
        # the GPU from gpu_type ("A100-80GB", "A6000") and the memory the API states
        # (vram), named and snapped to the marketed size by the shared GPU rule
        gpu_text=pl.col("gpu_type"),
        gpu_memory_gib=usd(decimal(pl.col("vram"))).cast(pl.Float64),
        gpu_count=pl.lit(1.0),
        vcpus=usd(decimal(pl.col("cpus_per_gpu"))),
        memory_gib=usd(decimal(pl.col("ram_per_gpu"))),
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.format("USD per GPU-hour ({})", pl.col("_field")),
        _rejected=rejected,
    )
