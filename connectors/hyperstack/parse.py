"""Hyperstack parse: raw pricebook pages -> canonical offers (pure Polars).

The pricebook is a bare array of `{id, name, value, original_value, discount_applied,
start_time, end_time}`; a GPU entry's `value` is USD per GPU-hour. Each GPU entry is one
offer of one GPU (instance_type = the pricebook name), on demand, or spot for a "-spot"
entry. Non-GPU entries (vCPU, RAM, storage, network, model tokens) are excluded with a
reason; a GPU-shaped name not in the map keeps gpu_name null (counted). Prices are
decoded as text and cast to Decimal.
"""

from __future__ import annotations

import polars as pl

from common import gpu
from connectors.hyperstack import settings as s
from connectors.kit.decode import explode_pages
from connectors.kit.money import decimal, usd

ITEM = pl.Struct(
    {
        "id": pl.String,
        "name": pl.String,
        "value": pl.String,
        "original_value": pl.String,
        "discount_applied": pl.Boolean,
        "start_time": pl.String,
        "end_time": pl.String,
    }
)
PAGE = pl.Struct({"items": pl.List(ITEM)})


def _utc(col: str) -> pl.Expr:
    """An ISO 8601 time in UTC ("...Z", "+00:00" or no offset) as naive UTC; null else."""
    return (
        pl.col(col)
        .str.replace(r"(Z|[+-]00:?00)$", "")
        .str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", strict=False, time_unit="us")
    )


def _items(pages: pl.DataFrame) -> pl.DataFrame:
    # the body is a bare array: wrap it so the shared decoder sees an `items` list
    wrapped = pages.filter(pl.col("endpoint") == s.ENDPOINT).with_columns(
        payload=pl.concat_str(pl.lit('{"items":'), pl.col("payload"), pl.lit("}"))
    )
    return explode_pages(wrapped, PAGE, "items")


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    name = pl.col("name").fill_null("")
    items = _items(pages).with_columns(
        _spot=name.str.contains(s.SPOT_SUFFIX),
        _base=name.str.replace(s.SPOT_SUFFIX, ""),
    )
    # the GPU the entry names, as the shared GPU rule reads it (common/gpu.py);
    # a variant whose meaning the docs do not state ("-IB", "-k8s", "-sm") names none
    unstated = pl.col("_base").str.contains(s.UNSTATED_VARIANT)
    items = items.with_columns(
        _words=pl.when(~unstated).then(pl.col("_base")).otherwise(pl.lit("")),
    ).with_columns(_gpu=gpu.gpu_name(pl.col("_words")))
    excluded: pl.Expr = pl.when(pl.col("_gpu").is_null() & ~name.str.contains(s.GPU_SHAPED))
    excluded = excluded.then(pl.lit(s.EXCLUDE_OTHER))
    for pattern, reason in reversed(s.NON_GPU):
        excluded = (
            pl.when(pl.col("_gpu").is_null() & name.str.contains(pattern))
            .then(pl.lit(reason))
            .otherwise(excluded)
        )
    start, end = _utc("start_time"), _utc("end_time")
    excluded = (
        pl.when(end.is_not_null() & (end <= pl.col("fetched_at")))
        .then(pl.lit("price period ended before the fetch (end_time)"))
        .when(start.is_not_null() & (start > pl.col("fetched_at")))
        .then(pl.lit("price not in effect yet at the fetch (start_time)"))
        .otherwise(excluded)
    )
    price = decimal(pl.col("value"))
    rejected = (
        pl.when(pl.col("name").is_null())
        .then(pl.lit("missing field name"))
        .when(price.is_null())
        .then(pl.format("value {} is not a number", pl.col("value")))
    )
    discounted = pl.col("discount_applied").fill_null(False)
    detail = pl.when(pl.col("_spot")).then(pl.lit(s.SPOT_DETAIL))
    return items.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.lit(s.REGION),
        instance_type=pl.col("name"),
        pricing_model=pl.when(pl.col("_spot")).then(pl.lit("spot")).otherwise(pl.lit("on_demand")),
        pricing_detail=pl.when(discounted)
        .then(
            pl.concat_str(
                detail,
                pl.format("discount applied (list {})", pl.col("original_value")),
                separator="; ",
                ignore_nulls=True,
            )
        )
        .otherwise(detail),
        gpu_text=pl.col("_words"),
        gpu_count=pl.lit(1.0),
        price_usd_per_hour=usd(price),
        source_price=usd(price),
        source_unit=pl.lit("USD per GPU-hour (pricebook value)"),
        effective_at=start,
        expires_at=end,
        _excluded=excluded,
        _rejected=rejected,
    )
