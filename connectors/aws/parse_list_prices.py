"""AWS parse of the list prices: the Price List Query API's products and the bulk offer
CSV, on-demand and reserved (upfront fees amortised over the term)."""

from __future__ import annotations

import io

import polars as pl

from connectors.aws import settings as s
from connectors.aws.shapes import (
    OFFER_CSV_COLUMNS,
    PRICE_LIST_ITEM,
    PRICE_LIST_PAGE,
    _endpoint,
    _number,
    _utc,
)
from connectors.kit.decode import guard_pages
from connectors.kit.normalise import verdict

# --- list prices: shared -----------------------------------------------------------------


def _reserved_options() -> list[tuple[str, str, str]]:
    return [
        (lease, cls, option)
        for lease in s.LEASE_YEARS
        for cls in s.OFFERING_CLASSES
        for option in s.PURCHASE_OPTIONS
    ]


def _amortised(hourly: pl.Expr, upfront: pl.Expr, years: pl.Expr | int) -> pl.Expr:
    """Effective hourly price of a reservation: recurring hourly + upfront fee spread over
    the term (8760 h a year). Null when neither part is priced. The fee is multiplied by
    the reciprocal of the term's hours, whatever gives the years: what Polars computes for
    a constant divisor over more than one row (over one row it divides, ~1e-14 apart), so a
    price does not depend on how many offers were parsed with it."""
    spread = upfront.fill_null(0.0) * (1.0 / (years * s.HOURS_PER_YEAR))
    return pl.when(hourly.is_not_null() | upfront.is_not_null()).then(
        hourly.fill_null(0.0) + spread
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

# An item's terms are maps keyed by codes AWS prefixes with the item's SKU (an offer term
# "SKU.TERMCODE", a price dimension "SKU.TERMCODE.RATECODE"). Cut to their last part, the
# terms of every item decode together into one struct (a field per term code, a field per
# rate code) instead of a field per SKU: one decode of each item, where a JSONPath per
# option and price read the whole item again (~70 reads of ~10 KB per item, 12 ms; 6 s
# for 480 items). Nothing is read from a key: a term's kind, attributes and prices come
# from its fields, and a key of another form only makes the struct wider.
_TERM_KEY = r'"[0-9A-Za-z]+\.(?:[0-9A-Za-z]+\.)?([0-9A-Za-z]+)"(\s*):'


def _fields(dtype: pl.DataType) -> list[str]:
    return [f.name for f in dtype.fields] if isinstance(dtype, pl.Struct) else []


def _nested(dtype: pl.DataType, *path: str) -> pl.Expr:
    """The field at `path` of the term (`_term`, of type `dtype`), a null text where the
    type has no such field (an on-demand term's attributes are empty)."""
    expr = pl.col("_term")
    for name in path:
        if name not in _fields(dtype):
            return pl.lit(None, dtype=pl.String)
        expr, dtype = expr.struct.field(name), dtype.to_schema()[name]
    return expr


def _first_dimension(dtype: pl.DataType, unit: str) -> pl.Expr:
    """The USD price (text) of the term's first price dimension in `unit`, else null."""
    rates = (
        _fields(dtype.to_schema()["priceDimensions"]) if "priceDimensions" in _fields(dtype) else []
    )
    return pl.coalesce(
        pl.lit(None, dtype=pl.String),
        *(
            pl.when(_nested(dtype, "priceDimensions", rate, "unit") == unit).then(
                _nested(dtype, "priceDimensions", rate, "pricePerUnit", "USD")
            )
            for rate in rates
        ),
    )


_TERM_SCHEMA = {
    "_item": pl.UInt32,
    "_kind": pl.String,
    "_lease": pl.String,
    "_class": pl.String,
    "_option": pl.String,
    "_hourly": pl.String,
    "_upfront": pl.String,
    "_effective": pl.String,
}


def _terms(items: pl.DataFrame) -> pl.DataFrame:
    """One row per offer term (that names its SKU) of each item: `_item` (the item's
    position), `_kind` (OnDemand | Reserved), its attributes (`_lease`, `_class`,
    `_option`), `_hourly` and `_upfront` (its first Hrs and Quantity price, text) and
    `_effective`; by kind, then term code, then item."""
    terms = (
        items.get_column("_raw")
        .str.json_path_match("$.terms")
        .str.replace_all(_TERM_KEY, '"$1"$2:')
        .str.json_decode(infer_schema_length=None)
    )
    frames = []
    for kind in ("OnDemand", "Reserved"):
        group = terms.struct.field(kind) if kind in _fields(terms.dtype) else None
        for code in _fields(group.dtype) if group is not None else []:
            dtype = group.dtype.to_schema()[code]
            frames.append(
                pl.DataFrame({"_term": group.struct.field(code)})
                .with_row_index("_item")
                .filter(_nested(dtype, "sku").is_not_null())
                .select(
                    "_item",
                    _kind=pl.lit(kind),
                    _lease=_nested(dtype, "termAttributes", "LeaseContractLength"),
                    _class=_nested(dtype, "termAttributes", "OfferingClass"),
                    _option=_nested(dtype, "termAttributes", "PurchaseOption"),
                    _hourly=_first_dimension(dtype, "Hrs"),
                    _upfront=_first_dimension(dtype, "Quantity"),
                    _effective=_nested(dtype, "effectiveDate"),
                )
                .cast(_TERM_SCHEMA)
            )
    return pl.concat(frames) if frames else pl.DataFrame(schema=_TERM_SCHEMA)


def _options() -> pl.DataFrame:
    """The pricing options a term is read as, in the order their rows are listed: `_key`
    (as `_option_key` gives it), `_order`, pricing model and detail, lease years (0 on
    demand)."""
    keys, models, details, years = ["OnDemand"], ["on_demand"], [None], [0]
    for lease, cls, option in _reserved_options():
        keys.append(f"Reserved|{lease}|{cls}|{option}")
        models.append(f"reserved_{s.LEASE_YEARS[lease]}y")
        details.append(f"{cls}, {option}")
        years.append(s.LEASE_YEARS[lease])
    return pl.DataFrame(
        {"_key": keys, "pricing_model": models, "pricing_detail": details, "_years": years},
        schema_overrides={"pricing_detail": pl.String},
    ).with_row_index("_order")


def _price(hourly: pl.Expr, upfront: pl.Expr) -> pl.Expr:
    """The hourly price on demand, the amortised one of a reservation."""
    out = pl.when(pl.col("_years") == 0).then(hourly)
    for years in sorted(set(s.LEASE_YEARS.values())):
        out = out.when(pl.col("_years") == years).then(_amortised(hourly, upfront, years))
    return out


def _option_key() -> pl.Expr:
    """An on-demand term whatever its attributes; a reservation by its three attributes."""
    reserved = pl.concat_str([pl.col("_kind"), "_lease", "_class", "_option"], separator="|")
    return pl.when(pl.col("_kind") == "OnDemand").then(pl.lit("OnDemand")).otherwise(reserved)


def _price_list_offers(pages: pl.DataFrame) -> pl.DataFrame:
    raw = _endpoint(pages, s.PRICE_LIST)
    if raw.is_empty():
        return pl.DataFrame()
    # a family a region does not sell is an empty list; a page without one has drifted
    lists = pl.col("payload").str.json_decode(PRICE_LIST_PAGE).struct.field("PriceList")
    guard_pages(raw, lists, "PriceList", allow_empty=True)
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
    # each item once per option it is priced in (its first term of that option, where it
    # lists two alike): on demand first, then the reservation options in order
    terms = (
        _terms(items)
        .with_columns(_key=_option_key())
        .join(_options(), on="_key", how="inner")
        .unique(["_order", "_item"], keep="first", maintain_order=True)
    )
    hourly, upfront = _number(pl.col("_hourly")), _number(pl.col("_upfront"))
    on_demand = pl.col("_years") == 0
    rows = (
        items.with_row_index("_item")
        .join(terms, on="_item", how="inner")
        .sort("_order", "_item")
        .select(
            pl.exclude(terms.columns),
            "pricing_model",
            "pricing_detail",
            _price(hourly, upfront).alias("price_usd_per_hour"),
            hourly.alias("source_price"),
            pl.when(on_demand)
            .then(pl.lit("Hrs"))
            .otherwise(
                pl.format(
                    "Hrs + {} USD upfront per {} term", upfront.fill_null(0.0), pl.col("_lease")
                )
            )
            .alias("source_unit"),
            _utc(pl.col("_effective")).alias("effective_at"),
        )
    )
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
        pl.col("instanceType").alias("instance_type"),
        "pricing_model",
        "pricing_detail",
        "price_usd_per_hour",
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
