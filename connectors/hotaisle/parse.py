"""Hot Aisle parse: raw available-VM pages -> canonical offers (pure Polars).

Each item is a VM configuration: `OnDemandPrice` in US cents per hour for the whole VM,
and `Specs` (cpu_cores, ram_capacity in bytes, gpus[{count, model}]). One on-demand offer
per item in Hot Aisle's single location; instance_type is built from the specs
("1x MI300X 13c") since the API gives configurations no name. Prices cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.hotaisle import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd
from connectors.kit.normalise import cpu_only
from models.conventions import BYTES_PER_GIB

SPECS = pl.Struct(
    {
        "cpu_cores": pl.String,
        "ram_capacity": pl.String,
        "disk_capacity": pl.String,
        "cpus": pl.Struct({"model": pl.String, "count": pl.String}),
        "gpus": pl.List(pl.Struct({"count": pl.String, "model": pl.String})),
    }
)
ITEM = pl.Struct({"OnDemandPrice": pl.String, "Specs": SPECS})


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    wrapped = pages.filter(pl.col("endpoint") == s.ENDPOINT).with_columns(
        payload=pl.concat_str(pl.lit('{"items":'), pl.col("payload"), pl.lit("}"))
    )
    specs = pl.col("Specs")
    gpu = specs.struct.field("gpus").list.first()
    items = (
        explode_pages(wrapped, pl.Struct({"items": pl.List(ITEM)}), "items")
        .with_columns(_model=gpu.struct.field("model"), _gpus=decimal(gpu.struct.field("count")))
    )
    cents = decimal(pl.col("OnDemandPrice"))
    price = cents / pl.lit(s.CENTS_PER_USD).cast(pl.Decimal(38, 9))
    cores = specs.struct.field("cpu_cores")
    excluded = pl.when(cpu_only(pl.col("_gpus"), pl.col("_model"))).then(
        pl.lit("VM configuration without GPUs")
    )
    rejected = pl.when(cents.is_null()).then(
        pl.format("OnDemandPrice {} is not a number", pl.col("OnDemandPrice"))
    )
    return items.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.lit(s.REGION),
        instance_type=pl.format("{}x {} {}c", usd(pl.col("_gpus")).cast(pl.Int64), "_model", cores),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        gpu_text=pl.col("_model"),  # "MI300X": named by the shared GPU rule
        gpu_count=usd(pl.col("_gpus")),
        vcpus=usd(decimal(cores)),
        memory_gib=usd(decimal(specs.struct.field("ram_capacity"))) / BYTES_PER_GIB,
        price_usd_per_hour=usd(price),
        source_price=usd(cents),
        source_unit=pl.lit("US cents per hour (OnDemandPrice, whole VM)"),
        _excluded=excluded,
        _rejected=rejected,
    )
