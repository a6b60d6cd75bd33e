"""Price sheets parse: raw CSV pages -> canonical offers (Polars).

Each page is one sheet; it is read with every column as text (a typed read would turn a
typo into a silent null), then every rule is an expression: explicit casts, dates, and a
reason for each row that cannot be published. `as_of` becomes `effective_at`;
`valid_until` becomes `expires_at`, so a historical row enters the history closed and
never shows as a current offer. The sheet's `gpu` text and `instance_type` are the
source's words for the GPU, named by the shared rule (common/gpu.py); the sheet states
no canonical name. Every row gets a `provenance`: 'illustrative' where the
sheet says so, 'unverified' where `source_url` is not a public http(s) address a reader can
check, else 'published_sheet'. The same offer listed twice across the sheets is rejected
(both rows), never silently de-duplicated.
"""

from __future__ import annotations

import io

import polars as pl

from connectors.sheets import settings as s

_COLUMNS = (*s.REQUIRED_COLUMNS, *s.OPTIONAL_COLUMNS)
_ROWS = {c: pl.String for c in _COLUMNS} | {"load_id": pl.String, "_read_error": pl.String}
_KEY = ["provider", "region", "instance_type", "pricing_model", "pricing_detail"]


def _read(load_id: str, sheet: str, payload: str) -> pl.DataFrame:
    """One sheet's rows, all text; a sheet that is not CSV becomes one row saying so."""
    try:
        rows = pl.read_csv(io.StringIO(payload), infer_schema=False)
        if s.LEGACY_GPU_COLUMN in rows.columns and "gpu" not in rows.columns:
            rows = rows.rename({s.LEGACY_GPU_COLUMN: "gpu"})
    except pl.exceptions.PolarsError as exc:
        return pl.DataFrame(
            {"load_id": [load_id], "_read_error": [f"sheet {sheet} is not readable CSV: {exc}"]},
            schema={"load_id": pl.String, "_read_error": pl.String},
        ).with_columns([pl.lit(None, dtype=pl.String).alias(c) for c in _COLUMNS])
    return rows.with_columns(
        [pl.lit(None, dtype=pl.String).alias(c) for c in _COLUMNS if c not in rows.columns]
    ).select(
        pl.lit(load_id).alias("load_id"),
        pl.lit(None, dtype=pl.String).alias("_read_error"),
        *[pl.col(c).str.strip_chars().replace("", None) for c in _COLUMNS],
    )


def rows(pages: pl.DataFrame) -> pl.DataFrame:
    sheets = pages.filter(pl.col("endpoint") == s.ENDPOINT)
    frames = [
        _read(load_id, scope, payload)
        for load_id, scope, payload in sheets.select("load_id", "scope", "payload").iter_rows()
    ]
    meta = sheets.select("load_id", "fetched_at", "endpoint", pl.col("scope").alias("sheet"))
    if not frames:
        return pl.DataFrame(schema=_ROWS).join(meta, on="load_id")
    return pl.concat(frames, how="vertical").join(meta.unique("load_id"), on="load_id", how="left")


def _date(col: str) -> pl.Expr:
    return pl.col(col).str.to_date("%Y-%m-%d", strict=False).cast(pl.Datetime("us"))


def _not_number(col: str) -> pl.Expr:
    return pl.col(col).is_not_null() & pl.col(col).cast(pl.Float64, strict=False).is_null()


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    df = rows(pages).with_columns(
        _item=pl.struct(pl.col("sheet"), *[pl.col(c) for c in _COLUMNS]),
        _dups=pl.len().over(_KEY),
        _dup_sheets=pl.col("sheet").unique().sort().str.join(", ").over(_KEY),
    )
    as_of, valid_until = _date("as_of"), _date("valid_until")
    missing = [pl.when(pl.col(c).is_null()).then(pl.lit(f"missing field {c}")) for c in s.NOT_EMPTY]
    rejected = pl.coalesce(
        pl.col("_read_error"),
        *missing,
        pl.when(~pl.col("provider").str.contains(s.PROVIDER_PATTERN)).then(
            pl.format("provider '{}' is not a lower-case provider name", pl.col("provider"))
        ),
        pl.when(as_of.is_null()).then(
            pl.format("as_of '{}' is not a YYYY-MM-DD date", pl.col("as_of"))
        ),
        pl.when(pl.col("valid_until").is_not_null() & valid_until.is_null()).then(
            pl.format("valid_until '{}' is not a YYYY-MM-DD date", pl.col("valid_until"))
        ),
        pl.when(valid_until <= as_of).then(
            pl.format(
                "valid_until {} is not after as_of {}", pl.col("valid_until"), pl.col("as_of")
            )
        ),
        pl.when(valid_until > pl.col("fetched_at")).then(
            pl.format(
                "valid_until {} is after the sheet was read ({}): a current price has no "
                "valid_until, a historical one has ended",
                pl.col("valid_until"),
                pl.col("fetched_at").dt.date(),
            )
        ),
        *[
            pl.when(_not_number(c)).then(pl.format("{} '{}' is not a number", pl.lit(c), pl.col(c)))
            for c in (
                "price_usd_per_hour",
                "source_price",
                "gpu_count",
                "gpu_memory_gib",
                "vcpus",
                "memory_gib",
            )
        ],
        pl.when(pl.col("_dups") > 1).then(
            pl.format(
                "the same offer is listed {} times (sheets: {})",
                pl.col("_dups"),
                pl.col("_dup_sheets"),
            )
        ),
    )
    price = pl.col("price_usd_per_hour").cast(pl.Float64, strict=False)
    currency = pl.col("source_currency").fill_null("USD").str.to_uppercase()
    illustrative = pl.col("illustrative").str.to_lowercase().is_in(s.TRUE_WORDS).fill_null(False)
    return df.with_columns(
        # the GPU as the sheet writes it ("H100", "h100 sxm 80gb", "A100-80G") beside the
        # instance type, and the memory it states: name, memory and form factor by the
        # shared GPU rule (common/gpu.py), as for every other source
        gpu_text=pl.concat_str(["gpu", "instance_type"], separator=" / ", ignore_nulls=True),
        gpu_memory_gib=pl.col("gpu_memory_gib").cast(pl.Float64, strict=False),
        gpu_count=pl.col("gpu_count").cast(pl.Float64, strict=False),
        vcpus=pl.col("vcpus").cast(pl.Float64, strict=False),
        memory_gib=pl.col("memory_gib").cast(pl.Float64, strict=False),
        # a non-USD row carries its native amount here: the shared normalise step converts
        # it with the recorded rate (connectors/kit/fx.py) or rejects it naming the currency
        price_usd_per_hour=pl.when(currency != "USD")
        .then(pl.coalesce(pl.col("source_price").cast(pl.Float64, strict=False), price))
        .otherwise(price),
        source_currency=currency,
        source_price=pl.coalesce(pl.col("source_price").cast(pl.Float64, strict=False), price),
        source_unit=pl.format("{} per hour, whole instance ({})", currency, pl.col("sheet")),
        provenance=pl.when(illustrative)
        .then(pl.lit("illustrative"))
        .when(~pl.col("source_url").str.contains(s.PUBLIC_URL_PATTERN).fill_null(False))
        .then(pl.lit("unverified"))
        .otherwise(pl.lit("published_sheet")),
        effective_at=as_of,
        expires_at=valid_until,
        _rejected=rejected,
    )
