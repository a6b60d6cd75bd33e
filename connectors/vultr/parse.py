"""Vultr parse: raw plan pages -> canonical offers (pure Polars).

Cloud GPU plans (`type` vcg) and bare-metal GPU plans become one on-demand offer per
location at `hourly_cost` (the whole plan, USD); bare metal also gets a spot offer at
`hourly_cost_preemptible` where it is given. The GPU count of a Cloud GPU plan is its
`gpu_vram_gb` over the GPU's marketed memory; a plan below one whole GPU (a vGPU share)
is excluded. Bare-metal plans carry count and GPU in their id. Prices are decoded as
text and cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from common import gpu
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd
from connectors.vultr import settings as s

_COMMON = {
    "id": pl.String,
    "ram": pl.String,
    "disk": pl.String,
    "monthly_cost": pl.String,
    "hourly_cost": pl.String,
    "type": pl.String,
    "locations": pl.List(pl.String),
}
PLAN = pl.Struct(
    {**_COMMON, "vcpu_count": pl.String, "gpu_vram_gb": pl.String, "gpu_type": pl.String}
)
METAL = pl.Struct(
    {
        **_COMMON,
        "cpu_threads": pl.String,
        "hourly_cost_preemptible": pl.String,
        "monthly_cost_preemptible": pl.String,
    }
)
MIB_PER_GIB = 1024


def _cloud_gpu(pages: pl.DataFrame) -> pl.DataFrame:
    plans = explode_pages(
        pages.filter(pl.col("endpoint") == s.PLANS), pl.Struct({"plans": pl.List(PLAN)}), "plans"
    )
    # the GPU of "NVIDIA_A100", "AMD_MI300X" and its memory, as the shared GPU rule gives them
    plans = gpu.identified(plans, s.PROVIDER, "id", "gpu_type")
    share = decimal(pl.col("gpu_vram_gb")) / pl.col("gpu_memory_gib").cast(pl.Decimal(38, 9))
    excluded = (
        pl.when(pl.col("type") != "vcg")
        .then(pl.lit(s.EXCLUDE_NOT_GPU_PLAN))
        .when(share < 1)
        .then(pl.lit(s.EXCLUDE_FRACTIONAL))
    )
    return plans.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        _raw=pl.col("hourly_cost"),
        _field=pl.lit("hourly_cost"),
        _gpus=share.floor(),
        vcpus=usd(decimal(pl.col("vcpu_count"))),
        _excluded=excluded,
    )


def _bare_metal(pages: pl.DataFrame) -> pl.DataFrame:
    plans = explode_pages(
        pages.filter(pl.col("endpoint") == s.PLANS_METAL),
        pl.Struct({"plans_metal": pl.List(METAL)}),
        "plans_metal",
    )
    parts = pl.col("id").str.extract_groups(s.METAL_GPU_PATTERN)
    plans = plans.with_columns(
        _token=parts.struct.field("2"),
        _gpus=pl.when(parts.struct.field("2").is_not_null()).then(
            decimal(pl.coalesce(parts.struct.field("1"), pl.lit("1")))
        ),
    )
    # "h100", "l40" (an L40S machine: its instance family)
    plans = gpu.identified(plans, s.PROVIDER, "id", "_token")
    common = {
        "vcpus": usd(decimal(pl.col("cpu_threads"))),
        "_excluded": pl.when(pl.col("_token").is_null()).then(pl.lit(s.EXCLUDE_CPU_METAL)),
    }
    on_demand = plans.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        _raw=pl.col("hourly_cost"),
        _field=pl.lit("hourly_cost"),
        **common,
    )
    spot = plans.filter(decimal(pl.col("hourly_cost_preemptible")) > 0).with_columns(
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.lit(s.PREEMPTIBLE_DETAIL),
        _raw=pl.col("hourly_cost_preemptible"),
        _field=pl.lit("hourly_cost_preemptible"),
        **common,
    )
    return pl.concat([on_demand, spot])


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    keep = ["endpoint", "load_id", "fetched_at", "_item", "id", "ram", "locations",
            "pricing_model", "pricing_detail", "_raw", "_field", "_gpus", "gpu_name",
            "gpu_memory_gib", "gpu_variant",
            "vcpus", "_excluded"]  # fmt: skip
    plans = pl.concat(
        [_cloud_gpu(pages).select(keep), _bare_metal(pages).select(keep)], how="vertical_relaxed"
    )
    no_location = pl.col("locations").list.len().fill_null(0) == 0
    excluded = pl.coalesce(
        "_excluded", pl.when(no_location).then(pl.lit("no location offers this plan"))
    )
    rows = (
        plans.with_columns(_excluded=excluded)
        .with_columns(_region=pl.when(pl.col("_excluded").is_null()).then(pl.col("locations")))
        .explode("_region", empty_as_null=True, keep_nulls=True)
    )
    price = decimal(pl.col("_raw"))
    rejected = (
        pl.when(pl.col("id").is_null())
        .then(pl.lit("missing field id"))
        .when(price.is_null())
        .then(pl.format("{} {} is not a number", pl.col("_field"), pl.col("_raw")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_region", pl.lit("any")),
        instance_type=pl.col("id"),
        gpu_count=usd(pl.col("_gpus")),
        memory_gib=usd(decimal(pl.col("ram"))) / MIB_PER_GIB,
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.format("USD per hour ({}, whole plan)", pl.col("_field")),
        _rejected=rejected,
    )
