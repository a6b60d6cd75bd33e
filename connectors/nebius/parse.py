"""Nebius parse: raw region pages -> canonical offers (pure Polars).

Each GPU preset of each platform is one offer per region (instance_type "<platform>
<preset>", as gpuhunt names it): on-demand, plus spot where the platform allows
preemptibles, at the calculator's `hourly_cost.general.total.cost` (a decimal string, USD,
the whole preset per hour). GPUs from the platform name (settings.GPUS), memory per GPU
from `spec.gpu_memory_gigabytes`, count, vCPUs and RAM from the preset's resources.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import PAGE_COLUMNS, guard_pages
from connectors.kit.money import decimal, usd
from connectors.nebius import settings as s

PRESET = pl.Struct(
    {
        "name": pl.String,
        "resources": pl.Struct(
            {"vcpu_count": pl.String, "memory_gibibytes": pl.String, "gpu_count": pl.String}
        ),
    }
)
PLATFORM = pl.Struct(
    {
        "metadata": pl.Struct({"id": pl.String, "name": pl.String}),
        "spec": pl.Struct({"presets": pl.List(PRESET), "gpu_memory_gigabytes": pl.String}),
        "status": pl.Struct({"allowed_for_preemptibles": pl.Boolean}),
    }
)
COST = pl.Struct({"general": pl.Struct({"total": pl.Struct({"cost": pl.String})})})
ESTIMATE = pl.Struct(
    {
        "platform": pl.String,
        "preset": pl.String,
        "preemptible": pl.Boolean,
        "response": pl.Struct({"hourly_cost": COST}),
    }
)
PAGE = pl.Struct(
    {"region": pl.String, "platforms": pl.List(PLATFORM), "estimates": pl.List(ESTIMATE)}
)
KEY = ["load_id", "_region", "_platform", "_preset", "_spot"]


def _items(pages: pl.DataFrame, field: str) -> pl.DataFrame:
    """One row per element of each page's `field` list, with the page's region (a page
    is one region: few pages, decoded at once). A page whose list is missing, null or
    empty has drifted: every region lists its GPU platforms and their price estimates."""
    body = pl.col("_body")
    decoded = pages.with_columns(_body=pl.col("payload").str.json_decode(PAGE))
    guard_pages(decoded, body.struct.field(field), f"nebius {field}")
    return (
        decoded.select(*PAGE_COLUMNS, "_body")
        .select(
            *PAGE_COLUMNS,
            _region=body.struct.field("region"),
            _item=body.struct.field(field),
        )
        .explode("_item")
        .drop_nulls("_item")
        .with_columns(pl.col("_item").struct.unnest())
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    pages = pages.filter(pl.col("endpoint") == s.ENDPOINT)
    platforms = _items(pages, "platforms")
    presets = (
        platforms.with_columns(
            _platform=pl.col("metadata").struct.field("name"),
            _mem=pl.col("spec").struct.field("gpu_memory_gigabytes"),
            _spots=pl.when(pl.col("status").struct.field("allowed_for_preemptibles").fill_null(False))
            .then(pl.lit([False, True]))
            .otherwise(pl.lit([False])),
            _preset=pl.col("spec").struct.field("presets"),
        )
        .explode("_preset")
        .drop_nulls("_preset")
        .explode("_spots")
        .rename({"_spots": "_spot"})
        .with_columns(
            pl.col("_preset").struct.field("resources").struct.unnest(),
            _preset=pl.col("_preset").struct.field("name"),
            _token=pl.col("_platform").str.extract(r"^gpu-([^-]+)"),
        )
    )
    estimates = _items(pages, "estimates").select(
        "load_id",
        "_region",
        _platform="platform",
        _preset="preset",
        _spot="preemptible",
        _cost=pl.col("response")
        .struct.field("hourly_cost")
        .struct.field("general")
        .struct.field("total")
        .struct.field("cost"),
    )
    rows = presets.join(estimates, on=KEY, how="left", nulls_equal=False)
    gpus = decimal(pl.col("gpu_count"))
    price = decimal(pl.col("_cost"))
    excluded = pl.when(gpus.fill_null(0) == 0).then(pl.lit(s.EXCLUDE_CPU))
    rejected = (
        pl.when(pl.col("_cost").is_null())
        .then(pl.lit(s.REJECT_NO_ESTIMATE))
        .when(price.is_null())
        .then(pl.format("hourly_cost {} is not a number", pl.col("_cost")))
    )
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.col("_region"),
        instance_type=pl.format("{} {}", "_platform", "_preset"),
        pricing_model=pl.when(pl.col("_spot")).then(pl.lit("spot")).otherwise(pl.lit("on_demand")),
        pricing_detail=pl.lit(None, dtype=pl.String),
        # the platform's GPU token ("h100", "rtx6000") and the memory it states: named by
        # the shared GPU rule (common/gpu.py; "rtx6000" at 96 GB is the RTX PRO 6000)
        gpu_text=pl.col("_token"),
        gpu_memory_gib=usd(decimal(pl.col("_mem"))).cast(pl.Float64),
        gpu_count=usd(gpus),
        vcpus=usd(decimal(pl.col("vcpu_count"))),
        memory_gib=usd(decimal(pl.col("memory_gibibytes"))),
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.lit("USD per hour (Estimate hourly_cost.general.total.cost, whole preset)"),
        _excluded=excluded,
        _rejected=rejected,
    )
