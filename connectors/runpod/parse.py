"""RunPod parse: raw `gpuTypes` pages -> canonical offers (pure Polars).

Each GPU type carries up to four list prices per GPU-hour: secure and community cloud,
on demand and spot. Each price whose cloud flag is true and which is given becomes one
offer (instance_type = the GPU type id, one GPU, pricing_detail = the cloud). A GPU type
offered in neither cloud is kept as one 'excluded' row, so it is counted, not lost.
Prices are decoded as text and cast explicitly, so a number sent as a string still
parses and anything else is rejected with the raw value in the reason.
"""

from __future__ import annotations

import polars as pl

from connectors.kit.decode import explode_pages
from connectors.runpod import settings as s

_PRICE_FIELDS = ("securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice")
GPU_TYPE = pl.Struct(
    {
        "id": pl.String,
        "displayName": pl.String,
        "manufacturer": pl.String,
        "memoryInGb": pl.String,
        "maxGpuCount": pl.String,
        "secureCloud": pl.Boolean,
        "communityCloud": pl.Boolean,
        **{f: pl.String for f in _PRICE_FIELDS},
    }
)
PAGE = pl.Struct({"data": pl.Struct({"gpuTypes": pl.List(GPU_TYPE)})})
VARIANTS = pl.DataFrame(
    list(s.OFFERS),
    schema=["pricing_model", "pricing_detail", "_price_field", "_cloud_field"],
    orient="row",
).with_row_index("_variant")


def _pick(field_col: str, fields: tuple[str, ...]) -> pl.Expr:
    """The value of the item field named in `field_col`, per row."""
    out: pl.Expr = pl.lit(None)
    for f in fields:
        out = pl.when(pl.col(field_col) == f).then(pl.col(f)).otherwise(out)
    return out


def parse(pages: pl.DataFrame) -> pl.DataFrame:
    types = explode_pages(
        pages.filter(pl.col("endpoint") == s.ENDPOINT), PAGE, ("data", "gpuTypes")
    ).with_row_index("_type")
    raw_price = _pick("_price_field", _PRICE_FIELDS).cast(pl.String)
    offered = _pick("_cloud_field", ("secureCloud", "communityCloud")).cast(pl.Boolean)
    variants = (
        types.join(VARIANTS, how="cross")
        .with_columns(_raw_price=raw_price, _offered=offered.fill_null(False))
        .with_columns(_is_offer=pl.col("_offered") & pl.col("_raw_price").is_not_null())
        .filter(
            pl.col("_is_offer")
            | (~pl.col("_is_offer").any().over("_type") & (pl.col("_variant") == 0))
        )
    )
    price = pl.col("_raw_price").cast(pl.Float64, strict=False)
    excluded = pl.when(~pl.col("_is_offer")).then(
        pl.lit("no offer: neither cloud is flagged with a list price for this GPU type")
    )
    rejected = (
        pl.when(pl.col("id").is_null())
        .then(pl.lit("missing field id"))
        .when(price.is_null())
        .then(pl.format("{} {} is not a number", pl.col("_price_field"), pl.col("_raw_price")))
    )
    return variants.with_columns(
        provider=pl.lit(s.PROVIDER),
        region=pl.lit(s.REGION),
        instance_type=pl.col("id"),
        # the GPU type id ("NVIDIA H100 PCIe", "NVIDIA RTX 6000 Ada Generation") and the
        # memory it states: name and form factor by the shared GPU rule (common/gpu.py)
        gpu_text=pl.col("id"),
        gpu_memory_gib=pl.col("memoryInGb").cast(pl.Float64, strict=False),
        gpu_count=pl.lit(1.0),
        price_usd_per_hour=price,
        source_price=price,
        source_unit=pl.format("USD per GPU-hour ({})", pl.col("_price_field")),
        _excluded=excluded,
        _rejected=rejected,
    )
