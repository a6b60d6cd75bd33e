"""OCI parse: the raw price list -> canonical offers per GPU shape (pure Polars).

The price list has no shapes, only parts: a GPU part is billed "GPU Per Hour", already
per GPU. The bundled shape table (shapes.csv) says which shapes use which part and how
many GPUs they have, so each shape is one offer at part price x GPU count, region
'global'. Shapes that allow preemptible capacity get a spot offer at the documented 50%.
A GPU-hour part no shape uses (its GPU and GPU count are not identified from a source:
"H100T" B109480) is quarantined with a reason naming the part, never priced as a guess. Look-alike rows (software licences,
on-premises appliances) are excluded with a reason.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import explode_pages
from connectors.oci import settings as s

PRICE = pl.Struct({"model": pl.String, "value": pl.String})
ITEM = pl.Struct(
    {
        "partNumber": pl.String,
        "displayName": pl.String,
        "metricName": pl.String,
        "serviceCategory": pl.String,
        "currencyCodeLocalizations": pl.List(
            pl.Struct({"currencyCode": pl.String, "prices": pl.List(PRICE)})
        ),
    }
)
PAGE = pl.Struct({"lastUpdated": pl.String, "items": pl.List(ITEM)})


def shapes() -> pl.DataFrame:
    return pl.read_csv(
        s.SHAPES_CSV,
        schema_overrides={
            "gpu_count": pl.Float64,
            "vcpus": pl.Float64,
            "memory_gib": pl.Float64,
            "preemptible": pl.Boolean,
        },
    ).drop("source")


def _gpu_items(pages: pl.DataFrame) -> pl.DataFrame:
    locs = pl.col("currencyCodeLocalizations")
    usd = locs.list.eval(pl.element().filter(pl.element().struct.field("currencyCode") == "USD"))
    loc = pl.coalesce(usd.list.first(), locs.list.first())
    payg = loc.struct.field("prices").list.eval(
        pl.element().filter(pl.element().struct.field("model") == s.PAYG).struct.field("value")
    )
    return (
        explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "items")
        .filter(
            (pl.col("metricName") == s.GPU_METRIC)
            | pl.col("serviceCategory").is_in(s.GPU_CATEGORIES)
        )
        .with_columns(
            _currency=loc.struct.field("currencyCode"),
            _payg_n=payg.list.len().fill_null(0),
            _raw=payg.list.first(),
        )
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    items = _gpu_items(pages).join(
        shapes(), left_on="partNumber", right_on="part_number", how="left"
    )
    name = pl.col("displayName").fill_null("")
    category = pl.col("serviceCategory").fill_null("")
    excluded = (
        pl.when(name.str.contains(s.EXCLUDE_LICENCE_MARKER, literal=True))
        .then(pl.lit(s.EXCLUDE_LICENCE))
        .when(
            name.str.contains(s.EXCLUDE_ON_PREM_MARKER, literal=True)
            | category.str.contains(s.EXCLUDE_ON_PREM_MARKER, literal=True)
        )
        .then(pl.lit(s.EXCLUDE_ON_PREM))
        .when(pl.col("metricName") != s.GPU_METRIC)
        .then(pl.lit(s.EXCLUDE_OTHER_METRIC))
        .when(~category.is_in(s.GPU_CATEGORIES))
        .then(pl.format("{} ({})", pl.lit(s.EXCLUDE_CATEGORY), category))
    )
    value = pl.col("_raw").cast(pl.Float64, strict=False)
    words = name.str.to_uppercase().str.replace_all(r"[-_/]+", " ")
    token_pattern = pl.format("(^|[^A-Z0-9]){}([^A-Z0-9]|$)", pl.col("name_token"))
    drifted = pl.col("name_token").is_not_null() & ~words.str.contains(token_pattern)
    rejected = (
        pl.when(pl.col("partNumber").is_null())
        .then(pl.lit("missing field partNumber"))
        .when(pl.col("_payg_n") == 0)
        .then(pl.format("part {}: no {} price", pl.col("partNumber"), pl.lit(s.PAYG)))
        .when(pl.col("_payg_n") > 1)
        .then(
            pl.format(
                "part {}: {} {} prices (tiered), ambiguous",
                pl.col("partNumber"),
                pl.col("_payg_n"),
                pl.lit(s.PAYG),
            )
        )
        .when(value.is_null())
        .then(pl.format("part {}: price {} is not a number", pl.col("partNumber"), pl.col("_raw")))
        .when(drifted)
        .then(
            pl.format(
                "part {} is mapped to {} but its displayName '{}' no longer names {} "
                "(part number re-used?)",
                pl.col("partNumber"),
                pl.col("shape"),
                pl.col("displayName"),
                pl.col("name_token"),
            )
        )
        .when(pl.col("shape").is_null())
        .then(
            pl.format(
                "part {} ('{}') is a GPU-hour rental no shape in shapes.csv uses: which GPU "
                "and how many it prices is not identified from a source, so it is not "
                "priced (never guessed)",
                pl.col("partNumber"),
                pl.col("displayName"),
            )
        )
    )
    gpus = pl.col("gpu_count").fill_null(1.0)
    on_demand = items.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        _per_gpu=value,  # the list prices one GPU-hour: the machine is that x its GPUs
    )
    spot = items.filter(pl.col("preemptible").fill_null(False)).with_columns(
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.lit(s.PREEMPTIBLE_DETAIL),
        _per_gpu=value * s.PREEMPTIBLE_FACTOR,
    )
    return pl.concat([on_demand, spot]).with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.lit(s.REGION),
        instance_type=pl.coalesce("shape", "partNumber"),
        gpu_count=gpus,
        price_usd_per_hour=pl.col("_per_gpu") * gpus,
        source_currency=pl.col("_currency"),
        source_price=value,
        source_unit=pl.format("{} ({})", pl.col("metricName"), pl.col("partNumber")),
        _excluded=excluded,
        _rejected=rejected,
    )
