"""AWS parse of Capacity Blocks for ML: one `capacity_block` offer per offering, the
upfront fee spread over its instances and hours."""

from __future__ import annotations

import polars as pl

from connectors.aws import settings as s
from connectors.aws.shapes import _endpoint, _number, _utc
from connectors.kit.decode import explode_pages
from connectors.kit.normalise import verdict

# --- Capacity Blocks for ML -------------------------------------------------------------------

CAPACITY_BLOCK = pl.Struct(
    {
        "CapacityBlockOfferingId": pl.String,
        "InstanceType": pl.String,
        "AvailabilityZone": pl.String,
        "InstanceCount": pl.Int64,
        "StartDate": pl.String,
        "EndDate": pl.String,
        "CapacityBlockDurationHours": pl.Int64,
        "CapacityBlockDurationMinutes": pl.Int64,
        "UpfrontFee": pl.String,
        "CurrencyCode": pl.String,
        "Tenancy": pl.String,
        "UltraserverType": pl.String,
        "UltraserverCount": pl.Int64,
        "ZoneType": pl.String,
    }
)
CAPACITY_BLOCKS_PAGE = pl.Struct(
    {"CapacityBlockOfferings": pl.List(CAPACITY_BLOCK), "NextToken": pl.String}
)


def _capacity_block_offers(pages: pl.DataFrame) -> pl.DataFrame:
    """One offer per Capacity Block offering: the upfront fee for N instances x the block's
    duration, as USD per instance-hour (the shared normalise divides by the GPUs).
    `pricing_detail` keeps the terms: instance count, duration and the block's dates."""
    raw = _endpoint(pages, s.CAPACITY_BLOCKS)
    if raw.is_empty():
        return pl.DataFrame()
    items = explode_pages(  # no block on offer is an empty page
        raw, CAPACITY_BLOCKS_PAGE, "CapacityBlockOfferings", allow_empty=True
    ).join(
        raw.select("load_id", pl.col("scope").alias("_region")).unique("load_id"),
        on="load_id",
        how="left",
    )
    fee = _number(pl.col("UpfrontFee"))
    # "hours (in addition to minutes)": a block from 04:55 to 11:30 is 6 h + 35 min
    hours = (
        pl.col("CapacityBlockDurationHours").cast(pl.Float64)
        + pl.col("CapacityBlockDurationMinutes").fill_null(0).cast(pl.Float64) / 60
    )
    count = pl.col("InstanceCount")
    start, end = _utc(pl.col("StartDate")), _utc(pl.col("EndDate"))
    excluded = pl.coalesce(
        pl.when(pl.col("UltraserverType").is_not_null()).then(
            pl.format(s.EXCLUDE_ULTRASERVER, "UltraserverType")
        ),
        pl.when(pl.col("Tenancy").fill_null("default") != "default").then(
            pl.format(s.EXCLUDE_CB_TENANCY, "Tenancy")
        ),
    )
    rejected = (
        pl.when(pl.col("InstanceType").is_null() | pl.col("AvailabilityZone").is_null())
        .then(pl.lit("Capacity Block offering without InstanceType or AvailabilityZone"))
        .when(fee.is_null() | (fee <= 0))
        .then(pl.format("UpfrontFee {} is not a positive decimal", pl.col("UpfrontFee")))
        .when(count.is_null() | (count <= 0))
        .then(pl.format("InstanceCount {} is not a positive integer", count))
        .when(hours.is_null() | (hours <= 0))
        .then(
            pl.format(
                "CapacityBlockDurationHours {} is not a positive duration",
                pl.col("CapacityBlockDurationHours"),
            )
        )
        .when(start.is_null() | end.is_null())
        .then(pl.format("StartDate {} / EndDate {} are not ISO 8601", "StartDate", "EndDate"))
    )
    when = "%Y-%m-%d %H:%M"
    minutes = pl.col("CapacityBlockDurationMinutes").fill_null(0)
    duration = pl.format("{} h", pl.col("CapacityBlockDurationHours")) + pl.when(minutes > 0).then(
        pl.format(" {} min", minutes)
    ).otherwise(pl.lit(""))
    return items.select(
        pl.lit(s.PROVIDER).alias("provider"),
        pl.col("_region").alias("region"),
        pl.col("AvailabilityZone").alias("zone"),
        pl.col("InstanceType").alias("instance_type"),
        pl.lit("capacity_block").alias("pricing_model"),
        pl.format(
            "{} instance(s) x {} block, {} to {} UTC",
            count,
            duration,
            start.dt.strftime(when),
            end.dt.strftime(when),
        ).alias("pricing_detail"),
        (fee / (count.cast(pl.Float64) * hours)).alias("price_usd_per_hour"),
        pl.col("CurrencyCode").alias("source_currency"),
        fee.alias("source_price"),
        pl.format("upfront fee for {} instance(s) x {}", count, duration).alias("source_unit"),
        count.cast(pl.Float64).alias("capacity_instances"),  # the block's size
        pl.lit(None, dtype=pl.Datetime("us")).alias("effective_at"),
        "fetched_at",
        "load_id",
        "endpoint",
        *(e.alias(name) for name, e in verdict(excluded, rejected).items()),
        pl.col("_item").struct.json_encode().alias("record"),
        pl.lit(None, dtype=pl.Float64).alias("_source_gpu"),
        pl.lit(None, dtype=pl.String).alias("_source_family"),
        pl.lit(None, dtype=pl.Float64).alias("_source_vcpus"),
        pl.lit(None, dtype=pl.Float64).alias("_source_memory_gib"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("_published_at"),
    )
