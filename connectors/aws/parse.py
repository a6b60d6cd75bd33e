"""AWS parse: raw pages -> canonical offers, spot price points, instance specs and Spot
Advisor interruption buckets.

Pure Polars. Page bodies are decoded with declared Struct dtypes; the Price List's terms
(objects keyed by "<sku>.<term code>") are read with JSONPath filters on their term
attributes and units, never by the codes; the Spot Advisor's region and instance-type keys
are unpivoted. The one loop over pages is the offer CSV's (one file per region; a CSV
has no vectorised decoder) and the one over the Advisor's regions is over schema keys.

- instance_types: GpuInfo / NeuronInfo -> gpu_name (docs/contract.md §4 names), memory snapped to
  the marketed size (the shared GPU rule, common/gpu.py), fractional GPUs as fractional gpu_count.
  Bundled `instance_types.csv` fills what the live pages do not cover (no credentials).
- spot_price_history: every point, deduplicated on (region, zone, instance_type,
  observed_at); the newest point per zone is the zone's current `spot` offer.
- price_list and offer_csv: on-demand and reserved (1y/3y x standard/convertible x
  No/Partial/All Upfront, upfront fee amortised over the term) rows; an offer priced by
  both routes is kept once (the newer publication; the Price List on a tie).
- capacity_blocks: one `capacity_block` offer per Capacity Block offering, the upfront fee
  spread over its instances and hours; terms and dates in pricing_detail.
- savings_plans: savings_plan_1y / savings_plan_3y per Compute or EC2 Instance Savings Plan
  rate (the plan's effective hourly price), plan type and payment option in pricing_detail.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl
import polars.selectors as cs

from connectors.aws import settings as s
from connectors.aws.parse_capacity_blocks import _capacity_block_offers
from connectors.aws.parse_list_prices import _offer_csv_offers, _price_list_offers
from connectors.aws.parse_savings_plans import _savings_plan_offers
from connectors.aws.parse_specs import bundled_specs, instance_specs, parse_instance_types
from connectors.aws.parse_spot import (
    _spot_offers,
    _spot_points_all,
    _valid_points,
    parse_spot_points,
)
from connectors.aws.shapes import (
    ADVISOR_COLUMNS,
    ADVISOR_RANGES,
    INSTANCE_TYPES,
    SPOT_ADVISOR,
    SPOT_PRICES,
    STAGED,
    _endpoint,
)
from connectors.kit.connector import Parsed
from connectors.kit.decode import guard_pages
from connectors.kit.normalise import parse_tail

# each endpoint's parse lives in its own module (shapes, parse_specs, parse_spot,
# parse_capacity_blocks, parse_savings_plans, parse_list_prices); this module combines
# them, and names them for the callers that reach them here
__all__ = [
    "STAGED", "bundled_specs", "instance_specs", "parse", "parse_instance_types",
    "parse_pages", "parse_spot_advisor", "parse_spot_points",
]  # fmt: skip


def _one_per_offer(listed: pl.DataFrame) -> pl.DataFrame:
    """An offer priced by both list routes is kept once: the newer publication, the Price
    List on a tie. The other copy is excluded (counted), naming the route it lost to."""
    key = ["region", "instance_type", "pricing_model", "pricing_detail", "status"]
    ranked = listed.sort(
        pl.col("_published_at").fill_null(pl.datetime(1970, 1, 1)),
        pl.col("endpoint") == s.PRICE_LIST,
        "load_id",
        descending=[True, True, False],
        maintain_order=True,
    ).with_columns(
        _n=pl.int_range(pl.len()).over(key),
        _winner=pl.col("endpoint").first().over(key),
    )
    duplicate = (pl.col("status") == "ok") & (pl.col("_n") > 0)
    return ranked.with_columns(
        status=pl.when(duplicate).then(pl.lit("excluded")).otherwise("status"),
        reason=pl.when(duplicate)
        .then(pl.format("same offer also priced by {} (kept that one)", "_winner"))
        .otherwise("reason"),
    ).drop("_n", "_winner")


def _with_specs(offers: pl.DataFrame, specs: pl.DataFrame) -> pl.DataFrame:
    joined = offers.join(
        specs.select(
            "instance_type",
            pl.col("gpu_name").alias("_spec_gpu_name"),
            pl.col("gpu_memory_gib").alias("_spec_gpu_memory_gib"),
            pl.col("gpu_count").alias("_spec_gpu_count"),
            pl.col("vcpus").alias("_spec_vcpus"),
            pl.col("memory_gib").alias("_spec_memory_gib"),
            pl.col("accelerator").alias("_spec_accelerator"),
            pl.lit(True).alias("_spec_found"),
        ),
        on="instance_type",
        how="left",
    )
    accelerated = (
        pl.when(pl.col("_spec_found"))
        .then(pl.col("_spec_accelerator").is_not_null())
        .otherwise(
            (pl.col("_source_gpu").fill_null(0) > 0)
            | pl.col("_source_family")
            .is_in(list(s.OFFER_CSV_ACCELERATED_FAMILIES))
            .fill_null(False)
            | pl.col("instance_type").str.contains(s.ACCELERATED_TYPE_REGEX).fill_null(False)
        )
    )
    return joined.with_columns(
        gpu_name=pl.col("_spec_gpu_name"),
        gpu_memory_gib=pl.col("_spec_gpu_memory_gib"),
        gpu_count=pl.coalesce(
            "_spec_gpu_count", pl.when(pl.col("_source_gpu") > 0).then("_source_gpu")
        ),
        vcpus=pl.coalesce("_spec_vcpus", "_source_vcpus"),
        memory_gib=pl.coalesce("_spec_memory_gib", "_source_memory_gib"),
        status=pl.when((pl.col("status") == "ok") & ~accelerated)
        .then(pl.lit("excluded"))
        .otherwise("status"),
        reason=pl.when((pl.col("status") == "ok") & ~accelerated)
        .then(pl.lit("not an accelerated instance type (no GPU or Neuron device)"))
        .otherwise("reason"),
    ).drop(cs.starts_with("_"))


def _offers(
    pages: pl.DataFrame, points: pl.DataFrame, specs: pl.DataFrame, latest: pl.DataFrame | None
) -> pl.DataFrame:
    listed = [
        parse_tail(f) for f in (_price_list_offers(pages), _offer_csv_offers(pages)) if f.height
    ]
    frames = [_spot_offers(points, latest)]
    for extra in (_capacity_block_offers(pages), _savings_plan_offers(pages)):
        if extra.height:
            frames.append(extra)
    if listed:
        frames.append(_one_per_offer(pl.concat(listed, how="diagonal_relaxed")))
    # each frame with the kit's parse-tail defaults (a spot price is in USD) before they meet
    offers = pl.concat([parse_tail(f) for f in frames], how="diagonal_relaxed")
    return _with_specs(offers, specs)


def parse(pages: pl.DataFrame, latest: pl.DataFrame | None = None) -> pl.DataFrame:
    """Canonical offers (common.schemas.OFFER_SCHEMA) from every AWS endpoint. `latest`:
    the newest stored spot point of each series, when `pages` holds only the spot pages
    landed since the last parse (the snapshot endpoints' pages are always whole)."""
    return _offers(pages, _spot_points_all(pages), instance_specs(pages), latest)


def parse_pages(pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame]) -> Parsed:
    """The connector's parse: the offers and every staged table (`STAGED`), each page
    decoded once. `latest[SPOT_PRICES.name]`, when given: the newest stored point of each
    series, the pages holding only the spot pages landed since the last parse."""
    points = _spot_points_all(pages)
    specs = instance_specs(pages)
    return Parsed(
        _offers(pages, points, specs, latest.get(SPOT_PRICES.name)),
        {
            SPOT_PRICES.name: _valid_points(points),
            INSTANCE_TYPES.name: specs,
            SPOT_ADVISOR.name: parse_spot_advisor(pages),
        },
    )


# --- Spot Instance Advisor ------------------------------------------------------------------------


def parse_spot_advisor(pages: pl.DataFrame) -> pl.DataFrame:
    """stg_aws__spot_advisor: interruption bucket and savings per region x instance type (Linux)."""
    raw = _endpoint(pages, s.SPOT_ADVISOR)
    if raw.is_empty():
        return pl.DataFrame(schema=ADVISOR_COLUMNS)
    # the feed always lists its interruption ranges and its regions: a page without them
    # has drifted (PageDrift), rather than an AttributeError or an empty table
    guard_pages(raw, pl.col("payload").str.json_decode(ADVISOR_RANGES).struct.field("ranges"), "ranges")  # fmt: skip
    regions = pl.col("payload").str.json_path_match("$.spot_advisor")
    missing = raw.filter(regions.is_null() | ~regions.str.starts_with("{") | (regions == "{}"))
    if not missing.is_empty():
        guard_pages(missing, pl.lit(None, dtype=pl.List(pl.String)), "spot_advisor")
    ranges = (
        raw.select(
            "load_id", pl.col("payload").str.json_decode(ADVISOR_RANGES).struct.field("ranges")
        )
        .explode("ranges")
        .drop_nulls("ranges")
        .unnest("ranges")
        .select("load_id", pl.col("index").alias("r"), pl.col("label").alias("interruption_bucket"))
    )
    # Region and instance-type keys are data, so this struct's dtype is inferred from
    # the document (the Series API still infers); the leaves ({s, r}) are cast below.
    advisor = raw.select("load_id", "fetched_at").with_columns(
        by_region=raw["payload"]
        .str.json_path_match("$.spot_advisor")
        .str.json_decode(infer_schema_length=None)
    )
    frames = []
    # a loop over the feed's region keys (its schema), ~33, not over rows
    for region in advisor.schema["by_region"].to_schema():  # type: ignore[union-attr]
        by_os = advisor.select(
            "load_id", "fetched_at", pl.col("by_region").struct.field(region).alias("os")
        )
        if s.SPOT_ADVISOR_OS not in by_os.schema["os"].to_schema():  # type: ignore[union-attr]
            continue
        types = by_os.select(
            "load_id", "fetched_at", pl.col("os").struct.field(s.SPOT_ADVISOR_OS).alias("types")
        )
        if not isinstance(types.schema["types"], pl.Struct) or not types.schema["types"].fields:
            continue  # a region with no Linux types listed ({} or null): nothing to read
        linux = types.unnest("types")
        frames.append(
            linux.unpivot(index=["load_id", "fetched_at"], variable_name="instance_type")
            .drop_nulls("value")
            .unnest("value")
            .with_columns(region=pl.lit(region))
        )
    if not frames:
        return pl.DataFrame(schema=ADVISOR_COLUMNS)
    rows = pl.concat(frames, how="diagonal_relaxed").with_columns(
        pl.col("r").cast(pl.Int64), pl.col("s").cast(pl.Float64)
    )
    return (
        rows.join(ranges, on=["load_id", "r"], how="left")
        .with_columns(
            provider=pl.lit(s.PROVIDER),
            os=pl.lit(s.SPOT_ADVISOR_OS),
            interruption_rate_max_pct=pl.col("interruption_bucket").replace_strict(
                {k: float(v) for k, v in s.INTERRUPTION_RATE_MAX_PCT.items()},
                default=None,
                return_dtype=pl.Float64,
            ),
            savings_pct=pl.col("s"),
        )
        .select(list(ADVISOR_COLUMNS))
        .sort("region", "instance_type")
    )
