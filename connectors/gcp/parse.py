"""GCP parse: Cloud Billing Catalog SKU pages -> canonical offers, in two views.

1. Per-GPU offers: one row per GPU SKU x region in `serviceRegions` x pricing model,
   instance_type = the accelerator type (`nvidia-h100-80gb`), gpu_count 1, the GPU SKU's
   hourly price. GCP bills the host separately, so this is the accelerator alone (except
   the A4 B200 slice, which includes its host).
2. Composed machine types: for every shape in machine_shapes.csv and every region and
   pricing model where its GPU, core and RAM SKUs all exist,
       price = vCPUs x core SKU + GiB x RAM SKU + GPUs x GPU SKU (+ bundled SSD),
   so `price_usd_per_gpu_hour` includes the host share. Machines with bundled local SSD
   (a2-ultragpu, a3, a4) add local_ssd_gib x the Local SSD SKU (per GiB-month) / 730 h, as
   Google bills them.

Price of a SKU = units + nanos / 1e9 of the first tier of the first pricingInfo, per
`usageUnit` ("h"; RAM "GiBy.h"). Prices are carried as integer nanos until the final
division, so a composed price is the correctly rounded double of the exact decimal sum.

Pure Polars: the page JSON is decoded with a declared schema, SKUs exploded, and every
rule is an expression; the composition is a join of the machine shapes with the SKU
prices. Each SKU is accounted for: published (ok), excluded with a reason (exclusion
words, usage types outside the vocabulary, unmatched descriptions, SKUs that are not an
accelerator or its host, duplicates), or rejected to quarantine with a reason.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from common.gpu import identified
from connectors.gcp import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.normalise import parse_tail

MONEY = pl.Struct({"currencyCode": pl.String, "units": pl.String, "nanos": pl.Int64})
SKU = pl.Struct(
    {
        "name": pl.String,
        "skuId": pl.String,
        "description": pl.String,
        "category": pl.Struct(
            {
                "serviceDisplayName": pl.String,
                "resourceFamily": pl.String,
                "resourceGroup": pl.String,
                "usageType": pl.String,
            }
        ),
        "serviceRegions": pl.List(pl.String),
        "pricingInfo": pl.List(
            pl.Struct(
                {
                    "summary": pl.String,
                    "effectiveTime": pl.String,
                    "currencyConversionRate": pl.Float64,
                    "pricingExpression": pl.Struct(
                        {
                            "usageUnit": pl.String,
                            "usageUnitDescription": pl.String,
                            "baseUnit": pl.String,
                            "baseUnitConversionFactor": pl.Float64,
                            "displayQuantity": pl.Float64,
                            "tieredRates": pl.List(
                                pl.Struct({"startUsageAmount": pl.Float64, "unitPrice": MONEY})
                            ),
                        }
                    ),
                }
            )
        ),
        "serviceProviderName": pl.String,
        "geoTaxonomy": pl.Struct({"type": pl.String, "regions": pl.List(pl.String)}),
    }
)
PAGE = pl.Struct({"skus": pl.List(SKU), "nextPageToken": pl.String})
SHAPES_CSV = Path(__file__).with_name("machine_shapes.csv")
NANOS = 1_000_000_000
GPU_IDENTITY = ("gpu_name", "gpu_memory_gib", "gpu_variant")

_RESOURCE_SCHEMA = {
    "body": pl.String,
    "component": pl.String,
    "accelerator": pl.String,
    "host_included": pl.Boolean,
    "host_family": pl.String,
}


def machine_shapes() -> pl.DataFrame:
    """The bundled machine-shape table: machine_type, vcpus, memory_gib, gpu_count,
    accelerator, host_family (null = the GPU SKU includes the host)."""
    return pl.read_csv(
        SHAPES_CSV,
        schema_overrides={
            "vcpus": pl.Int64,
            "memory_gib": pl.Int64,
            "gpu_count": pl.Int64,
            "host_family": pl.String,
            "local_ssd_gib": pl.Int64,
        },
    ).drop("source")


def resources() -> pl.DataFrame:
    """settings.GPU_SKUS and HOST_SKUS as a lookup frame keyed by description body. The
    GPU of a GPU SKU, its memory and form factor are the shared GPU rule's (connectors/kit/
    gpu.py), from the description ("Nvidia H100 80GB GPU") and the accelerator's family
    ("nvidia-tesla-a100" is the 40 GB part): every shape priced from it carries them."""
    gpus = [
        {"body": body, "component": "gpu", "accelerator": accel, "host_included": included}
        for body, (accel, included) in s.GPU_SKUS.items()
    ]
    hosts = [
        {"body": body, "component": part, "host_family": family}
        for body, (family, part) in {**s.HOST_SKUS, **s.STORAGE_SKUS}.items()
    ]
    frame = pl.DataFrame(gpus + hosts, schema=_RESOURCE_SCHEMA)
    return identified(frame, s.PROVIDER, "accelerator", "body").with_columns(
        [pl.when(pl.col("component") == "gpu").then(c).alias(c) for c in GPU_IDENTITY]
    )


def usd(nanos: pl.Expr) -> pl.Expr:
    """Nanos as USD, correctly rounded: a Float64 division by a constant is done by
    Polars as a multiplication by its reciprocal (1.9e9 * 1e-9 = 1.9000000000000001), so
    the division goes through Decimal."""
    return nanos.cast(pl.Decimal(38, 9)).truediv(NANOS).cast(pl.Float64)


def _first_match(text: pl.Expr, rules: tuple[tuple[str, str], ...]) -> pl.Expr:
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for pattern, reason in reversed(rules):
        out = pl.when(text.str.contains(pattern)).then(pl.lit(reason)).otherwise(out)
    return out


def decode_skus(pages: pl.DataFrame) -> pl.DataFrame:
    """One row per SKU: the raw SKU as `_item` plus its fields, with the page's lineage.
    Every page of a Compute Engine walk holds SKUs: `skus` missing, null or empty is drift
    (connectors.kit.decode's page guard), not a catalog that shrank; a page that does not
    decode as a ListSkusResponse is named by the kit (`Connector.parse`)."""
    return explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "skus")


def classify(skus: pl.DataFrame) -> pl.DataFrame:
    """Per SKU: resource (GPU / host core / host RAM), pricing model, price in nanos, and
    status with reason. Still one row per SKU (regions not yet exploded)."""
    desc = pl.col("description").fill_null("")
    usage = pl.col("category").struct.field("usageType")
    group = pl.col("category").struct.field("resourceGroup")
    info = pl.col("pricingInfo").list.first()
    expression = info.struct.field("pricingExpression")
    money = expression.struct.field("tieredRates").list.first().struct.field("unitPrice")
    units_text = money.struct.field("units")
    units = units_text.cast(pl.Int64, strict=False)
    # proto3 JSON omits zero-valued fields: a missing units or nanos is 0
    nanos = units.fill_null(0) * NANOS + money.struct.field("nanos").fill_null(0)
    currency = money.struct.field("currencyCode")
    unit = expression.struct.field("usageUnit")
    expected_unit = pl.col("component").replace_strict(s.USAGE_UNITS, default=None)
    spot_by_description = usage.is_in(["OnDemand", "Preemptible"]) & desc.str.contains(
        s.SPOT_MARKER
    )
    flex = (usage == "OnDemand") & desc.str.contains(s.FLEX_MARKER)

    with_resource = skus.with_columns(
        body=pl.coalesce(desc.str.extract(s.DESCRIPTION_BODY, 1), desc),
        pricing_model=pl.when(spot_by_description)
        .then(pl.lit("spot"))
        .when(flex)
        .then(pl.lit("flex"))
        .otherwise(usage.replace_strict(s.USAGE_TYPES, default=None)),
    ).join(resources(), on="body", how="left")

    excluded = pl.coalesce(
        _first_match(desc, s.EXCLUSIONS),
        pl.when(~flex & desc.str.contains(s.DWS_EXCLUSION[0])).then(pl.lit(s.DWS_EXCLUSION[1])),
        pl.when(pl.col("pricing_model").is_null()).then(
            pl.format(s.EXCLUDE_USAGE_TYPE, usage.fill_null("(none)"))
        ),
        pl.when(
            pl.col("component").is_null()
            & ((group == "GPU").fill_null(False) | desc.str.contains(s.GPU_HINT))
        ).then(pl.lit(s.EXCLUDE_UNMATCHED)),
        pl.when(pl.col("component").is_null()).then(pl.lit(s.EXCLUDE_NOT_ACCELERATOR)),
    )
    rejected = (
        pl.when(pl.col("pricingInfo").list.len().fill_null(0) == 0)
        .then(pl.lit("SKU has no pricingInfo"))
        .when(money.is_null())
        .then(pl.lit("SKU has no tieredRates[0].unitPrice"))
        .when(units_text.is_not_null() & units.is_null())
        .then(pl.format("unit price units {} is not an integer", units_text))
        .when(unit.is_null() | (unit != expected_unit))
        .then(
            pl.format(
                "usage unit {} is not the {} a {} SKU is priced in",
                unit.fill_null("(none)"),
                expected_unit,
                pl.col("component"),
            )
        )
        .when(currency.is_null())
        .then(pl.lit("unit price has no currencyCode"))
        .when(currency != "USD")
        .then(pl.format("non-USD price in {} and no recorded conversion rate", currency))
        .when(nanos <= 0)
        .then(pl.format("price {} USD per {} is not positive", usd(nanos), unit))
        .when(pl.col("serviceRegions").list.len().fill_null(0) == 0)
        .then(pl.lit("SKU lists no serviceRegions"))
    )
    # the verdict now, not at the parse's end: deduplication and pricing read it
    return parse_tail(
        with_resource.with_columns(
            price_nanos=nanos,
            source_currency=currency,
            source_unit=unit,
            effective_at=info.struct.field("effectiveTime")
            .str.to_datetime(time_zone="UTC", strict=False)
            .dt.replace_time_zone(None),
            _excluded=excluded,
            _rejected=rejected,
        )
    )


def _dedupe(priced: pl.DataFrame) -> pl.DataFrame:
    """One SKU per offer: a region can list two SKUs for the same resource (the A3 Mega
    "Mega"/"Plus" spellings, "for 3 Year"/"for 3 Years" commitments, a spot SKU and an
    OnDemand-categorised "Spot Preemptible" one). Keep the most recently effective, then
    the lowest skuId; the others are excluded with the kept SKU named."""
    key = [
        "region",
        pl.coalesce("accelerator", pl.format("{}:{}", "host_family", "component")),
        "pricing_model",
    ]
    ranked = priced.sort(
        ["effective_at", "skuId"], descending=[True, False], nulls_last=True
    ).with_columns(
        _rank=pl.int_range(pl.len()).over(key),
        _kept=pl.col("skuId").first().over(key),
    )
    return ranked.with_columns(
        status=pl.when(pl.col("_rank") > 0).then(pl.lit("excluded")).otherwise("status"),
        reason=pl.when(pl.col("_rank") > 0)
        .then(pl.format(s.EXCLUDE_DUPLICATE, "_kept"))
        .otherwise("reason"),
    ).drop("_rank", "_kept")


def _flex_detail(detail: pl.Expr) -> pl.Expr:
    """Flex-start rows say what the term is, ahead of how the price is made."""
    return (
        pl.when(pl.col("pricing_model") == "flex")
        .then(pl.format("{}; {}", pl.lit(s.FLEX_DETAIL), detail))
        .otherwise(detail)
    )


def _per_gpu(gpus: pl.DataFrame) -> pl.DataFrame:
    price = usd(pl.col("price_nanos"))
    return gpus.with_columns(
        provider=pl.lit(s.PROVIDER),
        instance_type="accelerator",
        pricing_detail=_flex_detail(
            pl.when("host_included")
            .then(pl.lit(s.PER_GPU_DETAIL_HOST_INCLUDED))
            .otherwise(pl.lit(s.PER_GPU_DETAIL))
        ),
        gpu_count=pl.lit(1.0),
        price_usd_per_hour=price,
        source_price=price,
    )


def _composed(gpus: pl.DataFrame, hosts: pl.DataFrame) -> pl.DataFrame:
    """Machine shapes x GPU price x host core and RAM prices, same region and model."""
    on = ["region", "host_family", "pricing_model"]

    def part(component: str) -> pl.DataFrame:
        return hosts.filter(pl.col("component") == component).select(
            *on,
            pl.col("price_nanos").alias(f"{component}_nanos"),
            pl.col("skuId").alias(f"{component}_sku"),
            pl.col("effective_at").alias(f"{component}_effective_at"),
            pl.col("fetched_at").alias(f"{component}_fetched_at"),
        )

    gpu = gpus.select(
        "accelerator",
        "region",
        "pricing_model",
        *GPU_IDENTITY,
        "source_currency",
        "load_id",
        "endpoint",
        "fetched_at",
        "effective_at",
        pl.col("price_nanos").alias("gpu_nanos"),
        pl.col("skuId").alias("gpu_sku"),
    )
    ssd = hosts.filter(pl.col("component") == "ssd")
    ssd_same_model = ssd.select(
        "region",
        "pricing_model",
        pl.col("price_nanos").alias("_ssd_model_nanos"),
        pl.col("skuId").alias("_ssd_model_sku"),
    )
    ssd_on_demand = ssd.filter(pl.col("pricing_model") == "on_demand").select(
        "region",
        pl.col("price_nanos").alias("_ssd_od_nanos"),
        pl.col("skuId").alias("_ssd_od_sku"),
    )
    committed = pl.col("pricing_model").str.starts_with("reserved_")
    machines = (
        machine_shapes()
        .join(gpu, on="accelerator", how="inner")
        .join(part("core"), on=on, how="left")
        .join(part("ram"), on=on, how="left")
        .join(ssd_same_model, on=["region", "pricing_model"], how="left")
        .join(ssd_on_demand, on="region", how="left")
        .with_columns(
            # the SSD SKU of the same pricing model; a commitment with none takes the
            # on-demand SSD rate (said in pricing_detail)
            ssd_nanos=pl.coalesce(
                "_ssd_model_nanos", pl.when(committed).then(pl.col("_ssd_od_nanos"))
            ),
            ssd_sku=pl.coalesce("_ssd_model_sku", pl.when(committed).then(pl.col("_ssd_od_sku"))),
            _ssd_fallback=pl.col("_ssd_model_nanos").is_null()
            & committed
            & pl.col("_ssd_od_nanos").is_not_null(),
        )
        # a machine is published only where all its parts are priced (bundled local SSD
        # included); a4 has no host part
        .filter(
            (
                pl.col("host_family").is_null()
                | (pl.col("core_nanos").is_not_null() & pl.col("ram_nanos").is_not_null())
            )
            & ((pl.col("local_ssd_gib") == 0) | pl.col("ssd_nanos").is_not_null())
        )
    )
    total_nanos = (
        pl.col("gpu_count").cast(pl.Float64) * pl.col("gpu_nanos")
        + pl.col("vcpus").cast(pl.Float64) * pl.col("core_nanos").fill_null(0)
        + pl.col("memory_gib").cast(pl.Float64) * pl.col("ram_nanos").fill_null(0)
        # GiB-month rate -> per hour
        + pl.col("local_ssd_gib").cast(pl.Float64)
        * pl.col("ssd_nanos").fill_null(0)
        / s.GCP_BILLING_HOURS_PER_MONTH
    )
    price = usd(total_nanos)
    detail = (
        pl.when(pl.col("local_ssd_gib") > 0)
        .then(pl.lit(s.COMPOSED_SSD_DETAIL))
        .otherwise(pl.lit(s.COMPOSED_DETAIL))
    )
    detail = pl.when(pl.col("_ssd_fallback")).then(
        pl.format("{}; {}", detail, pl.format(s.SSD_AT_ON_DEMAND_DETAIL, "pricing_model"))
    ).otherwise(detail)
    return machines.with_columns(
        provider=pl.lit(s.PROVIDER),
        host_included=pl.lit(True),  # a whole machine: host cores and RAM priced in
        instance_type="machine_type",
        pricing_detail=_flex_detail(detail),
        price_usd_per_hour=price,
        source_price=price,
        source_unit=pl.lit("h"),
        effective_at=pl.max_horizontal("effective_at", "core_effective_at", "ram_effective_at"),
        fetched_at=pl.max_horizontal("fetched_at", "core_fetched_at", "ram_fetched_at"),
        status=pl.lit("ok"),
        record=pl.struct(
            "machine_type",
            "vcpus",
            "memory_gib",
            "gpu_count",
            "gpu_sku",
            "gpu_nanos",
            "core_sku",
            "core_nanos",
            "ram_sku",
            "ram_nanos",
            "local_ssd_gib",
            "ssd_sku",
            "ssd_nanos",
        ).struct.json_encode(),
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    skus = classify(decode_skus(pages))
    priced = (
        skus.filter(pl.col("status") == "ok")
        .explode("serviceRegions")
        .rename({"serviceRegions": "region"})
    )
    priced = _dedupe(priced)
    kept = priced.filter(pl.col("status") == "ok")
    gpus = kept.filter(pl.col("component") == "gpu")
    hosts = kept.filter(pl.col("component") != "gpu")
    # SKUs that are not published: one row each (excluded are counted, rejected go to
    # quarantine with the raw SKU); duplicates one row per region they were listed in
    unpublished = pl.concat(
        [
            skus.filter(pl.col("status") != "ok").with_columns(
                region=pl.col("serviceRegions").list.first()
            ),
            priced.filter(pl.col("status") != "ok"),
        ],
        how="diagonal_relaxed",
    ).with_columns(
        provider=pl.lit(s.PROVIDER),
        instance_type=pl.coalesce("accelerator", "body", "skuId"),
    )
    columns = [
        "provider",
        "region",
        "zone",
        "instance_type",
        "pricing_model",
        "pricing_detail",
        *GPU_IDENTITY,
        "gpu_count",
        "vcpus",
        "memory_gib",
        "price_usd_per_hour",
        "host_included",
        "source_currency",
        "source_price",
        "source_unit",
        "effective_at",
        "fetched_at",
        "load_id",
        "endpoint",
        "status",
        "reason",
        "record",
        "_item",
    ]
    frames = [_per_gpu(gpus), _composed(gpus, hosts), unpublished]
    return pl.concat(
        [f.select([c for c in columns if c in f.columns]) for f in frames],
        how="diagonal_relaxed",
    )
