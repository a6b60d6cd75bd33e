"""AWS parse: raw pages -> canonical offers, spot price points, instance specs and Spot
Advisor interruption buckets.

Pure Polars. Page bodies are decoded with declared Struct dtypes; the Price List's terms
(objects keyed by "<sku>.<term code>") are read with JSONPath filters on their term
attributes and units, never by the codes; the Spot Advisor's region and instance-type keys
are unpivoted. The one loop over pages is the offer CSV's (one file per region; a CSV
has no vectorised decoder) and the one over the Advisor's regions is over schema keys.

- instance_types: GpuInfo / NeuronInfo -> gpu_name (docs/contract.md §4 names), memory snapped to
  the marketed size (settings.GPU_MEMORY_GIB), fractional GPUs as fractional gpu_count.
  Bundled `instance_types.csv` fills what the live pages do not cover (no credentials).
- spot_price_history: every point, deduplicated on (region, zone, instance_type,
  observed_at); the newest point per zone is the zone's current `spot` offer.
- price_list and offer_csv: on-demand and reserved (1y/3y x standard/convertible x
  No/Partial/All Upfront, upfront fee amortised over the term) rows; an offer priced by
  both routes is kept once (the newer publication; the Price List on a tie).
- capacity_blocks: one `capacity_block` offer per Capacity Block offering, the upfront fee
  spread over its instances and hours; terms and dates in pricing_detail.
- savings_plans: savings_plan_1y / savings_plan_3y per Compute or EC2 Instance Savings Plan
  rate (the plan's effective hourly price), plan type and payment option in pricing_detail.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path

import polars as pl
import polars.selectors as cs

from connectors.aws import settings as s
from connectors.kit.connector import Parsed, Series, StagedTable
from connectors.kit.decode import explode_pages
from connectors.kit.normalise import verdict

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

SPOT_PRICE = pl.Struct(
    {
        "AvailabilityZone": pl.String,
        "AvailabilityZoneId": pl.String,
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
    not_null=frozenset(SPOT_POINT_COLUMNS) - {"product_description"},
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
    """ISO 8601 text ("...Z", "...+00:00", optional fraction) -> naive UTC."""
    return (
        expr.str.replace(r"Z$", "+00:00")
        .str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%:z", time_zone="UTC", strict=False)
        .dt.replace_time_zone(None)
    )


def _number(expr: pl.Expr) -> pl.Expr:
    """A decimal string ("0.043700", "21.3026400000", "2750") as a float; anything else null."""
    text = expr.str.strip_chars()
    return pl.when(text.str.contains(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")).then(
        text.cast(pl.Float64, strict=False)
    )


def canonical_gpu_name(expr: pl.Expr) -> pl.Expr:
    upper = expr.str.strip_chars().str.to_uppercase()
    return upper.replace(s.GPU_NAME_ALIASES)


def _snap_table() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "gpu_name": [k[0] for k in s.GPU_MEMORY_GIB],
            "_mib": [k[1] for k in s.GPU_MEMORY_GIB],
            "_marketed_gib": [float(v) for v in s.GPU_MEMORY_GIB.values()],
        },
        schema={"gpu_name": pl.String, "_mib": pl.Int64, "_marketed_gib": pl.Float64},
    )


# --- instance specs ------------------------------------------------------------------------


def bundled_specs() -> pl.DataFrame:
    return pl.read_csv(
        INSTANCE_TYPES_CSV,
        schema_overrides={
            "gpu_memory_gib": pl.Float64,
            "gpu_count": pl.Float64,
            "vcpus": pl.Float64,
            "memory_gib": pl.Float64,
        },
    ).select(
        "instance_type",
        "gpu_name",
        pl.col("gpu_manufacturer").str.to_uppercase(),
        "gpu_memory_gib",
        "gpu_count",
        "vcpus",
        "memory_gib",
        pl.when(pl.col("gpu_manufacturer") == "AWS")
        .then(pl.lit("neuron"))
        .otherwise(pl.lit("gpu"))
        .alias("accelerator"),
        pl.lit("bundled").alias("source"),
        pl.lit(None, dtype=pl.String).alias("load_id"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("fetched_at"),
    )


def parse_instance_types(pages: pl.DataFrame) -> pl.DataFrame:
    """One row per instance type seen in DescribeInstanceTypes pages (newest page wins)."""
    raw = _endpoint(pages, s.INSTANCE_TYPES)
    if raw.is_empty():
        return pl.DataFrame(schema=SPEC_COLUMNS)
    types = (
        raw.select(
            "load_id",
            "fetched_at",
            pl.col("payload")
            .str.json_decode(INSTANCE_TYPES_PAGE)
            .struct.field("InstanceTypes")
            .alias("t"),
        )
        .explode("t")
        .drop_nulls("t")
        .unnest("t")
    )
    gpu = pl.col("GpuInfo").struct.field("Gpus").list.first()
    neuron = pl.col("NeuronInfo").struct.field("NeuronDevices").list.first()
    partition = (
        pl.when(gpu.struct.field("GpuPartitionSize") > 0)
        .then(gpu.struct.field("GpuPartitionSize"))
        .otherwise(1.0)
    )
    gpu_count = (
        pl.when(gpu.struct.field("Count") > 0)
        .then(gpu.struct.field("Count").cast(pl.Float64))
        # g6f / gr6f: Count 0, a fraction of one GPU (never 0)
        .when(gpu.is_not_null())
        .then(gpu.struct.field("LogicalGpuCount").cast(pl.Float64) * partition)
        .otherwise(neuron.struct.field("Count").cast(pl.Float64))
    )
    full_mib = pl.coalesce(
        (gpu.struct.field("MemoryInfo").struct.field("SizeInMiB") / partition).round(0),
        neuron.struct.field("MemoryInfo").struct.field("SizeInMiB").cast(pl.Float64),
    ).cast(pl.Int64)
    specs = types.select(
        pl.col("InstanceType").alias("instance_type"),
        canonical_gpu_name(
            pl.coalesce(gpu.struct.field("Name"), neuron.struct.field("Name"))
        ).alias("gpu_name"),
        pl.coalesce(
            gpu.struct.field("Manufacturer"), pl.when(neuron.is_not_null()).then(pl.lit("AWS"))
        )
        .str.to_uppercase()
        .alias("gpu_manufacturer"),
        full_mib.alias("_mib"),
        gpu_count.alias("gpu_count"),
        pl.col("VCpuInfo").struct.field("DefaultVCpus").cast(pl.Float64).alias("vcpus"),
        (pl.col("MemoryInfo").struct.field("SizeInMiB") / 1024).alias("memory_gib"),
        pl.when(gpu.is_not_null())
        .then(pl.lit("gpu"))
        .when(neuron.is_not_null())
        .then(pl.lit("neuron"))
        .alias("accelerator"),
        pl.lit("describe_instance_types").alias("source"),
        "load_id",
        "fetched_at",
    )
    snapped = specs.join(_snap_table(), on=["gpu_name", "_mib"], how="left").with_columns(
        gpu_memory_gib=pl.coalesce("_marketed_gib", (pl.col("_mib") / 1024).round(2))
    )
    return (
        snapped.sort("fetched_at", "load_id", descending=True)
        .unique("instance_type", keep="first", maintain_order=True)
        .select(list(SPEC_COLUMNS))
        .sort("instance_type")
    )


def instance_specs(pages: pl.DataFrame) -> pl.DataFrame:
    """Live specs where DescribeInstanceTypes was read, the bundled table for the rest."""
    live = parse_instance_types(pages)
    bundled = bundled_specs().join(live.select("instance_type"), on="instance_type", how="anti")
    return pl.concat([live, bundled], how="vertical_relaxed").sort("instance_type")


# --- spot price history ---------------------------------------------------------------------


_SPOT_FIELDS = ("AvailabilityZone", "InstanceType", "ProductDescription", "SpotPrice", "Timestamp")


def _spot_points_all(pages: pl.DataFrame) -> pl.DataFrame:
    """Every recorded point (valid or not) once, attributed to the earliest load that
    brought it (AWS repeats the price in effect at StartTime on every incremental walk).
    Decoded once per parse: the staged points and the current offers both read it."""
    raw = _endpoint(pages, s.SPOT_HISTORY)
    if raw.is_empty():
        return pl.DataFrame(
            schema={**SPOT_POINT_COLUMNS, "source_price": pl.String, "source_timestamp": pl.String}
        )
    # decoded in parallel slices (connectors.kit.decode), the 1M-point case is ~150 MB of JSON
    # a region without a price change since its watermark answers an empty page
    items = explode_pages(raw, SPOT_PAGE, "SpotPriceHistory", allow_empty=True).join(
        raw.select("load_id", pl.col("scope").alias("region")).unique("load_id"),
        on="load_id",
        how="left",
    )
    points = items.select(
        pl.lit(s.PROVIDER).alias("provider"),
        "region",
        pl.col("AvailabilityZone").alias("zone"),
        pl.col("InstanceType").alias("instance_type"),
        pl.col("ProductDescription").alias("product_description"),
        _number(pl.col("SpotPrice")).alias("price_usd_per_hour"),
        _utc(pl.col("Timestamp")).alias("observed_at"),
        "endpoint",
        "load_id",
        "fetched_at",
        pl.col("SpotPrice").alias("source_price"),
        pl.col("Timestamp").alias("source_timestamp"),
    )
    if raw["load_id"].n_unique() > 1:  # load ids start with the run's UTC time: sortable
        points = points.sort("load_id")
    return points.unique(SPOT_KEY, keep="first")


def _spot_point_problem() -> pl.Expr:
    price = pl.col("price_usd_per_hour")
    return (
        # the fetch asks for Linux/UNIX only; a recording made otherwise must not publish
        # a Windows or SUSE price as the Linux spot price
        pl.when(
            ~pl.col("product_description").is_in(list(s.SPOT_PRODUCT_DESCRIPTIONS)).fill_null(True)
        )
        .then(
            pl.format(
                "ProductDescription {} is not one we price (Linux/UNIX)",
                pl.col("product_description"),
            )
        )
        .when(pl.col("observed_at").is_null())
        .then(pl.format("Timestamp {} is not ISO 8601", pl.col("source_timestamp")))
        .when(pl.col("zone").is_null() | pl.col("instance_type").is_null())
        .then(pl.lit("spot price point without AvailabilityZone or InstanceType"))
        .when(price.is_null() | price.is_nan() | (price <= 0))
        .then(pl.format("SpotPrice {} is not a positive decimal", pl.col("source_price")))
    )


def _spot_record() -> pl.Expr:
    """The point as recorded, for quarantine."""
    return pl.struct(
        pl.col("zone").alias("AvailabilityZone"),
        pl.col("instance_type").alias("InstanceType"),
        pl.col("product_description").alias("ProductDescription"),
        pl.col("source_price").alias("SpotPrice"),
        pl.col("source_timestamp").alias("Timestamp"),
    ).struct.json_encode()


def _valid_points(points: pl.DataFrame) -> pl.DataFrame:
    return points.filter(_spot_point_problem().is_null()).select(list(SPOT_POINT_COLUMNS))


def parse_spot_points(pages: pl.DataFrame) -> pl.DataFrame:
    """stg_aws__spot_prices: every valid point once."""
    return _valid_points(_spot_points_all(pages))


def _spot_offers(points: pl.DataFrame, latest: pl.DataFrame | None = None) -> pl.DataFrame:
    """The current spot offer of each (region, zone, instance type): its newest point. Points
    that are not valid prices are rejected rows (quarantine, with the reason). `latest`: the
    newest stored point of each series, when the pages hold only the ones landed since the
    last parse: the current offer is then the newest of those and of the new points (a
    new point that repeats a stored one, as every walk from the watermark does, is the
    stored one: the earlier load keeps it)."""
    points = points.with_columns(_problem=_spot_point_problem())
    valid = points.filter(pl.col("_problem").is_null())
    if latest is not None:
        stored = latest.select(list(SPOT_POINT_COLUMNS))
        valid = pl.concat(
            [
                stored.with_columns(_problem=pl.lit(None, dtype=pl.String)),
                valid.join(stored, on=SPOT_KEY, how="anti", nulls_equal=True),
            ],
            how="diagonal_relaxed",
        )
    current = (
        valid.group_by("region", "zone", "instance_type")
        .agg(pl.all().top_k_by("observed_at", 1).first())
        .with_columns(status=pl.lit("ok"), reason=pl.lit(None, dtype=pl.String))
    )
    rejected = points.filter(pl.col("_problem").is_not_null()).with_columns(
        status=pl.lit("rejected"), reason=pl.col("_problem")
    )
    both = pl.concat([current.drop("_problem"), rejected.drop("_problem")], how="diagonal_relaxed")
    return both.select(
        "provider",
        "region",
        "zone",
        "instance_type",
        pl.lit("spot").alias("pricing_model"),
        "price_usd_per_hour",
        pl.lit("USD").alias("source_currency"),
        pl.col("price_usd_per_hour").alias("source_price"),
        pl.lit("Hrs").alias("source_unit"),
        pl.col("observed_at").alias("effective_at"),
        "fetched_at",
        "load_id",
        "endpoint",
        "status",
        "reason",
        pl.when(pl.col("status") == "rejected").then(_spot_record()).alias("record"),
        pl.lit(None, dtype=pl.Float64).alias("_source_gpu"),
        pl.lit(None, dtype=pl.String).alias("_source_family"),
        pl.lit(None, dtype=pl.Float64).alias("_source_vcpus"),
        pl.lit(None, dtype=pl.Float64).alias("_source_memory_gib"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("_published_at"),
    )


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
    hours = pl.col("CapacityBlockDurationHours").cast(pl.Float64) + pl.col(
        "CapacityBlockDurationMinutes"
    ).fill_null(0).cast(pl.Float64) / 60
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


# --- Savings Plans ---------------------------------------------------------------------------

SAVINGS_PLAN_RATE = pl.Struct(
    {
        "discountedSku": pl.String,
        "discountedUsageType": pl.String,
        "discountedOperation": pl.String,
        "discountedServiceCode": pl.String,
        "rateCode": pl.String,
        "unit": pl.String,
        "discountedRate": pl.Struct({"price": pl.String, "currency": pl.String}),
        "discountedRegionCode": pl.String,
        "discountedInstanceType": pl.String,
    }
)
SAVINGS_PLANS_PAGE = pl.Struct(
    {
        "version": pl.String,
        "publicationDate": pl.String,
        "products": pl.List(
            pl.Struct(
                {
                    "sku": pl.String,
                    "productFamily": pl.String,
                    "attributes": pl.Struct(
                        {"purchaseOption": pl.String, "purchaseTerm": pl.String}
                    ),
                }
            )
        ),
        "terms": pl.Struct(
            {
                "savingsPlan": pl.List(
                    pl.Struct(
                        {
                            "sku": pl.String,
                            "description": pl.String,
                            "effectiveDate": pl.String,
                            "leaseContractLength": pl.Struct(
                                {"duration": pl.Int64, "unit": pl.String}
                            ),
                            "rates": pl.List(SAVINGS_PLAN_RATE),
                        }
                    )
                )
            }
        ),
    }
)


def _savings_plan_offers(pages: pl.DataFrame) -> pl.DataFrame:
    """One offer per (plan, instance type) rate: savings_plan_1y / savings_plan_3y at the
    plan's effective hourly rate; pricing_detail names the plan type and payment option."""
    raw = _endpoint(pages, s.SAVINGS_PLANS)
    if raw.is_empty():
        return pl.DataFrame()
    docs = raw.select(
        "load_id",
        "fetched_at",
        "endpoint",
        "scope",
        pl.col("payload").str.json_decode(SAVINGS_PLANS_PAGE).alias("_doc"),
    )
    products = (
        docs.select("load_id", pl.col("_doc").struct.field("products").alias("p"))
        .explode("p")
        .drop_nulls("p")
        .select(
            "load_id",
            pl.col("p").struct.field("sku").alias("_plan_sku"),
            pl.col("p").struct.field("productFamily").alias("_family"),
            pl.col("p").struct.field("attributes").struct.field("purchaseOption").alias("_option"),
        )
        .unique(["load_id", "_plan_sku"])
    )
    rates = (
        docs.with_columns(
            _term=pl.col("_doc").struct.field("terms").struct.field("savingsPlan"),
            _published_at=_utc(pl.col("_doc").struct.field("publicationDate")),
        )
        .drop("_doc")
        .explode("_term")
        .drop_nulls("_term")
        .with_columns(
            _plan_sku=pl.col("_term").struct.field("sku"),
            _effective=pl.col("_term").struct.field("effectiveDate"),
            _duration=pl.col("_term").struct.field("leaseContractLength").struct.field("duration"),
            _duration_unit=pl.col("_term")
            .struct.field("leaseContractLength")
            .struct.field("unit"),
            _rate=pl.col("_term").struct.field("rates"),
        )
        .drop("_term")
        .explode("_rate")
        .drop_nulls("_rate")
        .join(products, on=["load_id", "_plan_sku"], how="left")
    )
    rate = pl.col("_rate").struct
    usage = rate.field("discountedUsageType").fill_null("")
    operation = rate.field("discountedOperation").fill_null("")
    instance_type = pl.coalesce(
        pl.when(rate.field("discountedInstanceType").fill_null("") != "").then(
            rate.field("discountedInstanceType")
        ),
        usage.str.replace(s.SAVINGS_PLAN_USAGE, ""),
    )
    region = pl.coalesce(rate.field("discountedRegionCode"), pl.col("scope"))
    price = _number(rate.field("discountedRate").struct.field("price"))
    years = pl.col("_duration")
    excluded = pl.coalesce(
        _local_zone_problem(region),
        pl.when(
            (rate.field("discountedServiceCode") != "AmazonEC2").fill_null(True)
            | (operation != s.SAVINGS_PLAN_OPERATION)
            | ~usage.str.contains(s.SAVINGS_PLAN_USAGE)
        ).then(pl.format(s.EXCLUDE_SP_SCOPE, usage, operation)),
        pl.when(~((pl.col("_duration_unit") == "year") & years.is_in([1, 3])).fill_null(True)).then(
            pl.format(s.EXCLUDE_SP_TERM, years, pl.col("_duration_unit"))
        ),
    )
    rejected = (
        pl.when(price.is_null() | (price <= 0))
        .then(
            pl.format(
                "discountedRate.price {} is not a positive decimal",
                rate.field("discountedRate").struct.field("price"),
            )
        )
        .when(rate.field("unit") != "Hrs")
        .then(pl.format("savings plan rate unit {} is not Hrs", rate.field("unit")))
    )
    family = pl.col("_family").replace_strict(
        s.SAVINGS_PLAN_FAMILIES, default=pl.col("_family"), return_dtype=pl.String
    )
    return rates.select(
        pl.lit(s.PROVIDER).alias("provider"),
        region.alias("region"),
        pl.lit(None, dtype=pl.String).alias("zone"),
        instance_type.alias("instance_type"),
        pl.format("savings_plan_{}y", years).alias("pricing_model"),
        pl.format("{}, {}", family, pl.col("_option")).alias("pricing_detail"),
        price.alias("price_usd_per_hour"),
        rate.field("discountedRate").struct.field("currency").alias("source_currency"),
        price.alias("source_price"),
        pl.lit("Hrs under the plan's hourly commitment").alias("source_unit"),
        _utc(pl.col("_effective")).alias("effective_at"),
        "fetched_at",
        "load_id",
        "endpoint",
        *(e.alias(name) for name, e in verdict(excluded, rejected).items()),
        pl.col("_rate").struct.json_encode().alias("record"),
        pl.lit(None, dtype=pl.Float64).alias("_source_gpu"),
        pl.lit(None, dtype=pl.String).alias("_source_family"),
        pl.lit(None, dtype=pl.Float64).alias("_source_vcpus"),
        pl.lit(None, dtype=pl.Float64).alias("_source_memory_gib"),
        "_published_at",
    )


# --- list prices: shared -----------------------------------------------------------------


def _reserved_options() -> list[tuple[str, str, str]]:
    return [
        (lease, cls, option)
        for lease in s.LEASE_YEARS
        for cls in s.OFFERING_CLASSES
        for option in s.PURCHASE_OPTIONS
    ]


def _amortised(hourly: pl.Expr, upfront: pl.Expr, years: pl.Expr) -> pl.Expr:
    """Effective hourly price of a reservation: recurring hourly + upfront fee spread over
    the term (8760 h a year). Null when neither part is priced."""
    return pl.when(hourly.is_not_null() | upfront.is_not_null()).then(
        hourly.fill_null(0.0) + upfront.fill_null(0.0) / (years * s.HOURS_PER_YEAR)
    )


def _scope_problem(getter: dict[str, pl.Expr]) -> pl.Expr:
    """The first OFFER_CSV_SCOPE rule a row fails, as an exclusion reason."""
    reason: pl.Expr = pl.lit(None, dtype=pl.String)
    for column, values, why in reversed(s.OFFER_CSV_SCOPE):
        value = getter[column].fill_null("")
        reason = (
            pl.when(~value.is_in(list(values)))
            .then(pl.format("{} ({} = '{}')", pl.lit(why), pl.lit(column), value))
            .otherwise(reason)
        )
    return reason


def _local_zone_problem(region_code: pl.Expr) -> pl.Expr:
    template = s.EXCLUDE_LOCAL_ZONE.split("{}")
    return pl.when(region_code.str.contains(s.LOCAL_ZONE_PATTERN)).then(
        pl.format(template[0] + "{}" + template[1], region_code)
    )


def _memory_gib(text: pl.Expr) -> pl.Expr:
    return (
        text.str.extract(r"^([0-9.,]+) GiB$")
        .str.replace_all(",", "")
        .cast(pl.Float64, strict=False)
    )


# --- Price List Query API -------------------------------------------------------------------

_OD = "$.terms.OnDemand.*"


def _reserved_path(lease: str, cls: str, option: str) -> str:
    # Chained filters, one per attribute: this JSONPath engine evaluates only the first
    # operand of `&&` (a test pins all 12 options on the recorded m5.large item).
    return "$.terms.Reserved.*" + "".join(
        f"[?(@.termAttributes.{name}=='{value}')]"
        for name, value in (
            ("LeaseContractLength", lease),
            ("OfferingClass", cls),
            ("PurchaseOption", option),
        )
    )


def _dimension(term_path: str, unit: str) -> pl.Expr:
    return _number(
        pl.col("_raw").str.json_path_match(
            f"{term_path}.priceDimensions.*[?(@.unit=='{unit}')].pricePerUnit.USD"
        )
    )


def _price_list_offers(pages: pl.DataFrame) -> pl.DataFrame:
    raw = _endpoint(pages, s.PRICE_LIST)
    if raw.is_empty():
        return pl.DataFrame()
    items = (
        raw.select(
            "load_id",
            "fetched_at",
            "endpoint",
            "scope",
            pl.col("payload")
            .str.json_decode(PRICE_LIST_PAGE)
            .struct.field("PriceList")
            .alias("_raw"),
        )
        .explode("_raw")
        .drop_nulls("_raw")
        .with_columns(_doc=pl.col("_raw").str.json_decode(PRICE_LIST_ITEM))
        .with_columns(
            _sku=pl.col("_doc").struct.field("product").struct.field("sku"),
            _family=pl.col("_doc").struct.field("product").struct.field("productFamily"),
            _published_at=_utc(pl.col("_doc").struct.field("publicationDate")),
            _attrs=pl.col("_doc").struct.field("product").struct.field("attributes"),
        )
        .with_columns(pl.col("_attrs").struct.unnest())
        .drop("_doc", "_attrs")
    )
    on_demand = items.filter(pl.col("_raw").str.json_path_match(f"{_OD}.sku").is_not_null()).select(
        pl.all(),
        pl.lit("on_demand").alias("pricing_model"),
        pl.lit(None, dtype=pl.String).alias("pricing_detail"),
        _dimension(_OD, "Hrs").alias("price_usd_per_hour"),
        _dimension(_OD, "Hrs").alias("source_price"),
        pl.lit("Hrs").alias("source_unit"),
        _utc(pl.col("_raw").str.json_path_match(f"{_OD}.effectiveDate")).alias("effective_at"),
    )
    reserved = []
    for lease, cls, option in _reserved_options():
        path = _reserved_path(lease, cls, option)
        hourly, upfront = _dimension(path, "Hrs"), _dimension(path, "Quantity")
        reserved.append(
            items.filter(pl.col("_raw").str.json_path_match(f"{path}.sku").is_not_null()).select(
                pl.all(),
                pl.lit(f"reserved_{s.LEASE_YEARS[lease]}y").alias("pricing_model"),
                pl.lit(f"{cls}, {option}").alias("pricing_detail"),
                _amortised(hourly, upfront, pl.lit(s.LEASE_YEARS[lease])).alias(
                    "price_usd_per_hour"
                ),
                hourly.alias("source_price"),
                pl.format(
                    "Hrs + {} USD upfront per {} term", upfront.fill_null(0.0), pl.lit(lease)
                ).alias("source_unit"),
                _utc(pl.col("_raw").str.json_path_match(f"{path}.effectiveDate")).alias(
                    "effective_at"
                ),
            )
        )
    rows = pl.concat([on_demand, *reserved], how="vertical_relaxed")
    getter = {
        "Product Family": pl.col("_family"),
        "Operating System": pl.col("operatingSystem"),
        "Tenancy": pl.col("tenancy"),
        "Pre Installed S/W": pl.col("preInstalledSw"),
        "CapacityStatus": pl.col("capacitystatus"),
        "License Model": pl.col("licenseModel"),
        "MarketOption": pl.col("marketoption"),
        "Currency": pl.lit("USD"),
    }
    region = pl.coalesce(pl.col("regionCode"), pl.col("scope"))
    excluded = pl.coalesce(_local_zone_problem(region), _scope_problem(getter))
    return rows.select(
        pl.lit(s.PROVIDER).alias("provider"),
        region.alias("region"),
        pl.lit(None, dtype=pl.String).alias("zone"),
        pl.col("instanceType").alias("instance_type"),
        "pricing_model",
        "pricing_detail",
        "price_usd_per_hour",
        pl.lit("USD").alias("source_currency"),
        "source_price",
        "source_unit",
        "effective_at",
        "fetched_at",
        "load_id",
        "endpoint",
        *(e.alias(name) for name, e in verdict(excluded).items()),
        pl.col("_raw").alias("record"),
        _number(pl.col("gpu")).alias("_source_gpu"),
        pl.col("instanceFamily").alias("_source_family"),
        _number(pl.col("vcpu")).alias("_source_vcpus"),
        _memory_gib(pl.col("memory")).alias("_source_memory_gib"),
        "_published_at",
    )


# --- bulk offer CSV ---------------------------------------------------------------------------


def _read_offer_csv(text: str) -> pl.DataFrame:
    frame = pl.read_csv(io.StringIO(text), skip_rows=s.OFFER_METADATA_LINES, infer_schema=False)
    missing = [
        pl.lit(None, dtype=pl.String).alias(c) for c in OFFER_CSV_COLUMNS if c not in frame.columns
    ]
    return frame.with_columns(missing).select(OFFER_CSV_COLUMNS)


def _offer_csv_offers(pages: pl.DataFrame) -> pl.DataFrame:
    raw = _endpoint(pages, s.OFFER_CSV)
    if raw.is_empty():
        return pl.DataFrame()
    published = raw.select(
        "load_id",
        _utc(pl.col("payload").str.extract(r'"Publication Date","([^"]+)"')).alias("_published_at"),
    )
    frames = [
        _read_offer_csv(page["payload"]).with_columns(
            load_id=pl.lit(page["load_id"]),
            fetched_at=pl.lit(page["fetched_at"], dtype=pl.Datetime("us")),
            endpoint=pl.lit(page["endpoint"]),
            scope=pl.lit(page["scope"]),
        )
        for page in raw.select("load_id", "fetched_at", "endpoint", "scope", "payload").iter_rows(
            named=True
        )
    ]
    rows = pl.concat(frames, how="vertical_relaxed").join(published, on="load_id", how="left")
    price = _number(pl.col("PricePerUnit"))
    years = pl.col("LeaseContractLength").replace_strict(
        {k: float(v) for k, v in s.LEASE_YEARS.items()}, default=None, return_dtype=pl.Float64
    )
    key = ["load_id", "SKU", "OfferTermCode"]
    reserved = (
        rows.filter(pl.col("TermType") == "Reserved")
        .group_by(key, maintain_order=True)
        .agg(
            pl.all().exclude("Unit", "PricePerUnit").first(),
            price.filter(pl.col("Unit") == "Hrs").first().alias("_hourly"),
            price.filter(pl.col("Unit") == "Quantity").first().alias("_upfront"),
        )
        .with_columns(
            pricing_model=pl.format("reserved_{}y", years.cast(pl.Int64)),
            pricing_detail=pl.format("{}, {}", "OfferingClass", "PurchaseOption"),
            price_usd_per_hour=_amortised(pl.col("_hourly"), pl.col("_upfront"), years),
            source_price=pl.col("_hourly"),
            source_unit=pl.format(
                "Hrs + {} USD upfront per {} term",
                pl.col("_upfront").fill_null(0.0),
                "LeaseContractLength",
            ),
        )
    )
    on_demand = rows.filter(
        (pl.col("TermType") == "OnDemand") & (pl.col("Unit") == "Hrs")
    ).with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        price_usd_per_hour=price,
        source_price=price,
        source_unit=pl.col("Unit"),
    )
    both = pl.concat([on_demand, reserved.drop("_hourly", "_upfront")], how="diagonal_relaxed")
    getter = {c: pl.col(c) for c, _, _ in s.OFFER_CSV_SCOPE}
    region = pl.coalesce(pl.col("Region Code"), pl.col("scope"))
    excluded = pl.coalesce(
        _local_zone_problem(region),
        _scope_problem(getter),
        pl.when(
            pl.col("pricing_model").str.contains("null") | pl.col("pricing_model").is_null()
        ).then(pl.format("reserved term {} is not 1yr or 3yr", "LeaseContractLength")),
    )
    return both.select(
        pl.lit(s.PROVIDER).alias("provider"),
        region.alias("region"),
        pl.lit(None, dtype=pl.String).alias("zone"),
        pl.col("Instance Type").alias("instance_type"),
        "pricing_model",
        "pricing_detail",
        "price_usd_per_hour",
        pl.col("Currency").alias("source_currency"),
        "source_price",
        "source_unit",
        pl.col("EffectiveDate").str.to_datetime("%Y-%m-%d", strict=False).alias("effective_at"),
        "fetched_at",
        "load_id",
        "endpoint",
        *(e.alias(name) for name, e in verdict(excluded).items()),
        pl.concat_str(
            [
                pl.lit("SKU="),
                "SKU",
                pl.lit(" OfferTermCode="),
                "OfferTermCode",
                pl.lit(" in "),
                "endpoint",
            ],
            ignore_nulls=True,
        ).alias("record"),
        _number(pl.col("GPU")).alias("_source_gpu"),
        pl.col("Instance Family").alias("_source_family"),
        _number(pl.col("vCPU")).alias("_source_vcpus"),
        _memory_gib(pl.col("Memory")).alias("_source_memory_gib"),
        "_published_at",
    )


def _one_per_offer(listed: pl.DataFrame) -> pl.DataFrame:
    """An offer priced by both list routes is kept once: the newer publication, the Price
    List on a tie. The other copy is excluded (counted), naming the route it lost to."""
    key = ["region", "instance_type", "pricing_model", "pricing_detail", "status"]
    ranked = listed.sort(
        pl.col("_published_at").fill_null(pl.datetime(1970, 1, 1)),
        pl.col("endpoint") == s.PRICE_LIST,
        "load_id",
        descending=[True, True, False],
        maintain_order=True,
    ).with_columns(
        _n=pl.int_range(pl.len()).over(key),
        _winner=pl.col("endpoint").first().over(key),
    )
    duplicate = (pl.col("status") == "ok") & (pl.col("_n") > 0)
    return ranked.with_columns(
        status=pl.when(duplicate).then(pl.lit("excluded")).otherwise("status"),
        reason=pl.when(duplicate)
        .then(pl.format("same offer also priced by {} (kept that one)", "_winner"))
        .otherwise("reason"),
    ).drop("_n", "_winner")


def _with_specs(offers: pl.DataFrame, specs: pl.DataFrame) -> pl.DataFrame:
    joined = offers.join(
        specs.select(
            "instance_type",
            pl.col("gpu_name").alias("_spec_gpu_name"),
            pl.col("gpu_memory_gib").alias("_spec_gpu_memory_gib"),
            pl.col("gpu_count").alias("_spec_gpu_count"),
            pl.col("vcpus").alias("_spec_vcpus"),
            pl.col("memory_gib").alias("_spec_memory_gib"),
            pl.col("accelerator").alias("_spec_accelerator"),
            pl.lit(True).alias("_spec_found"),
        ),
        on="instance_type",
        how="left",
    )
    accelerated = (
        pl.when(pl.col("_spec_found"))
        .then(pl.col("_spec_accelerator").is_not_null())
        .otherwise(
            (pl.col("_source_gpu").fill_null(0) > 0)
            | pl.col("_source_family")
            .is_in(list(s.OFFER_CSV_ACCELERATED_FAMILIES))
            .fill_null(False)
            | pl.col("instance_type").str.contains(s.ACCELERATED_TYPE_REGEX).fill_null(False)
        )
    )
    return joined.with_columns(
        gpu_name=pl.col("_spec_gpu_name"),
        gpu_memory_gib=pl.col("_spec_gpu_memory_gib"),
        gpu_count=pl.coalesce(
            "_spec_gpu_count", pl.when(pl.col("_source_gpu") > 0).then("_source_gpu")
        ),
        vcpus=pl.coalesce("_spec_vcpus", "_source_vcpus"),
        memory_gib=pl.coalesce("_spec_memory_gib", "_source_memory_gib"),
        status=pl.when((pl.col("status") == "ok") & ~accelerated)
        .then(pl.lit("excluded"))
        .otherwise("status"),
        reason=pl.when((pl.col("status") == "ok") & ~accelerated)
        .then(pl.lit("not an accelerated instance type (no GPU or Neuron device)"))
        .otherwise("reason"),
    ).drop(cs.starts_with("_"))


def _offers(
    pages: pl.DataFrame, points: pl.DataFrame, specs: pl.DataFrame, latest: pl.DataFrame | None
) -> pl.DataFrame:
    listed = [f for f in (_price_list_offers(pages), _offer_csv_offers(pages)) if f.height]
    frames = [_spot_offers(points, latest)]
    for extra in (_capacity_block_offers(pages), _savings_plan_offers(pages)):
        if extra.height:
            frames.append(extra)
    if listed:
        frames.append(_one_per_offer(pl.concat(listed, how="vertical_relaxed")))
    offers = pl.concat(frames, how="diagonal_relaxed")
    return _with_specs(offers, specs)


def parse(pages: pl.DataFrame, latest: pl.DataFrame | None = None) -> pl.DataFrame:
    """Canonical offers (warehouse.schemas.OFFER_SCHEMA) from every AWS endpoint. `latest`:
    the newest stored spot point of each series, when `pages` holds only the spot pages
    landed since the last parse (the snapshot endpoints' pages are always whole)."""
    return _offers(pages, _spot_points_all(pages), instance_specs(pages), latest)


def parse_pages(pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame]) -> Parsed:
    """The connector's parse: the offers and every staged table (`STAGED`), each page
    decoded once. `latest[SPOT_PRICES.name]`, when given: the newest stored point of each
    series, the pages holding only the spot pages landed since the last parse."""
    points = _spot_points_all(pages)
    specs = instance_specs(pages)
    return Parsed(
        _offers(pages, points, specs, latest.get(SPOT_PRICES.name)),
        {
            SPOT_PRICES.name: _valid_points(points),
            INSTANCE_TYPES.name: specs,
            SPOT_ADVISOR.name: parse_spot_advisor(pages),
        },
    )


# --- Spot Instance Advisor ------------------------------------------------------------------------


def parse_spot_advisor(pages: pl.DataFrame) -> pl.DataFrame:
    """stg_aws__spot_advisor: interruption bucket and savings per region x instance type (Linux)."""
    raw = _endpoint(pages, s.SPOT_ADVISOR)
    if raw.is_empty():
        return pl.DataFrame(schema=ADVISOR_COLUMNS)
    ranges = (
        raw.select(
            "load_id", pl.col("payload").str.json_decode(ADVISOR_RANGES).struct.field("ranges")
        )
        .explode("ranges")
        .drop_nulls("ranges")
        .unnest("ranges")
        .select("load_id", pl.col("index").alias("r"), pl.col("label").alias("interruption_bucket"))
    )
    # Region and instance-type keys are data, so this struct's dtype is inferred from
    # the document (the Series API still infers); the leaves ({s, r}) are cast below.
    advisor = raw.select("load_id", "fetched_at").with_columns(
        by_region=raw["payload"]
        .str.json_path_match("$.spot_advisor")
        .str.json_decode(infer_schema_length=None)
    )
    frames = []
    # a loop over the feed's region keys (its schema), ~33, not over rows
    for region in advisor.schema["by_region"].to_schema():  # type: ignore[union-attr]
        by_os = advisor.select(
            "load_id", "fetched_at", pl.col("by_region").struct.field(region).alias("os")
        )
        if s.SPOT_ADVISOR_OS not in by_os.schema["os"].to_schema():  # type: ignore[union-attr]
            continue
        types = by_os.select(
            "load_id", "fetched_at", pl.col("os").struct.field(s.SPOT_ADVISOR_OS).alias("types")
        )
        if not isinstance(types.schema["types"], pl.Struct) or not types.schema["types"].fields:
            continue  # a region with no Linux types listed ({} or null): nothing to read
        linux = types.unnest("types")
        frames.append(
            linux.unpivot(index=["load_id", "fetched_at"], variable_name="instance_type")
            .drop_nulls("value")
            .unnest("value")
            .with_columns(region=pl.lit(region))
        )
    if not frames:
        return pl.DataFrame(schema=ADVISOR_COLUMNS)
    rows = pl.concat(frames, how="diagonal_relaxed").with_columns(
        pl.col("r").cast(pl.Int64), pl.col("s").cast(pl.Float64)
    )
    return (
        rows.join(ranges, on=["load_id", "r"], how="left")
        .with_columns(
            provider=pl.lit(s.PROVIDER),
            os=pl.lit(s.SPOT_ADVISOR_OS),
            interruption_rate_max_pct=pl.col("interruption_bucket").replace_strict(
                {k: float(v) for k, v in s.INTERRUPTION_RATE_MAX_PCT.items()},
                default=None,
                return_dtype=pl.Float64,
            ),
            savings_pct=pl.col("s"),
        )
        .select(list(ADVISOR_COLUMNS))
        .sort("region", "instance_type")
    )
