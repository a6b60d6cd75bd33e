"""Lambda Cloud parse: raw instance-types pages -> canonical offers (pure Polars).

`data` is an object keyed by instance type name, which a declared Polars dtype cannot
express (the keys are the data). So each page's document is read with an inferred
schema, every instance type is re-encoded to JSON, unpivoted to one row per type and
decoded again with the declared `ENTRY` dtype; from there on everything is an
expression. One offer per region that lists capacity; a type with no capacity gets one
offer in region 'any' (the price is real, the availability is not invented).
"""

from __future__ import annotations

import io

import polars as pl

from connectors.kit.decode import PageDrift
from connectors.lambdalabs import settings as s

ENTRY = pl.Struct(
    {
        "instance_type": pl.Struct(
            {
                "name": pl.String,
                "description": pl.String,
                "gpu_description": pl.String,
                "price_cents_per_hour": pl.Float64,
                "specs": pl.Struct(
                    {
                        "vcpus": pl.Float64,
                        "memory_gib": pl.Float64,
                        "storage_gib": pl.Float64,
                        "gpus": pl.Float64,
                    }
                ),
            }
        ),
        "regions_with_capacity_available": pl.List(
            pl.Struct({"name": pl.String, "description": pl.String})
        ),
    }
)
_META = ["load_id", "fetched_at", "endpoint"]
_ENTRIES = {"load_id": pl.String, "type_name": pl.String, "entry": pl.String}


def _page_entries(load_id: str, payload: str) -> pl.DataFrame:
    """One row per instance type of one page: its name and its JSON text. A page whose
    `data` is not an object of instance types raises PageDrift."""
    doc = pl.read_json(io.StringIO(payload)) if payload.strip().startswith("{") else None
    data = doc.schema.get("data") if doc is not None else None
    if not isinstance(data, pl.Struct) or not data.fields:
        # every instance type lives under `data`: a page without it (or with none) has
        # drifted, and must not erase the offers (connectors.kit.decode: the page guard)
        raise PageDrift(
            f"{s.ENDPOINT}: page of load {load_id} holds no 'data' object of instance types; "
            f"excerpt: {payload[:200]}"
        )
    return (
        doc.select(pl.col("data").struct.unnest())
        .select(pl.all().struct.json_encode())
        .unpivot(variable_name="type_name", value_name="entry")
        .drop_nulls("entry")
        .select(pl.lit(load_id).alias("load_id"), "type_name", "entry")
    )


def entries(pages: pl.DataFrame) -> pl.DataFrame:
    """Every instance type of every page, with the page's lineage columns."""
    rows = pages.filter(pl.col("endpoint") == s.ENDPOINT)
    per_page = [
        _page_entries(load_id, payload)
        for load_id, payload in rows.select("load_id", "payload").iter_rows()
    ]
    if not per_page:
        return pl.DataFrame(
            schema={**_ENTRIES, "fetched_at": pl.Datetime("us"), "endpoint": pl.String}
        )
    return pl.concat(per_page).join(rows.select(_META).unique("load_id"), on="load_id", how="left")


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    items = entries(pages).with_columns(_item=pl.col("entry").str.json_decode(ENTRY))
    instance = pl.col("_item").struct.field("instance_type")
    specs = instance.struct.field("specs")
    desc = instance.struct.field("description").str.extract_groups(s.DESCRIPTION_PATTERN)
    cents = instance.struct.field("price_cents_per_hour")
    regions = pl.col("_item").struct.field("regions_with_capacity_available")
    offers = (
        items.with_columns(
            _desc=desc,
            _regions=pl.when(regions.list.len() > 0).then(
                regions.list.eval(pl.element().struct.field("name"))
            ),
        )
        .explode("_regions", keep_nulls=True, empty_as_null=True)
        .with_columns(
            _gpu_n=pl.col("_desc").struct.field("1").cast(pl.Float64),
            _gpu_mem=pl.col("_desc").struct.field("3").cast(pl.Float64),
        )
    )
    rejected = (
        pl.when(cents.is_null())
        .then(pl.lit("missing field instance_type.price_cents_per_hour"))
        .when(instance.struct.field("name").is_null())
        .then(pl.lit("missing field instance_type.name"))
    )
    return offers.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_regions", pl.lit(s.NO_CAPACITY_REGION)),
        instance_type=instance.struct.field("name"),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.when(pl.col("_regions").is_null()).then(pl.lit(s.NO_CAPACITY_DETAIL)),
        # the description ("8x H100 (80 GB SXM5)", "1x RTX 6000 (24 GB)") and the memory it
        # states: name and form factor by the shared GPU rule (common/gpu.py); the
        # 24 GB "RTX 6000" is the Quadro RTX 6000
        gpu_text=instance.struct.field("description"),
        gpu_memory_gib=pl.col("_gpu_mem"),
        gpu_count=pl.coalesce(specs.struct.field("gpus"), pl.col("_gpu_n")),
        # Lambda says which regions have capacity, not how much: 0 where none has any,
        # else no count (null)
        capacity_instances=pl.when(pl.col("_regions").is_null()).then(pl.lit(0.0)),
        vcpus=specs.struct.field("vcpus"),
        memory_gib=specs.struct.field("memory_gib"),
        # cents -> dollars in Decimal: a float division gives 69 / 100 = 0.6900000000000001
        price_usd_per_hour=(cents.cast(pl.Decimal(38, 6)) / s.CENTS_PER_USD).cast(pl.Float64),
        source_price=cents,
        source_unit=pl.lit("US cents per hour"),
        _rejected=rejected,
        record=pl.col("entry"),
    ).drop("_item", "entry")
