"""Crusoe parse: raw VM-types and capacities pages -> canonical offers (pure Polars).

The API lists VM types and, per type and location, the capacity; it has no prices. A
GPU type is priced from the published per-GPU-hour table (settings.GPU_PRICES, with its
source and date): price = per-GPU price x `num_gpu` (Decimal). One on-demand offer, and
one spot offer where a spot price is published, per type and location whose capacity is
above 0. Types without a published price, CPU types and types with no capacity anywhere
are excluded with a reason.
"""

from __future__ import annotations

import polars as pl

from connectors.crusoe import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import MONEY, decimal, usd
from connectors.kit.normalise import cpu_only

TYPE = pl.Struct(
    {
        "product_name": pl.String,
        "gpu_type": pl.String,
        "num_gpu": pl.String,
        "cpu_cores": pl.String,
        "memory_gb": pl.String,
        "disk_gb": pl.String,
        "cpu_type": pl.String,
    }
)
CAPACITY = pl.Struct({"type": pl.String, "location": pl.String, "quantity": pl.String})
TABLE = pl.DataFrame(
    [(t, od, spot) for t, (od, spot) in s.GPU_PRICES.items()],
    schema={"gpu_type": pl.String, "_od": pl.String, "_spot": pl.String},
    orient="row",
)


def _locations(pages: pl.DataFrame) -> pl.DataFrame:
    """Per VM type, the locations listing capacity above 0, each with its quantity (the
    instances available there: an offer's `capacity_instances`)."""
    caps = explode_pages(
        pages.filter(pl.col("endpoint") == s.CAPACITIES),
        pl.Struct({"items": pl.List(CAPACITY)}),
        "items",
        allow_empty=True,  # no capacity anywhere is an empty list
    ).with_columns(_quantity=decimal(pl.col("quantity")))
    return (
        caps.filter(pl.col("_quantity") > 0)
        .group_by("type", "location")
        .agg(pl.col("_quantity").max())
        .sort("type", "location")
        .group_by("type", maintain_order=True)
        .agg(pl.struct(pl.col("location").alias("name"), pl.col("_quantity").alias("quantity"))
             .alias("_locations"))
        .rename({"type": "product_name"})
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    types = (
        explode_pages(
            pages.filter(pl.col("endpoint") == s.VM_TYPES),
            pl.Struct({"items": pl.List(TYPE)}),
            "items",
        )
        .join(TABLE, on="gpu_type", how="left")
        .join(_locations(pages), on="product_name", how="left")
    )
    gpus = decimal(pl.col("num_gpu"))
    excluded = (
        pl.when(cpu_only(gpus, pl.col("gpu_type")))
        .then(pl.lit(s.EXCLUDE_CPU))
        .when(pl.col("_od").is_null())
        .then(pl.format("{} ({})", pl.lit(s.EXCLUDE_NO_PRICE), pl.col("gpu_type")))
        .when(pl.col("_locations").list.len().fill_null(0) == 0)
        .then(pl.lit(s.EXCLUDE_NO_CAPACITY))
    )
    types = types.with_columns(_excluded=excluded).with_columns(
        _region=pl.when(pl.col("_excluded").is_null()).then(pl.col("_locations"))
    )
    on_demand = types.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        _per_gpu=pl.col("_od"),
    )
    spot = types.filter(pl.col("_spot").is_not_null()).with_columns(
        pricing_model=pl.lit("spot"), pricing_detail=pl.lit(s.SPOT_DETAIL), _per_gpu=pl.col("_spot")
    )
    rows = (
        pl.concat([on_demand, spot])
        .explode("_region", empty_as_null=True, keep_nulls=True)
        .with_columns(
            _capacity=pl.col("_region").struct.field("quantity"),
            _region=pl.col("_region").struct.field("name"),
        )
    )
    per_gpu = decimal(pl.col("_per_gpu"))
    price = per_gpu * gpus.cast(MONEY)
    rejected = pl.when(pl.col("product_name").is_null()).then(pl.lit("missing field product_name"))
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_region", pl.lit("any")),
        instance_type=pl.col("product_name"),
        # `gpu_type` ("H100-SXM-80GB", "A100-PCIe-40GB"): the GPU, memory and form factor
        # as the shared GPU rule reads them (common/gpu.py)
        gpu_text=pl.col("gpu_type"),
        gpu_count=usd(gpus),
        capacity_instances=usd(pl.col("_capacity")),
        vcpus=usd(decimal(pl.col("cpu_cores"))),
        memory_gib=usd(decimal(pl.col("memory_gb"))),
        price_usd_per_hour=usd(price),
        source_price=usd(per_gpu),
        source_unit=pl.lit(f"USD per GPU-hour ({s.PRICES_SOURCE}, {s.PRICES_AS_OF})"),
        _rejected=rejected,
    )
