"""What both planners share: the constants, `NoFeasiblePlan`, the efficiency curves (MFU by
GPU count) and the usable offers (priced, with a peak at the precision, within the
instance limit)."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from models.conventions import (
    BYTES_PER_GIB,
    HOURS_PER_YEAR,
    TRAINING_BYTES_PER_PARAM,
)
from warehouse.usable import usable

GIB = BYTES_PER_GIB
# a commitment's minimum term (seed_conventions' 365-day year): reservations and savings
# plans bill the whole term however little of it a job uses
TERM_HOURS = {
    "reserved_1y": HOURS_PER_YEAR,
    "reserved_3y": 3 * HOURS_PER_YEAR,
    "savings_plan_1y": HOURS_PER_YEAR,
    "savings_plan_3y": 3 * HOURS_PER_YEAR,
}
DEFAULT_BYTES_PER_PARAM = TRAINING_BYTES_PER_PARAM  # 16 B/param, seed_conventions
ROUNDING_SLACK = 1e-9
DEFAULT_MAX_GPUS = 16384

# GPU family -> efficiency curve (gpus, MFU). Sources (see docs/costs.md):
# - hopper: 0.45 up to 1,024 GPUs is the estimate default (PaLM, Chowdhery et al. 2022:
#   46.2% MFU on 6,144 TPU v4 chips); Llama 3 405B on H100 (Dubey et al. 2024, "The Llama 3
#   Herd of Models", Table 4): 43% BF16 MFU on 8,192 GPUs, 41% on 16,384.
# - blackwell: no large-scale MFU published yet; Hopper's curve is assumed.
# - ampere: Megatron-LM on A100 (Narayanan et al. 2021, "Efficient Large-Scale Language
#   Model Training on GPU Clusters Using Megatron-LM", Table 1): 52% of peak for 1T
#   parameters on 3,072 GPUs with full activation recomputation counted, so
#   MFU = 0.52 * 6/8 = 0.39 (models.training.mfu_from_hfu).
# - other (PCIe, workstation and consumer parts, AMD, Trainium): an assumption of 0.30 up
#   to 64 GPUs (8 nodes of 8), no published large-scale figure; pass a curve file to plan
#   beyond.
DEFAULT_CURVES: dict[str, tuple[tuple[int, float], ...]] = {
    "hopper": ((1, 0.45), (1024, 0.45), (8192, 0.43), (16384, 0.41)),
    "blackwell": ((1, 0.45), (1024, 0.45), (8192, 0.43), (16384, 0.41)),
    "ampere": ((1, 0.39), (3072, 0.39)),
    "other": ((1, 0.30), (64, 0.30)),
}
GPU_FAMILIES = {
    "H100": "hopper",
    "H100NVL": "hopper",
    "H200": "hopper",
    "GH200": "hopper",
    "B200": "blackwell",
    "B300": "blackwell",
    "A100": "ampere",
}

OFFER_KEY = ["provider", "region", "zone", "instance_type", "pricing_model"]
PLAN_COLUMNS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "gpu_memory_gib",
    "gpu_count",
    "gpus",
    "instances",
    "max_instances",
    "capacity_source",
    "capacity_note",
    "max_hours",
    "pricing_model",
    "pricing_detail",
    "rate_usd_per_gpu_hour",
    "peak_tflops",
    "mfu",
    "flops",
    "params",
    "tokens",
    "gpu_hours",
    "wall_clock_hours",
    "billed_gpu_hours",
    "cost_usd",
    "min_term_hours",
    "preemption_rate_per_instance_hour",
    "preemption_rate_per_hour",
    "preemption_rate_source",
    "time_multiplier",
    "expected_preemptions",
    "expected_overhead_hours",
    "fetched_at",
    "load_id",
    "cheapest_order",
]


class NoFeasiblePlan(ValueError):
    """No candidate meets the constraints: the message names the closest miss and the
    cheapest plan's cost."""


def amount_label(value: float) -> str:
    """70e9 -> '70B', 2e12 -> '2T', 3e11 -> '300B'; 1e15 and above in e-notation."""
    if abs(value) >= 1e15:
        return f"{value:.4g}"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= scale:
            return f"{value / scale:.4g}{suffix}"
    return f"{value:.4g}"


# -- efficiency curves ---------------------------------------------------------------------


def gpu_family(gpu_name: pl.Expr) -> pl.Expr:
    """hopper | blackwell | ampere | other, for the default efficiency curves."""
    return gpu_name.replace_strict(GPU_FAMILIES, default="other", return_dtype=pl.String)


def default_curve() -> pl.DataFrame:
    """The default curves as a frame: curve_key (a family), gpus, mfu."""
    return pl.DataFrame(
        [
            {"curve_key": family, "gpus": float(gpus), "mfu": mfu}
            for family, points in DEFAULT_CURVES.items()
            for gpus, mfu in points
        ],
        schema={"curve_key": pl.String, "gpus": pl.Float64, "mfu": pl.Float64},
    )


def read_curve(path: Path) -> pl.DataFrame:
    """A curve file: CSV with columns `gpus,mfu` (one curve for every GPU) or
    `gpu_name,gpus,mfu` (one per GPU name; GPUs not named get no candidates)."""
    try:
        raw = pl.read_csv(path, infer_schema=False)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ValueError(f"--efficiency-curve {path}: cannot be read ({exc})") from None
    missing = {"gpus", "mfu"} - set(raw.columns)
    extra = set(raw.columns) - {"gpus", "mfu", "gpu_name"}
    if missing or extra or raw.is_empty():
        raise ValueError(
            f"--efficiency-curve {path}: expected CSV columns gpus,mfu (and optionally "
            f"gpu_name) with at least one row, got {raw.columns}"
        )
    curve = raw.select(
        (
            pl.col("gpu_name").str.strip_chars().str.to_uppercase()
            if "gpu_name" in raw.columns
            else pl.lit("*")
        ).alias("curve_key"),
        pl.col("gpus").str.strip_chars().cast(pl.Float64, strict=False).alias("gpus"),
        pl.col("mfu").str.strip_chars().cast(pl.Float64, strict=False).alias("mfu"),
    )
    bad = curve.with_row_index().filter(
        pl.col("gpus").is_null()
        | pl.col("mfu").is_null()
        | (pl.col("gpus") < 1)
        | (pl.col("gpus") != pl.col("gpus").floor())
        | ~pl.col("mfu").is_between(0, 1, closed="right")
    )
    if bad.height:
        row = raw.row(bad["index"][0], named=True)
        raise ValueError(
            f"--efficiency-curve {path}: gpus must be whole numbers >= 1 and mfu in (0, 1], "
            f"got {row}"
        )
    dupes = curve.filter(pl.struct("curve_key", "gpus").is_duplicated())
    if dupes.height:
        raise ValueError(
            f"--efficiency-curve {path}: gpus {dupes['gpus'][0]:g} appears twice"
            + ("" if dupes["curve_key"][0] == "*" else f" for {dupes['curve_key'][0]}")
        )
    return curve.sort("curve_key", "gpus")


def with_mfu(candidates: pl.DataFrame, curve: pl.DataFrame) -> pl.DataFrame:
    """Add `mfu`: the curve of each candidate's `curve_key`, linearly interpolated at its
    `gpus`; null outside the curve's range (never extrapolated)."""
    points = curve.sort("curve_key", "gpus")
    below = points.rename({"gpus": "gpus_lo", "mfu": "mfu_lo"})
    above = points.rename({"gpus": "gpus_hi", "mfu": "mfu_hi"})
    joined = (
        candidates.sort("curve_key", "gpus")
        .join_asof(
            below,
            left_on="gpus",
            right_on="gpus_lo",
            by="curve_key",
            strategy="backward",
            check_sortedness=False,
        )
        .join_asof(
            above,
            left_on="gpus",
            right_on="gpus_hi",
            by="curve_key",
            strategy="forward",
            check_sortedness=False,
        )
    )
    share = (pl.col("gpus") - pl.col("gpus_lo")) / (pl.col("gpus_hi") - pl.col("gpus_lo"))
    mfu = (
        pl.when(pl.col("gpus_lo").is_null() | pl.col("gpus_hi").is_null())
        .then(None)
        .when(pl.col("gpus_hi") == pl.col("gpus_lo"))
        .then(pl.col("mfu_lo"))
        .otherwise(pl.col("mfu_lo") + share * (pl.col("mfu_hi") - pl.col("mfu_lo")))
    )
    return joined.with_columns(mfu.alias("mfu")).drop("gpus_lo", "mfu_lo", "gpus_hi", "mfu_hi")


# -- usable offers ---------------------------------------------------------------------------


def spec_keys(specs: pl.DataFrame, offers: pl.DataFrame | None = None) -> list[str]:
    """The columns a specs frame is keyed by: GPU name and memory, and the form factor
    (`gpu_variant`, dim_gpu_variants) where the specs, and the offers if given, carry it."""
    keys = ["gpu_name", "gpu_memory_gib"]
    if "gpu_variant" in specs.columns and (offers is None or "gpu_variant" in offers.columns):
        keys.append("gpu_variant")
    return keys


def usable_offers(offers: pl.DataFrame, specs: pl.DataFrame, precision: str) -> pl.DataFrame:
    """Offers that are whole machines with a price and a known peak at `precision`: the
    peak joined from the specs frame (dim_gpus: gpu_name, gpu_memory_gib, <precision>_tflops;
    or dim_gpu_variants, also keyed by gpu_variant, so each offer gets its own form
    factor's peak). Only the offers the warehouse's usable-offer rule keeps count
    (warehouse.usable runs int_offers_usable over the frame: verified provenance, a
    comparable whole-machine price); a frame read from the warehouse already is."""
    keys = spec_keys(specs, offers)
    if "gpu_variant" in specs.columns and "gpu_variant" not in keys:
        # offers that name no form factor: each GPU's default one, one row per name x memory
        specs = specs.filter(pl.col("is_default_variant"))
    extra = [c for c in ("memory_bandwidth_gbps", "interconnect_gbps") if c in specs.columns]
    peaks = specs.select(
        *keys, pl.col(f"{precision}_tflops").alias("peak_tflops"), *extra
    ).filter(pl.col("peak_tflops").is_not_null() & (pl.col("peak_tflops") > 0))
    if "cheapest_order" not in offers.columns:
        # a frame handed in without the warehouse's order: its own row order is taken as
        # cheapest-first (offers_usable reads cheapest_order, int_offers_current)
        offers = offers.with_row_index("cheapest_order", offset=1)
    return (
        usable(offers)
        .filter(
            (pl.col("price_usd_per_gpu_hour") > 0)
            & (pl.col("gpu_count") >= 1)
            & (pl.col("gpu_count") == pl.col("gpu_count").floor())
        )
        .join(peaks, on=keys, how="inner")
        .rename({"price_usd_per_gpu_hour": "rate_usd_per_gpu_hour"})
    )


def _gpu_counts(usable: pl.DataFrame, min_gpus: int, max_gpus: int) -> pl.DataFrame:
    """usable offers (with `max_instances`) x GPU counts: 2**k, gpu_count * 2**k and the
    whole limit, whole instances within the limit only."""
    powers = pl.DataFrame({"power": [2.0**k for k in range(int(math.log2(max_gpus)) + 1)]})
    crossed = usable.with_row_index("offer_id").join(powers, how="cross")
    limit = pl.col("max_instances") * pl.col("gpu_count")
    counts = pl.concat(
        [
            crossed.with_columns(pl.col("power").alias("gpus")),
            crossed.with_columns((pl.col("power") * pl.col("gpu_count")).alias("gpus")),
            crossed.with_columns(limit.alias("gpus")),
        ]
    ).drop("power")
    return counts.filter(
        pl.col("gpus").is_between(min_gpus, max_gpus)
        & (pl.col("gpus") % pl.col("gpu_count") == 0)
        & (pl.col("gpus") <= limit)
    ).unique(subset=["offer_id", "gpus"], maintain_order=True)

