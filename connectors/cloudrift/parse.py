"""CloudRift parse: raw instance-types pages -> canonical offers (pure Polars).

Each instance type (a GPU model, `brand_short`) has variants (GPU count, CPU, memory,
`cost_per_hour` in US cents for the whole variant) and `nodes_per_dc` (datacenter ->
node count). One on-demand offer per variant and datacenter listing it (region = the
datacenter name). `dram` is in bytes. `nodes_per_dc` is an object keyed by datacenter,
so its keys are read as a JSON map; prices are decoded as text and cast to Decimal.
"""

from __future__ import annotations

import io

import polars as pl

from connectors.cloudrift import settings as s
from connectors.kit.decode import PageDrift
from connectors.kit.money import decimal, usd
from connectors.kit.normalise import cpu_only
from models.conventions import BYTES_PER_GIB

_VARIANT_FIELDS = ("name", "cost_per_hour", "cpu_count", "logical_cpu_count", "dram", "gpu_count")
_ROWS = {
    "load_id": pl.String,
    "brand_short": pl.String,
    "_item": pl.String,
    **{f: pl.String for f in _VARIANT_FIELDS},
    "_dc": pl.String,
    "_nodes": pl.String,
}


def _page_variants(load_id: str, payload: str) -> pl.DataFrame:
    """One row per (variant, datacenter) of one page. `nodes_per_dc` is keyed by
    datacenter name, which a declared dtype cannot express, so the page is decoded with
    an inferred schema (datacenters become struct fields) and the datacenters unpivoted."""
    doc = pl.read_json(io.StringIO(payload)) if payload.lstrip().startswith("{") else None
    data = doc.schema.get("data") if doc is not None else None
    if not isinstance(data, pl.Struct) or "instance_types" not in {f.name for f in data.fields}:
        raise PageDrift(
            f"{s.ENDPOINT}: page of load {load_id} holds no data.instance_types list; "
            f"excerpt: {payload[:200]}"
        )
    variants = (
        doc.select(pl.col("data").struct.field("instance_types"))
        .explode("instance_types")
        .drop_nulls()
        .unnest("instance_types")
    )
    if variants.is_empty() or "variants" not in variants.columns:
        raise PageDrift(f"{s.ENDPOINT}: page of load {load_id} lists no instance types")
    variants = (
        variants.explode("variants")
        .drop_nulls("variants")
        .with_columns(
            _item=pl.col("variants").struct.json_encode(),
        )
        .unnest("variants")
    )
    for f in _VARIANT_FIELDS:
        if f not in variants.columns:
            variants = variants.with_columns(pl.lit(None, dtype=pl.String).alias(f))
    base = variants.select(
        pl.lit(load_id).alias("load_id"),
        "brand_short",
        "_item",
        *[pl.col(f).cast(pl.String) for f in _VARIANT_FIELDS],
        pl.col("nodes_per_dc")
        if "nodes_per_dc" in variants.columns
        else pl.lit(None).alias("nodes_per_dc"),
    ).with_row_index("_v")
    dtype = base.schema["nodes_per_dc"]
    if isinstance(dtype, pl.Struct) and dtype.fields:
        per_dc = (
            base.select("_v", pl.col("nodes_per_dc").struct.unnest())
            .unpivot(index="_v", variable_name="_dc", value_name="_nodes")
            .drop_nulls("_nodes")
            .with_columns(pl.col("_nodes").cast(pl.String))
        )
    else:
        per_dc = pl.DataFrame(schema={"_v": pl.UInt32, "_dc": pl.String, "_nodes": pl.String})
    return (
        base.drop("nodes_per_dc")
        .join(per_dc, on="_v", how="left")
        .drop("_v")
        .select(list(_ROWS))
        .cast(_ROWS)
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    rows = pages.filter(pl.col("endpoint") == s.ENDPOINT)
    per_page = [
        _page_variants(load_id, payload)
        for load_id, payload in rows.select("load_id", "payload").iter_rows()
    ]
    variants = pl.concat(per_page) if per_page else pl.DataFrame(schema=_ROWS)
    variants = variants.join(
        rows.select("load_id", "fetched_at", "endpoint").unique("load_id"), on="load_id", how="left"
    )
    gpus = decimal(pl.col("gpu_count"))
    cents = decimal(pl.col("cost_per_hour"))
    price = cents / pl.lit(s.CENTS_PER_USD).cast(pl.Decimal(38, 9))
    excluded = (
        # CPU nodes are listed under brand_short "CPU"
        pl.when(cpu_only(gpus, pl.col("brand_short").str.replace(r"(?i)^\s*cpu\s*$", "")))
        .then(pl.lit(s.EXCLUDE_CPU))
        .when(pl.col("_dc").is_null())
        .then(pl.lit(s.EXCLUDE_NO_DC))
    )
    rejected = (
        pl.when(pl.col("name").is_null())
        .then(pl.lit("missing field name"))
        .when(cents.is_null())
        .then(pl.format("cost_per_hour {} is not a number", pl.col("cost_per_hour")))
    )
    return variants.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce("_dc", pl.lit("any")),
        instance_type=pl.col("name"),
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        # `brand_short` ("RTX 4090", "RTX PRO 6000", "MI350X"): named by the shared GPU
        # rule (common/gpu.py), memory the reference's marketed size
        gpu_text=pl.col("brand_short"),
        gpu_count=usd(gpus),
        vcpus=usd(decimal(pl.coalesce("logical_cpu_count", "cpu_count"))),
        memory_gib=usd(decimal(pl.col("dram"))) / BYTES_PER_GIB,
        price_usd_per_hour=usd(price),
        source_price=usd(cents),
        source_unit=pl.lit("US cents per hour (cost_per_hour, whole variant)"),
        record=pl.col("_item"),
        _excluded=excluded,
        _rejected=rejected,
    ).drop("_item")
