"""Vast.ai parse: raw bundles pages -> canonical offers (pure Polars).

Marketplace offers are per machine slice: one on-demand row per offer at `dph_total`
(the whole offer, storage at its default disk included) and, where the offer has a
`min_bid`, one spot row at `min_bid` plus the same storage share (`dph_total - dph_base`),
so both rows price the same bundle. instance_type is `offer-<id>`, the region is the
country of `geolocation`. Numbers are decoded as text and cast explicitly. Offers repeat
across pages at the paging boundary: one row per offer id is kept.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import explode_pages
from connectors.vastai import settings as s

_NUMBERS = (
    "id",
    "ask_contract_id",
    "machine_id",
    "host_id",
    "num_gpus",
    "gpu_ram",
    "cpu_cores",
    "cpu_cores_effective",
    "cpu_ram",
    "disk_space",
    "dph_base",
    "dph_total",
    "storage_cost",
    "min_bid",
    "reliability2",
)
OFFER = pl.Struct(
    {
        **{k: pl.String for k in _NUMBERS},
        "gpu_name": pl.String,
        "geolocation": pl.String,
        "verified": pl.Boolean,
        "rentable": pl.Boolean,
        "rented": pl.Boolean,
    }
)
PAGE = pl.Struct({"offers": pl.List(OFFER)})
def _num(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.Float64, strict=False)


def _offers(pages: pl.DataFrame) -> pl.DataFrame:
    return (
        explode_pages(pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, "offers")
        .sort("fetched_at", descending=True, maintain_order=True)
        .unique("id", keep="first", maintain_order=True)
        .with_row_index("_row")
        # Vast's own GPU name ("H100 PCIE"): the source's words, not a reference name
        .rename({"gpu_name": "_vast_gpu"})
    )


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    offers = _offers(pages)
    price = _num("dph_total")
    storage = (price - _num("dph_base")).clip(lower_bound=0).fill_null(0)
    on_demand = offers.with_columns(
        pricing_model=pl.lit("on_demand"),
        pricing_detail=pl.lit(None, dtype=pl.String),
        price_usd_per_hour=price,
        source_price=price,
        source_unit=pl.lit("USD per hour (dph_total, whole offer)"),
        _raw=pl.col("dph_total"),
    )
    spot = offers.filter(_num("min_bid") > 0).with_columns(
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.lit(s.SPOT_DETAIL),
        price_usd_per_hour=_num("min_bid") + storage,
        source_price=_num("min_bid"),
        source_unit=pl.lit("USD per hour (min_bid; storage share added)"),
        _raw=pl.col("min_bid"),
    )
    rows = pl.concat([on_demand, spot])
    country = pl.col("geolocation").str.extract(r"([^,]+)$").str.strip_chars().str.to_lowercase()
    excluded = pl.when(
        pl.col("rented").fill_null(False) | ~pl.col("rentable").fill_null(True)
    ).then(pl.lit("not rentable at fetch time (rented, or rentable false)"))
    rejected = (
        pl.when(pl.col("id").is_null())
        .then(pl.lit("missing field id"))
        .when(pl.col("price_usd_per_hour").is_null())
        .then(pl.format("price {} is not a number", pl.col("_raw")))
    )
    cores = _num("cpu_cores")
    return rows.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.coalesce(pl.when(country != "").then(country), pl.lit(s.UNKNOWN_REGION)),
        instance_type=pl.format("offer-{}", pl.col("id")),
        # Vast's own GPU name ("H100 PCIE", "Tesla V100") and `gpu_ram` as the driver reports
        # it (an H100 80GB shows ~81 559 MB): the shared GPU rule (common/gpu.py)
        # names the GPU, reads its form factor and snaps the memory to the marketed size
        gpu_text=pl.col("_vast_gpu"),
        gpu_memory_gib=_num("gpu_ram") / s.MB_PER_GIB,
        gpu_count=_num("num_gpus"),
        # a listing is one specific machine: one instance of it can be rented
        capacity_instances=pl.lit(1.0),
        vcpus=_num("cpu_cores_effective"),
        memory_gib=pl.when(cores > 0).then(
            _num("cpu_ram") * _num("cpu_cores_effective") / cores / s.MB_PER_GIB
        ),
        _excluded=excluded,
        _rejected=rejected,
    )
