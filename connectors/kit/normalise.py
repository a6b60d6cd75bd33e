"""Rules every provider's offers pass through after its own `parse()`: one place for the
GPU's identity (name, memory and form factor from the source's words, common/gpu.py),
the conversion of non-USD prices with a recorded rate (connectors/kit/fx.py), the validity
checks, the per-GPU-hour division, the rounding of money to the nano-dollar and the
default provenance. (Spot prices at or above on-demand are flagged in the warehouse,
where every provider's current offers meet: sql/intermediate/int_offer_pairs.sql holds the
one pairing rule.)

Pure Polars expressions: no loop over rows. Returns the staged offers, the rejected
records (with the raw record as JSON, for quarantine) and the counts the ledger keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from common import gpu
from common.schemas import (
    MAX_USD_PER_GPU_HOUR,
    OFFER_SCHEMA,
    PRICING_MODELS,
    PROVENANCES,
    STAGED_COLUMNS,
    conform,
)
from connectors.kit import fx, provenance

# Published prices are rounded to the nano-dollar, the finest unit any source prices in
# (GCP's unit prices are units + nanos / 1e9). Float division leaves binary noise (Polars
# divides by a constant as a multiplication by its reciprocal: 69 / 100 = 0.6900000000000001);
# rounding to 9 decimals returns the double nearest the decimal value, and keeps every
# exact source price (a nano-priced sum such as 43.06615008) as it is.
MONEY_DECIMALS = 9
# A price whose effective date is more than this far after its fetch is not a price in
# force: publishers announce changes weeks to months ahead, never years, so a date such as
# 2999-01-01 is a placeholder or a data error (quarantined, not published as current).
MAX_EFFECTIVE_DAYS_AHEAD = 400


@dataclass(frozen=True)
class Normalised:
    offers: pl.DataFrame  # STAGED_COLUMNS
    rejected: pl.DataFrame  # load_id, provider, endpoint, reason, record
    excluded: pl.DataFrame  # load_id, reason, n
    unknown_gpu: pl.DataFrame  # load_id, n


def verdict(excluded: pl.Expr, rejected: pl.Expr | None = None) -> dict[str, pl.Expr]:
    """`status` and `reason` columns from a connector's own rules: an exclusion reason
    (out of scope on purpose) wins over a rejection reason (invalid); neither means ok."""
    status = pl.when(excluded.is_not_null()).then(pl.lit("excluded"))
    if rejected is not None:
        status = status.when(rejected.is_not_null()).then(pl.lit("rejected"))
    return {
        "status": status.otherwise(pl.lit("ok")),
        "reason": excluded if rejected is None else pl.coalesce(excluded, rejected),
    }


# The currency a source prices in when its parse names none: most price lists are in USD.
DEFAULT_CURRENCY = "USD"
EXCLUDED, REJECTED = "_excluded", "_rejected"


def parse_tail(parsed: pl.DataFrame) -> pl.DataFrame:
    """The defaults of every parse's tail, said here once, so a connector states only
    what its source says (a test fails on a parse that restates one):

    - `source_currency` USD when the parse has no such column;
    - `zone` (and any canonical column the parse leaves out) null (common.schemas.conform);
    - `status` and `reason` from the parse's `_excluded` and `_rejected` reason columns
      (`verdict`: an exclusion wins over a rejection; neither is ok); a parse with
      neither column and a status of its own keeps it, one with neither is all ok;
    - the per-GPU-hour price, computed in `normalise` from the machine's price and its
      GPU count, never by a parse.

    Applied where a parse's rows enter the kit (connectors.kit.connector.Parsed) and by
    `normalise`; applying it twice changes nothing."""
    columns = parsed.collect_schema().names()
    extra: dict[str, pl.Expr] = {}
    if "source_currency" not in columns:
        extra["source_currency"] = pl.lit(DEFAULT_CURRENCY)
    if EXCLUDED in columns or REJECTED in columns or "status" not in columns:
        none = pl.lit(None, dtype=pl.String)
        excluded = pl.col(EXCLUDED) if EXCLUDED in columns else none
        rejected = pl.col(REJECTED) if REJECTED in columns else None
        extra |= verdict(excluded, rejected)
    # the reason columns are spent: a later change of status (a duplicate set aside) stays
    return parsed.with_columns(**extra).drop(EXCLUDED, REJECTED, strict=False)


def cpu_only(gpus: pl.Expr, gpu_label: pl.Expr) -> pl.Expr:
    """A row that names no GPU and counts none: a CPU plan, out of scope (a connector
    excludes it). A row that names a GPU but counts none, or no number, is not a CPU plan:
    it stays in, and the shared GPU-count check (`_checks`) quarantines it with a reason."""
    label = gpu_label.cast(pl.String).str.strip_chars().fill_null("")
    return (gpus.fill_null(0) == 0) & (label == "")


def _checks(price: pl.Expr) -> list[tuple[pl.Expr, pl.Expr]]:
    """(is invalid, reason) pairs, first match wins. Reasons are formatted only for the
    rejected rows: formatting a string for each of a million good rows costs seconds."""
    per_gpu = pl.col("price_usd_per_gpu_hour")
    return [
        (
            fx.needs_rate() & ~pl.col("_fx_converted"),
            pl.format(
                "non-USD price in {} and no recorded conversion rate "
                "(sql/seeds/seed_fx_rates.csv has no {} row)",
                "source_currency",
                "source_currency",
            ),
        ),
        # a GPU named without a count, or a count that is not positive (an offer that
        # names neither is an unknown GPU: published and counted as such, `unknown_gpu`)
        (
            (pl.col("gpu_count").is_null() & pl.col("gpu_name").is_not_null())
            | (pl.col("gpu_count") <= 0),
            pl.format(
                "gpu_count {} is missing or not positive: not an offer of GPUs",
                pl.col("gpu_count").cast(pl.String).fill_null("null"),
            ),
        ),
        (price.is_null() | price.is_nan(), pl.lit("price missing or not a number")),
        (price <= 0, pl.format("price {} USD/h is not positive", price)),
        (
            per_gpu > MAX_USD_PER_GPU_HOUR,
            pl.format(
                "price {} USD per GPU-hour is above the {} sanity limit",
                per_gpu.round(4),
                pl.lit(MAX_USD_PER_GPU_HOUR),
            ),
        ),
        (
            ~pl.col("pricing_model").is_in(PRICING_MODELS).fill_null(False),
            pl.format("pricing_model {} is not in the vocabulary", "pricing_model"),
        ),
        (
            pl.any_horizontal(pl.col("region", "instance_type").is_null()),
            pl.lit("missing region or instance_type"),
        ),
        (
            pl.col("effective_at")
            > pl.col("fetched_at") + pl.duration(days=MAX_EFFECTIVE_DAYS_AHEAD),
            pl.format(
                "effective date {} is more than {} days after the fetch ({}): a placeholder "
                "or a data error, not a price in force",
                pl.col("effective_at").dt.date(),
                pl.lit(MAX_EFFECTIVE_DAYS_AHEAD),
                pl.col("fetched_at").dt.date(),
            ),
        ),
        (
            ~pl.col("provenance").is_in(PROVENANCES).fill_null(False),
            pl.format("provenance {} is not in the vocabulary", "provenance"),
        ),
    ]


def normalise(
    parsed: pl.DataFrame, records: Callable[[pl.Series], pl.Series] | None = None
) -> Normalised:
    """The shared rules over one provider's parsed rows (one batch of a larger parse
    too: no rule needs another row; the spot flags are set in SQL, int_offer_pairs).
    A rejected row's `record` is its raw item (`_item`), or for rows that carry only
    where their item is (`_at`), the item `records` reads back (connectors.kit.decode)."""
    parsed = parse_tail(parsed)
    item = parsed.get_column("_item") if "_item" in parsed.columns else None
    at = parsed.get_column("_at") if "_at" in parsed.columns else None
    if at is not None and records is None:
        raise ValueError("rows located by `_at` need the parse's `records` to be quarantined")
    text = parsed.get_column(gpu.GPU_TEXT) if gpu.GPU_TEXT in parsed.columns else None
    df = conform(parsed.drop("_item", "_at", gpu.GPU_TEXT, strict=False))
    # the GPU's identity (name, memory, form factor) from the source's words, where the
    # connector left it open: one rule for every provider (common/gpu.py)
    df = gpu.identify(df, text)  # row for row, in order: `item` still lines up
    # a price in another currency becomes USD here, with its recorded rate (or is rejected)
    df = fx.convert(df)
    price = pl.col("price_usd_per_hour")
    df = df.with_columns(
        status=pl.col("status").fill_null("ok"),
        price_usd_per_hour=price.round(MONEY_DECIMALS),
        # a connector that says nothing about provenance reads a provider's own prices
        provenance=provenance.provider_own(pl.col("provenance")),
        # per-GPU-hour is computed here and nowhere else: connectors hand over the
        # machine's price and its GPU count (a test fails on a parse that divides itself)
        price_usd_per_gpu_hour=pl.when(pl.col("gpu_count") > 0)
        .then(price / pl.col("gpu_count"))
        .round(MONEY_DECIMALS),
    )
    checks = _checks(price)
    invalid = pl.any_horizontal([cond.fill_null(False) for cond, _ in checks])
    df = df.with_columns(
        status=pl.when((pl.col("status") == "ok") & invalid)
        .then(pl.lit("invalid"))
        .otherwise("status")
    )
    ok = df.select(STAGED_COLUMNS).filter(df.get_column("status") == "ok")

    reason: pl.Expr = pl.lit(None, dtype=pl.String)
    for cond, text in reversed(checks):
        reason = pl.when(cond.fill_null(False)).then(text).otherwise(reason)
    bad = df.get_column("status").is_in(["rejected", "invalid"])
    # rechunked: Polars 2.1 panics ("assertion failed: i < self.len()") computing the
    # reason over rows filtered from columns in several chunks, as a parse that stacks
    # its items' prices leaves them (RunPod's page with a price of 0 crashed the refresh)
    rejected_rows = df.filter(bad).rechunk().with_columns(
        reason=pl.when(pl.col("status") == "invalid").then(reason).otherwise("reason")
    )
    # the raw items of the rejected rows only: filtering every item along with the good
    # rows cost ~0.35 s CPU per million Azure items
    if item is not None:
        record = item.filter(bad).struct.json_encode()
    elif at is not None and records is not None:
        record = records(at.filter(bad)).struct.json_encode()
    else:
        record = pl.lit(None, dtype=pl.String)
    rejected = rejected_rows.select(
        "load_id", "provider", "endpoint", "reason", pl.coalesce("record", record).alias("record")
    )
    excluded = df.filter(pl.col("status") == "excluded").group_by("load_id", "reason").len("n")
    unknown = ok.filter(pl.col("gpu_name").is_null()).group_by("load_id").len("n")
    return Normalised(ok, rejected, excluded, unknown)


def normalise_many(parses: dict[str, pl.DataFrame]) -> dict[str, Normalised]:
    """`normalise` over several providers' parsed rows in one call, each provider's share
    of the result apart (split by `load_id`: a load is one provider's). The rules cost
    ~25 ms a call whatever the rows (~100 Polars steps: the GPU's identity, the currency,
    the checks), so the demo's 18 small providers cost ~0.5 s one by one and ~0.06 s
    together; no rule needs another row, so each row comes out as `normalise` of its own
    provider's rows gives it. Each raw item (`_item`) is encoded to its `record` first,
    as a rejected row's would be: items of different shapes stack as text. Rows located
    by `_at` (read back by their own parse's `records`) cannot stack: normalise those
    alone."""
    located = [name for name, rows in parses.items() if "_at" in rows.columns]
    if located:
        raise ValueError(f"rows located by `_at` are normalised with their parse: {located}")
    loads = {name: rows.get_column("load_id") for name, rows in parses.items()}
    if any(ids.null_count() for ids in loads.values()):
        raise ValueError("a parsed row has no load_id: its provider cannot be told apart")
    stacked = pl.concat(
        [
            rows.with_columns(
                record=pl.coalesce("record", pl.col("_item").struct.json_encode())
            ).drop("_item")
            if "_item" in rows.columns
            else rows
            for rows in parses.values()
        ],
        how="diagonal",
    )
    together = normalise(stacked)
    return {
        name: Normalised(
            *(
                getattr(together, part).filter(pl.col("load_id").is_in(ids.unique().implode()))
                for part in ("offers", "rejected", "excluded", "unknown_gpu")
            )
        )
        for name, ids in loads.items()
    }


def combine(batches: list[Normalised]) -> Normalised:
    """Batches of one provider's parse, as one result."""
    if len(batches) == 1:
        return batches[0]

    def cat(frames: list[pl.DataFrame]) -> pl.DataFrame:
        return pl.concat(frames, how="vertical_relaxed", rechunk=False)

    return Normalised(
        cat([b.offers for b in batches]),
        cat([b.rejected for b in batches]),
        cat([b.excluded for b in batches]).group_by("load_id", "reason").agg(pl.col("n").sum()),
        cat([b.unknown_gpu for b in batches]).group_by("load_id").agg(pl.col("n").sum()),
    )


__all__ = [
    "DEFAULT_CURRENCY",
    "MAX_EFFECTIVE_DAYS_AHEAD",
    "MAX_USD_PER_GPU_HOUR",
    "MONEY_DECIMALS",
    "OFFER_SCHEMA",
    "Normalised",
    "normalise",
    "parse_tail",
]
