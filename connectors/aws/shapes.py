"""AWS parse: the page shapes (declared Struct dtypes), the staged tables and the
helpers every AWS endpoint's parse shares."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from connectors.aws import settings as s
from connectors.kit.connector import Series, StagedTable

INSTANCE_TYPES_CSV = Path(__file__).with_name("instance_types.csv")

_MEMORY = pl.Struct({"SizeInMiB": pl.Int64})
INSTANCE_TYPE = pl.Struct(
    {
        "InstanceType": pl.String,
        "CurrentGeneration": pl.Boolean,
        "SupportedUsageClasses": pl.List(pl.String),
        "VCpuInfo": pl.Struct({"DefaultVCpus": pl.Int64}),
        "MemoryInfo": _MEMORY,
        "GpuInfo": pl.Struct(
            {
                "Gpus": pl.List(
                    pl.Struct(
                        {
                            "Name": pl.String,
                            "Manufacturer": pl.String,
                            "Count": pl.Int64,
                            "LogicalGpuCount": pl.Int64,
                            "GpuPartitionSize": pl.Float64,
                            "MemoryInfo": _MEMORY,
                        }
                    )
                ),
                "TotalGpuMemoryInMiB": pl.Int64,
            }
        ),
        "NeuronInfo": pl.Struct(
            {
                "NeuronDevices": pl.List(
                    pl.Struct({"Count": pl.Int64, "Name": pl.String, "MemoryInfo": _MEMORY})
                ),
                "TotalNeuronDeviceMemoryInMiB": pl.Int64,
            }
        ),
    }
)
INSTANCE_TYPES_PAGE = pl.Struct({"InstanceTypes": pl.List(INSTANCE_TYPE), "NextToken": pl.String})

# the fields of a spot price point the parse reads (and a rejected point's record holds);
# the others (AvailabilityZoneId) are not declared: each declared field costs its share of
# the decode (a million points: 0.75 -> 0.67 s cpu without that one)
SPOT_PRICE = pl.Struct(
    {
        "AvailabilityZone": pl.String,
        "InstanceType": pl.String,
        "ProductDescription": pl.String,
        "SpotPrice": pl.String,
        "Timestamp": pl.String,
    }
)
SPOT_PAGE = pl.Struct({"SpotPriceHistory": pl.List(SPOT_PRICE), "NextToken": pl.String})

PRICE_LIST_PAGE = pl.Struct(
    {"FormatVersion": pl.String, "PriceList": pl.List(pl.String), "NextToken": pl.String}
)
_ATTRIBUTES = (
    "instanceType",
    "instanceFamily",
    "regionCode",
    "location",
    "locationType",
    "operatingSystem",
    "tenancy",
    "preInstalledSw",
    "capacitystatus",
    "licenseModel",
    "marketoption",
    "vcpu",
    "memory",
    "gpu",
    "gpuMemory",
    "usagetype",
)
PRICE_LIST_ITEM = pl.Struct(
    {
        "product": pl.Struct(
            {
                "productFamily": pl.String,
                "sku": pl.String,
                "attributes": pl.Struct(dict.fromkeys(_ATTRIBUTES, pl.String)),
            }
        ),
        "serviceCode": pl.String,
        "version": pl.String,
        "publicationDate": pl.String,
    }
)
ADVISOR_RANGES = pl.Struct(
    {
        "ranges": pl.List(
            pl.Struct({"index": pl.Int64, "label": pl.String, "dots": pl.Int64, "max": pl.Int64})
        )
    }
)

# Offer CSV columns read, by header name (column order changed over the years; a column
# missing from an older header reads as null).
OFFER_CSV_COLUMNS = (
    "SKU",
    "OfferTermCode",
    "TermType",
    "EffectiveDate",
    "Unit",
    "PricePerUnit",
    "Currency",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
    "Instance Type",
    "Instance Family",
    "vCPU",
    "Memory",
    "GPU",
    "Tenancy",
    "Operating System",
    "License Model",
    "CapacityStatus",
    "MarketOption",
    "Pre Installed S/W",
    "Region Code",
)

SPOT_POINT_COLUMNS = {
    "provider": pl.String,
    "region": pl.String,
    "zone": pl.String,
    "instance_type": pl.String,
    "product_description": pl.String,
    "price_usd_per_hour": pl.Float64,
    "observed_at": pl.Datetime("us"),
    "endpoint": pl.String,
    "load_id": pl.String,
    "fetched_at": pl.Datetime("us"),
    # what the point's page states (staging applies it: connectors/kit/provenance.py)
    "provenance": pl.String,
}
SPEC_COLUMNS = {
    "instance_type": pl.String,
    "gpu_name": pl.String,
    "gpu_manufacturer": pl.String,
    "gpu_memory_gib": pl.Float64,
    "gpu_count": pl.Float64,
    "vcpus": pl.Float64,
    "memory_gib": pl.Float64,
    "accelerator": pl.String,  # gpu | neuron | null (not accelerated)
    "source": pl.String,  # describe_instance_types | bundled
    "load_id": pl.String,
    "fetched_at": pl.Datetime("us"),
}
ADVISOR_COLUMNS = {
    "provider": pl.String,
    "region": pl.String,
    "os": pl.String,
    "instance_type": pl.String,
    # the feed's label: <5%, 5-10%, 10-15%, 15-20%, >20%
    "interruption_bucket": pl.String,
    # the label's upper bound: 5, 10, 15, 20, 100
    "interruption_rate_max_pct": pl.Float64,
    "savings_pct": pl.Float64,
    "load_id": pl.String,
    "fetched_at": pl.Datetime("us"),
}
SPOT_KEY = ["region", "zone", "instance_type", "product_description", "observed_at"]

# The tables AWS stages besides its offers (DDL generated from these columns).
# Spot points: one row per (region, zone, instance_type, product_description, observed_at),
# deduplicated in parse (tested; sql/tests/assert_spot_points_unique.sql checks the table);
# no PRIMARY KEY, whose index upkeep cost 3-4 s per million points per refresh. A time
# series: a refresh adds the points of the pages landed since the last parse.
SPOT_PRICES = StagedTable(
    "stg_aws__spot_prices",
    pl.Schema(SPOT_POINT_COLUMNS),
    # provenance: stated at staging, not by the parse (checked: sources.yml)
    not_null=frozenset(SPOT_POINT_COLUMNS) - {"product_description", "provenance"},
    series=Series(
        endpoint=s.SPOT_HISTORY,
        key=tuple(SPOT_KEY),
        series=("region", "zone", "instance_type"),
        time="observed_at",
        scope="region",
    ),
)
INSTANCE_TYPES = StagedTable(
    "stg_aws__instance_types",
    pl.Schema(SPEC_COLUMNS),
    not_null=frozenset({"source"}),
    primary_key=("instance_type",),
)
SPOT_ADVISOR = StagedTable(
    "stg_aws__spot_advisor",
    pl.Schema(ADVISOR_COLUMNS),
    not_null=frozenset(ADVISOR_COLUMNS)
    - {"interruption_bucket", "interruption_rate_max_pct", "savings_pct"},
)
STAGED = (SPOT_PRICES, INSTANCE_TYPES, SPOT_ADVISOR)


def _endpoint(pages: pl.DataFrame, endpoint: str) -> pl.DataFrame:
    if pages.is_empty() or "endpoint" not in pages.columns:
        return pages.clear() if "endpoint" in pages.columns else pl.DataFrame()
    return pages.filter(pl.col("endpoint") == endpoint)


def _utc(expr: pl.Expr) -> pl.Expr:
    """ISO 8601 text ("...Z", "...+00:00", optional fraction) -> naive UTC. On a column
    (the spot points' Timestamp), a text ending in Z is read as it is and only the others
    with their offset (the Z replaced by +00:00 in every text took 0.1 s of 0.12 s CPU at
    1M points); any other expression is evaluated once, every Z replaced."""
    offset = "%Y-%m-%dT%H:%M:%S%.f%:z"
    if expr.meta.is_column():  # read three times: a column costs nothing to read again
        return (
            pl.when(expr.str.ends_with("Z"))
            .then(expr.str.to_datetime("%Y-%m-%dT%H:%M:%S%.fZ", time_unit="us", strict=False))
            .otherwise(
                expr.str.to_datetime(offset, time_zone="UTC", strict=False)
                .dt.replace_time_zone(None)
                .dt.cast_time_unit("us")
            )
        )
    return (
        expr.str.replace(r"Z$", "+00:00")
        .str.to_datetime(offset, time_zone="UTC", strict=False)
        .dt.replace_time_zone(None)
    )


def _number(expr: pl.Expr) -> pl.Expr:
    """A decimal string ("0.043700", "21.3026400000", "2750") as a float; anything else null."""
    text = expr.str.strip_chars()
    return pl.when(text.str.contains(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")).then(
        text.cast(pl.Float64, strict=False)
    )
