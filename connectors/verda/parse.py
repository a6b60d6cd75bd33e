"""Verda parse: raw instance-types and locations pages -> canonical offers (pure Polars).

`price_per_hour` and `spot_price` are strings, USD per hour for the whole instance (all
its GPUs). Each GPU instance type becomes an on-demand offer and, where `spot_price` is
given, a spot offer, in every location listed by `/locations` (prices do not vary by
location). CPU-only types are excluded with a reason; an unmapped GPU keeps gpu_name
null (counted). Prices are decoded as text and cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd
from connectors.kit.normalise import cpu_only
from connectors.verda import settings as s

_SIZE = pl.Struct({"description": pl.String, "size_in_gigabytes": pl.String})
TYPE = pl.Struct(
    {
        "id": pl.String,
        "instance_type": pl.String,
        "price_per_hour": pl.String,
        "spot_price": pl.String,
        "currency": pl.String,
        "cpu": pl.Struct({"description": pl.String, "number_of_cores": pl.String}),
        "gpu": pl.Struct({"description": pl.String, "number_of_gpus": pl.String}),
        "memory": _SIZE,
        "gpu_memory": _SIZE,
    }
)
LOCATION = pl.Struct({"code": pl.String, "name": pl.String, "country_code": pl.String})


def _bare(pages: pl.DataFrame, endpoint: str, dtype: pl.Struct) -> pl.DataFrame:
    """Items of the bare-array pages of one endpoint (wrapped for the shared decoder)."""
    wrapped = pages.filter(pl.col("endpoint") == endpoint).with_columns(
        payload=pl.concat_str(pl.lit('{"items":'), pl.col("payload"), pl.lit("}"))
    )
    return explode_pages(wrapped, pl.Struct({"items": pl.List(dtype)}), "items")


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    types = _bare(pages, s.INSTANCE_TYPES, TYPE)
    codes = _bare(pages, s.LOCATIONS, LOCATION).select("code").drop_nulls().unique().sort("code")
    if codes.is_empty():
        codes = pl.DataFrame({"code": [s.NO_LOCATION_REGION]})
    gpus = decimal(pl.col("gpu").struct.field("number_of_gpus"))
    on_demand = types.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        _raw=pl.col("price_per_hour"),
        _field=pl.lit("price_per_hour"),
    )
    spot = types.filter(pl.col("spot_price").is_not_null()).with_columns(
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.lit(s.SPOT_DETAIL),
        _raw=pl.col("spot_price"),
        _field=pl.lit("spot_price"),
    )
    rows = pl.concat([on_demand, spot]).join(codes, how="cross")
    price = decimal(pl.col("_raw"))
    excluded = pl.when(cpu_only(gpus, pl.col("gpu").struct.field("description"))).then(
        pl.lit(s.EXCLUDE_CPU_ONLY)
    )
    rejected = (
        pl.when(pl.col("instance_type").is_null())
        .then(pl.lit("missing field instance_type"))
        .when(price.is_null())
        .then(pl.format("{} {} is not a number", pl.col("_field"), pl.col("_raw")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.col("code"),
        # `gpu.description` ("1x H100 SXM5 80GB", "8x B300 SXM6 268GB"): the GPU, its memory
        # (snapped to the marketed size) and form factor, as the shared GPU rule reads them
        gpu_text=pl.col("gpu").struct.field("description"),
        gpu_count=usd(gpus),
        vcpus=usd(decimal(pl.col("cpu").struct.field("number_of_cores"))),
        memory_gib=usd(decimal(pl.col("memory").struct.field("size_in_gigabytes"))),
        price_usd_per_hour=usd(price),
        source_currency=pl.col("currency").str.to_uppercase(),
        source_price=usd(price),
        source_unit=pl.format("{} per hour ({}, whole instance)", pl.col("currency"), pl.col("_field")),
        _excluded=excluded,
        _rejected=rejected,
    )
