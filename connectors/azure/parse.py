"""Azure parse: raw Retail Prices pages (+ optional Resource SKU pages) -> canonical offers.

Pure Polars: the page JSON is decoded with a declared schema, `Items` exploded, and every
rule is an expression. Unknown fields are ignored by the declared schema; a missing field
decodes to null and is rejected (quarantine) with a reason, and so is a field that holds
an object where a value belongs (`"retailPrice": {...}`): that item alone is quarantined.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

import orjson
import polars as pl

from connectors.azure import settings as s
from connectors.kit.connector import Parsed
from connectors.kit.decode import explode_pages, item_records
from connectors.kit.normalise import parse_tail

ITEM = pl.Struct(
    {
        "currencyCode": pl.String,
        # numbers in the API, decoded as text and cast explicitly: a price that arrives as
        # anything else is quarantined with its value, not a failed refresh
        "tierMinimumUnits": pl.String,
        "retailPrice": pl.String,
        "unitPrice": pl.String,
        "armRegionName": pl.String,
        "location": pl.String,
        "effectiveStartDate": pl.String,
        "effectiveEndDate": pl.String,
        "meterId": pl.String,
        "meterName": pl.String,
        "productId": pl.String,
        "skuId": pl.String,
        "productName": pl.String,
        "skuName": pl.String,
        "serviceName": pl.String,
        "serviceId": pl.String,
        "serviceFamily": pl.String,
        "unitOfMeasure": pl.String,
        "type": pl.String,
        "isPrimaryMeterRegion": pl.Boolean,
        "armSkuName": pl.String,
        "reservationTerm": pl.String,
        # api-version 2023-01-01-preview, on eligible Consumption items: the hourly rate
        # under a 1-year and a 3-year savings plan for compute
        "savingsPlan": pl.List(
            pl.Struct({"unitPrice": pl.String, "retailPrice": pl.String, "term": pl.String})
        ),
        # not an API field: set by `_nested_as_text` on an item it had to repair
        "_malformed": pl.String,
    }
)
RETAIL_PAGE = pl.Struct(
    {"BillingCurrency": pl.String, "Items": pl.List(ITEM), "NextPageLink": pl.String}
)
# The item fields the rules below read, the only ones decoded for every item (a million
# items decode ~15% faster); a rejected item is quarantined whole all the same, read again
# with ITEM from its page (`item_records`). `isPrimaryMeterRegion` is read by no rule but
# decoded still: a value that is not a boolean fails its page, as ITEM's decode does.
READ = (
    "currencyCode", "retailPrice", "armRegionName", "effectiveStartDate", "meterName",
    "productName", "skuName", "serviceName", "unitOfMeasure", "type", "armSkuName",
    "reservationTerm", "savingsPlan", "isPrimaryMeterRegion", "_malformed",
)  # fmt: skip
READ_PAGE = pl.Struct(
    pl.Field(f.name, pl.List(pl.Struct(i for i in ITEM.fields if i.name in READ)))
    if f.name == "Items"
    else f
    for f in RETAIL_PAGE.fields
)


def _prices_as_numbers(dtype: pl.DataType) -> pl.DataType:
    """`dtype` with every `retailPrice` in it (an item's, a savings plan's) a number."""
    if isinstance(dtype, pl.List):
        return pl.List(_prices_as_numbers(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return pl.Struct(
            pl.Field(f.name, pl.Float64 if f.name == "retailPrice" else _prices_as_numbers(f.dtype))
            for f in dtype.fields
        )
    return dtype


# READ with the prices decoded straight as numbers, not as text cast to numbers (a million
# items decode ~0.4 s CPU faster): used where it reads what READ's text and its cast read
# (`_read_as_numbers`). A price that is a text or an object fails this decode (READ then
# reads it); `true` and `false` would decode as 1.0 and 0.0, where READ's cast rejects them.
NUMBERS_PAGE = _prices_as_numbers(READ_PAGE)
SKU_PAGE = pl.Struct(
    {
        "value": pl.List(
            pl.Struct(
                {
                    "resourceType": pl.String,
                    "name": pl.String,
                    "size": pl.String,
                    "family": pl.String,
                    "locations": pl.List(pl.String),
                    "capabilities": pl.List(pl.Struct({"name": pl.String, "value": pl.String})),
                }
            )
        )
    }
)
VM_SIZES_CSV = Path(__file__).with_name("vm_sizes.csv")


def bundled_specs() -> pl.DataFrame:
    return pl.read_csv(
        VM_SIZES_CSV,
        schema_overrides={"vcpus": pl.Float64, "memory_gib": pl.Float64, "gpu_count": pl.Float64},
    ).select("arm_sku_name", "vcpus", "memory_gib", "gpu_count")


def _capability(name: str) -> pl.Expr:
    """A Resource SKU capability value (all are strings in ARM) as a number."""
    return (
        pl.col("capabilities")
        .list.eval(
            pl.element().filter(pl.element().struct.field("name") == name).struct.field("value")
        )
        .list.first()
        .cast(pl.Float64, strict=False)
    )


def parse_resource_skus(pages: pl.DataFrame) -> pl.DataFrame:
    """VM specs from Resource SKU pages: arm_sku_name, vcpus, memory_gib, gpu_count."""
    skus = (
        pages.filter(pl.col("endpoint") == "resource_skus")
        .select(pl.col("payload").str.json_decode(SKU_PAGE).struct.field("value").alias("sku"))
        .explode("sku")
        .drop_nulls("sku")
        .unnest("sku")
        .filter(pl.col("resourceType") == "virtualMachines")
    )
    if skus.is_empty():
        return pl.DataFrame(
            schema={
                "arm_sku_name": pl.String,
                "vcpus": pl.Float64,
                "memory_gib": pl.Float64,
                "gpu_count": pl.Float64,
            }
        )
    return skus.select(
        pl.col("name").alias("arm_sku_name"),
        _capability("vCPUs").alias("vcpus"),
        _capability("MemoryGB").alias("memory_gib"),
        _capability("GPUs").alias("gpu_count"),
    ).unique("arm_sku_name", keep="first")


# An item field the schema reads as text but that holds an object or an array
# (`"retailPrice": {...}`): the declared decode cannot read such a page at all.
_TEXT_FIELDS = tuple(
    f.name for f in ITEM.fields if f.dtype == pl.String and not f.name.startswith("_")
)
_NESTED_TEXT_FIELD = r'"(?:' + "|".join(_TEXT_FIELDS) + r')"\s*:\s*[\[{]'


def _nested_as_text(payload: str) -> str:
    """The page with every object or array value of a text field replaced by its JSON
    text and the item's `_malformed` naming those fields, so the page decodes and that
    item is rejected with its value."""

    def fixed(item: dict) -> dict:
        bad = [k for k in _TEXT_FIELDS if isinstance(item.get(k), dict | list)]
        if not bad:
            return item
        as_text = {k: orjson.dumps(item[k]).decode() for k in bad}
        return {**item, **as_text, "_malformed": ", ".join(bad)}

    body = orjson.loads(payload)
    items = body.get("Items") if isinstance(body, dict) else None
    if isinstance(items, list):
        body["Items"] = [fixed(item) if isinstance(item, dict) else item for item in items]
    return orjson.dumps(body).decode()


def _decodable(pages: pl.DataFrame) -> pl.DataFrame:
    """Pages as they are, except those with a malformed item (found by one regex over the
    payloads), which are rewritten by `_nested_as_text`: one bad item is quarantined
    instead of failing every Azure price. Called only when the declared decode failed (a
    healthy crawl has no such page, and the scan of a million items costs ~0.9 s)."""
    suspect = pages["payload"].str.contains(_NESTED_TEXT_FIELD)
    if not suspect.any():
        return pages
    indexed = pages.with_row_index("_page")
    fixed = indexed.filter(suspect).with_columns(
        pl.col("payload").map_elements(_nested_as_text, return_dtype=pl.String)
    )
    return pl.concat([indexed.filter(~suspect), fixed]).sort("_page").drop("_page")


def _items(pages: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The retail pages' items, located (`_at`), with the pages frame they were decoded
    from (for `item_records`). The fields the rules read, prices as numbers (NUMBERS_PAGE)
    or as text (READ_PAGE), where that reads what ITEM reads: no page hides an object or a
    list in a field left out (`_nothing_left_out`); else every field, as ITEM reads it,
    and a page that ITEM cannot read is repaired by `_decodable` and decoded again (a page
    that is not JSON fails as before)."""
    retail = pages.filter(pl.col("endpoint") == "retail_prices")
    for dtype, exact in ((NUMBERS_PAGE, _read_as_numbers), (READ_PAGE, _nothing_left_out)):
        try:
            items = explode_pages(retail, dtype, "Items", located=True)
        except pl.exceptions.ComputeError:
            continue  # a value of another type: the next decode reads it as the rules do
        if exact(retail, items):
            return items, retail
    try:
        return explode_pages(retail, RETAIL_PAGE, "Items", located=True), retail
    except pl.exceptions.ComputeError:
        fixed = _decodable(retail)
        return explode_pages(fixed, RETAIL_PAGE, "Items", located=True), fixed


def _nothing_left_out(pages: pl.DataFrame, items: pl.DataFrame) -> bool:
    """Whether the items decoded with READ are what ITEM would read: every `{` and `[` of
    each page is one its decoded structure accounts for (`{` of the page, of each item and
    of each savings plan; `[` of the item list and of each savingsPlan list), so no object
    or list sits in a field READ leaves out (ITEM's decode would fail on it; the item is
    then quarantined). A brace inside a text, or an unknown field holding an object, sends
    the pages to the whole decode: slower, the same result. Two byte counts per page."""
    if pages.is_empty():
        return True
    plans = pl.col("savingsPlan")
    held = items.group_by(page=pl.col("_at").struct.field("page")).agg(
        objects=pl.len() + plans.list.len().sum(), lists=plans.is_not_null().sum()
    )
    counted = pages.select(
        page=pl.int_range(pl.len(), dtype=pl.UInt32),
        braces=pl.col("payload").str.count_matches("{", literal=True),
        brackets=pl.col("payload").str.count_matches("[", literal=True),
    ).join(held, on="page", how="left")
    return counted.select(
        (pl.col("braces") == 1 + pl.col("objects").fill_null(0))
        & (pl.col("brackets") == 1 + pl.col("lists").fill_null(0))
    ).to_series().all()


def _read_as_numbers(pages: pl.DataFrame, items: pl.DataFrame) -> bool:
    """Whether the prices NUMBERS_PAGE decoded are the ones READ_PAGE's text and the rules'
    cast give: nothing is left out (`_nothing_left_out`) and no price is exactly 0 or 1,
    which a JSON `true` or `false` decodes to (READ rejects those as not a number; a price
    of 0 or 1 is read by READ then, to the same number)."""
    either = [0.0, 1.0]
    plans = pl.col("savingsPlan").list.eval(
        pl.element().struct.field("retailPrice").is_in(either)
    )
    boolean = pl.col("retailPrice").is_in(either) | plans.list.any()
    return _nothing_left_out(pages, items) and not items.select(
        boolean.fill_null(False).any()
    ).item()


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    """The canonical offers of Azure pages, each row with its raw item (`_item`) for
    quarantine. The refresh uses `parse_located`, which reads back only the items of the
    rows that are rejected."""
    offers, records = _parse(pages)
    return offers.with_columns(_item=records(offers.get_column("_at"))).drop("_at")


def parse_located(pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame]) -> Parsed:
    """The connector's parse (Connector.parse): the offers located (`_at`), with the
    reader of their raw items (`Parsed.records`)."""
    offers, records = _parse(pages)
    return Parsed(offers, records=records)


def _parse(pages: pl.DataFrame) -> tuple[pl.DataFrame, Callable[[pl.Series], pl.Series]]:
    items, decoded = _items(pages)
    records = partial(item_records, decoded, RETAIL_PAGE, "Items")
    sizes = _sizes(pages, items)
    meter = pl.col("meterName").fill_null("")
    sku = pl.col("skuName").fill_null("")
    product = pl.col("productName").fill_null("")
    kind = pl.col("type")
    term_years = pl.col("reservationTerm").str.extract(r"^(\d+) Years?$").cast(pl.Int32)
    unit_hours = pl.col("unitOfMeasure").str.extract(r"^(\d+) Hours?$").cast(pl.Float64)
    is_spot = meter.str.ends_with(" Spot") | sku.str.ends_with(" Spot")
    retail_price = pl.col("retailPrice").cast(pl.Float64, strict=False)

    excluded = (
        pl.when(
            (pl.col("serviceName") != "Virtual Machines")
            | (pl.col("armSkuName").fill_null("") == "")
        )
        .then(pl.lit(s.EXCLUDE_NOT_VM))
        .when(product.str.contains("Windows"))
        .then(pl.lit(s.EXCLUDE_WINDOWS))
        .when(meter.str.contains("Low Priority") | sku.str.contains("Low Priority"))
        .then(pl.lit(s.EXCLUDE_LOW_PRIORITY))
        .when(kind == "DevTestConsumption")
        .then(pl.lit(s.EXCLUDE_DEVTEST))
        .when(product.str.contains("Dedicated Host") | product.str.contains("Cloud Services"))
        .then(pl.lit(s.EXCLUDE_DEDICATED))
        .when(pl.col("is_fpga"))
        .then(pl.lit(s.EXCLUDE_FPGA))
        .when((kind == "Reservation") & ~term_years.is_in([1, 3]).fill_null(False))
        .then(pl.format("{} ({})", pl.lit(s.EXCLUDE_TERM), pl.col("reservationTerm")))
    )
    rejected = (
        pl.when(pl.col("_malformed").is_not_null())
        .then(pl.format("{} holds an object or a list, not a value", pl.col("_malformed")))
        .when(pl.col("retailPrice").is_null())
        .then(pl.lit("missing field retailPrice"))
        .when(retail_price.is_null())
        .then(pl.format("retailPrice {} is not a number", pl.col("retailPrice")))
        .when(pl.col("armRegionName").is_null())
        .then(pl.lit("missing field armRegionName"))
        .when(kind.is_null() | ~kind.is_in(["Consumption", "Reservation"]))
        .then(pl.format("unknown price type {}", kind))
        .when((kind == "Consumption") & unit_hours.is_null())
        .then(pl.format("unit of measure {} is not hourly", pl.col("unitOfMeasure")))
    )
    price_per_hour = (
        pl.when(kind == "Reservation")
        .then(retail_price / (term_years * s.HOURS_PER_YEAR))
        .otherwise(retail_price / unit_hours)
    )
    pricing_model = (
        pl.when(kind == "Reservation")
        .then(pl.format("reserved_{}y", term_years))
        .when(is_spot)
        .then(pl.lit("spot"))
        .otherwise(pl.lit("on_demand"))
    )
    offers = items.lazy().with_columns(
        # a lookup per column, not a join: a join would copy every item column
        _lookup(sizes, "gpu_count"),
        _lookup(sizes, "vcpus"),
        _lookup(sizes, "memory_gib"),
        _lookup(sizes, "is_fpga"),
    ).with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.col("armRegionName").str.to_lowercase(),
        instance_type=pl.col("armSkuName"),
        pricing_model=pricing_model,
        pricing_detail=pl.when(kind == "Reservation").then(
            pl.format("{} reservation", pl.col("reservationTerm"))
        ),
        price_usd_per_hour=price_per_hour,
        source_currency=pl.col("currencyCode"),
        source_price=retail_price,
        source_unit=pl.when(kind == "Reservation")
        .then(pl.format("{} total", pl.col("reservationTerm")))
        .otherwise(pl.col("unitOfMeasure")),
        effective_at=_effective_at(items),
        _excluded=excluded,
        _rejected=rejected,
    )  # lazy: a subexpression the rules share (a term, a price) is computed once
    # the verdict now, not at the parse's end: the savings-plan rows inherit it
    return with_savings_plans(parse_tail(offers).collect()), records


def with_savings_plans(offers: pl.DataFrame) -> pl.DataFrame:
    """The parsed items plus one row per `savingsPlan` entry of a Linux on-demand item:
    pricing_model savings_plan_1y / savings_plan_3y at the plan's hourly retailPrice. A
    plan row inherits its item's verdict (a Windows item's plans are excluded with it)."""
    if "savingsPlan" not in offers.columns:
        return offers
    base = offers.filter(
        # a rejected item is quarantined once, with its plans inside its record
        (pl.col("status") != "rejected")
        & (pl.col("pricing_model") == "on_demand")
        & (pl.col("type") == "Consumption")
        & (pl.col("savingsPlan").list.len().fill_null(0) > 0)
    )
    if base.is_empty():
        return offers
    # the item's own fields are spent (its offer columns and raw `_item` stay): a plan row
    # leaves them null rather than copy them twice over
    spent = {f.name for f in ITEM.fields} - {"savingsPlan", "unitOfMeasure"}
    plans = (
        base.select(c for c in base.columns if c not in spent)
        .explode("savingsPlan")
        .drop_nulls("savingsPlan")
        .with_columns(
            _sp_term=pl.col("savingsPlan").struct.field("term"),
            _sp_price=pl.col("savingsPlan").struct.field("retailPrice"),
        )
    )
    years = pl.col("_sp_term").str.extract(r"^(\d+) Years?$").cast(pl.Int32)
    price = pl.col("_sp_price").cast(pl.Float64, strict=False)
    excluded = pl.when(~years.is_in([1, 3]).fill_null(False)).then(
        pl.format("{} ({})", pl.lit(s.EXCLUDE_SAVINGS_PLAN_TERM), pl.col("_sp_term"))
    )
    rejected = pl.when(price.is_null()).then(
        pl.format("savingsPlan retailPrice {} is not a number", pl.col("_sp_price"))
    )
    plan_rows = plans.with_columns(
        pricing_model=pl.format("savings_plan_{}y", years),
        pricing_detail=pl.format("savings plan for compute, {}", pl.col("_sp_term")),
        price_usd_per_hour=price / pl.col("unitOfMeasure").str.extract(r"^(\d+) Hours?$").cast(
            pl.Float64
        ),
        source_price=price,
        source_unit=pl.format("{} under a {} savings plan", "unitOfMeasure", "_sp_term"),
        status=pl.when(pl.col("status") != "ok")
        .then("status")
        .when(excluded.is_not_null())
        .then(pl.lit("excluded"))
        .when(rejected.is_not_null())
        .then(pl.lit("rejected"))
        .otherwise(pl.lit("ok")),
        reason=pl.when(pl.col("status") != "ok").then("reason").otherwise(
            pl.coalesce(excluded, rejected)
        ),
    ).drop("_sp_term", "_sp_price", "savingsPlan")
    return pl.concat([offers, plan_rows], how="diagonal_relaxed")


def _effective_at(items: pl.DataFrame) -> pl.Expr:
    """`effectiveStartDate` as a naive UTC time: read once per distinct date (a few in a
    million items; inferring the format per item cost ~0.3 s) and looked up per item. The
    format is inferred from the first date, as it would be over the whole column."""
    dates = items.get_column("effectiveStartDate").unique(maintain_order=True).drop_nulls()
    at = dates.str.to_datetime(time_zone="UTC", strict=False).dt.replace_time_zone(None)
    return pl.col("effectiveStartDate").replace_strict(dates, at, default=None)


def _lookup(sizes: pl.DataFrame, column: str) -> pl.Expr:
    return (
        pl.col("armSkuName")
        .replace_strict(
            sizes["arm_sku_name"], sizes[column], default=None, return_dtype=sizes.schema[column]
        )
        .alias(column)
    )


def _sizes(pages: pl.DataFrame, items: pl.DataFrame) -> pl.DataFrame:
    """Per distinct VM size (a few dozen, not a million rows): FPGA flag and specs,
    joined back onto the items (the GPU of a size is its instance family's, named by the
    shared GPU rule, common/gpu.py)."""
    sizes = items.select(
        pl.col("armSkuName").unique().drop_nulls().alias("arm_sku_name")
    ).with_columns(
        is_fpga=pl.col("arm_sku_name").str.contains(s.FPGA_PATTERN),
    )
    return sizes.join(_specs(pages), on="arm_sku_name", how="left")


def _specs(pages: pl.DataFrame) -> pl.DataFrame:
    """Live Resource SKU specs where we have them, the bundled table for the rest. A
    fractional GPU count (NVadsA10 v5: 1/6 of an A10) comes from the bundled table, since
    the `GPUs` capability cannot say it."""
    live = parse_resource_skus(pages)
    bundled = bundled_specs()
    merged = bundled.join(live, on="arm_sku_name", how="full", coalesce=True, suffix="_live")
    return merged.select(
        "arm_sku_name",
        pl.coalesce("vcpus_live", "vcpus").alias("vcpus"),
        pl.coalesce("memory_gib_live", "memory_gib").alias("memory_gib"),
        pl.when(pl.col("gpu_count") < 1)
        .then("gpu_count")
        .otherwise(pl.coalesce("gpu_count_live", "gpu_count"))
        .alias("gpu_count"),
    )
