"""Rules every provider's offers pass through after its own `parse()`: one place for the
validity checks, the per-GPU-hour division and the spot-vs-on-demand flags.

Pure Polars expressions: no loop over rows. Returns the staged offers, the rejected
records (with the raw record as JSON, for quarantine) and the counts the ledger keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from warehouse.schemas import OFFER_SCHEMA, PRICING_MODELS, STAGED_COLUMNS, conform

# A per-GPU-hour price above this is a unit or parsing error, not a price: the dearest
# real list price we know of (an 8x H200 VM in a premium region) is ~15 USD/GPU-hour.
MAX_USD_PER_GPU_HOUR = 200.0


@dataclass(frozen=True)
class Normalised:
    offers: pl.DataFrame  # STAGED_COLUMNS
    rejected: pl.DataFrame  # load_id, provider, endpoint, reason, record
    excluded: pl.DataFrame  # load_id, reason, n
    unknown_gpu: pl.DataFrame  # load_id, n


def _reject(cond: pl.Expr, reason: pl.Expr | str) -> pl.Expr:
    reason_expr = pl.lit(reason) if isinstance(reason, str) else reason
    return pl.when((pl.col("status") == "ok") & cond).then(reason_expr)


def normalise(parsed: pl.DataFrame) -> Normalised:
    item = parsed.get_column("_item") if "_item" in parsed.columns else None
    df = conform(parsed.drop("_item", strict=False))
    if item is not None:
        df = df.with_columns(item.alias("_item"))
    price = pl.col("price_usd_per_hour")
    df = df.with_columns(
        status=pl.col("status").fill_null("ok"),
        price_usd_per_gpu_hour=pl.coalesce(
            "price_usd_per_gpu_hour",
            pl.when(pl.col("gpu_count") > 0).then(price / pl.col("gpu_count")),
        ),
    )
    checks = pl.coalesce(
        _reject(
            pl.col("source_currency").is_not_null() & (pl.col("source_currency") != "USD"),
            pl.format("non-USD price in {} and no recorded conversion rate", "source_currency"),
        ),
        _reject(price.is_null() | price.is_nan(), "price missing or not a number"),
        _reject(price <= 0, pl.format("price {} USD/h is not positive", price)),
        _reject(
            pl.col("price_usd_per_gpu_hour") > MAX_USD_PER_GPU_HOUR,
            pl.format(
                "price {} USD per GPU-hour is above the {} sanity limit",
                pl.col("price_usd_per_gpu_hour").round(4),
                pl.lit(MAX_USD_PER_GPU_HOUR),
            ),
        ),
        _reject(
            ~pl.col("pricing_model").is_in(PRICING_MODELS),
            pl.format("pricing_model {} is not in the vocabulary", "pricing_model"),
        ),
        _reject(
            pl.any_horizontal(pl.col("region", "instance_type").is_null()),
            "missing region or instance_type",
        ),
    )
    df = df.with_columns(
        status=pl.when(checks.is_not_null()).then(pl.lit("rejected")).otherwise("status"),
        reason=pl.coalesce(checks, "reason"),
    )
    ok = _flag_spot(df.filter(pl.col("status") == "ok"))

    rejected_rows = df.filter(pl.col("status") == "rejected")
    record = (
        pl.col("_item").struct.json_encode()
        if "_item" in rejected_rows.columns
        else pl.lit(None, dtype=pl.String)
    )
    rejected = rejected_rows.select(
        "load_id", "provider", "endpoint", "reason", pl.coalesce("record", record).alias("record")
    )
    excluded = df.filter(pl.col("status") == "excluded").group_by("load_id", "reason").len("n")
    unknown = ok.filter(pl.col("gpu_name").is_null()).group_by("load_id").len("n")
    return Normalised(ok.select(STAGED_COLUMNS), rejected, excluded, unknown)


def _flag_spot(ok: pl.DataFrame) -> pl.DataFrame:
    """Flag spot prices at or above the same offer's on-demand price (same provider,
    region and instance type): kept, because that is what the source says, but flagged."""
    key = ["provider", "region", "instance_type"]
    on_demand = (
        ok.filter(pl.col("pricing_model") == "on_demand")
        .group_by(key)
        .agg(pl.col("price_usd_per_hour").min().alias("_od"))
    )
    flagged = ok.join(on_demand, on=key, how="left").with_columns(
        price_flag=pl.coalesce(
            "price_flag",
            pl.when(
                (pl.col("pricing_model") == "spot") & (pl.col("price_usd_per_hour") > pl.col("_od"))
            )
            .then(pl.lit("spot_above_on_demand"))
            .when(
                (pl.col("pricing_model") == "spot")
                & (pl.col("price_usd_per_hour") == pl.col("_od"))
            )
            .then(pl.lit("spot_equals_on_demand")),
        )
    )
    return flagged.drop("_od")


__all__ = ["MAX_USD_PER_GPU_HOUR", "OFFER_SCHEMA", "Normalised", "normalise"]
