"""AWS parse of the Savings Plans rate files: savings_plan_1y / savings_plan_3y per
Compute or EC2 Instance Savings Plan rate."""

from __future__ import annotations

import polars as pl

from connectors.aws import settings as s
from connectors.aws.parse_list_prices import _local_zone_problem
from connectors.aws.shapes import _endpoint, _number, _utc
from connectors.kit.decode import guard_pages
from connectors.kit.normalise import verdict

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
    lists = pl.col("payload").str.json_decode(SAVINGS_PLANS_PAGE).struct.field("products")
    guard_pages(raw, lists, "products", allow_empty=True)  # kept rates only: may be none
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
            _duration_unit=pl.col("_term").struct.field("leaseContractLength").struct.field("unit"),
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
