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
