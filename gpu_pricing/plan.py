"""The training and serving planners: pure Polars over a frame of current offers and a
frame of GPU specs (no I/O; `gpu_pricing.api` reads the warehouse and calls these).

Training (`train_candidates`, `choose`). For every usable offer and GPU count the
candidate frame holds GPU-hours, wall-clock hours and total cost:

- One offer in one region is one cluster, of at most the offer's instance limit
  (`max_instances`, with `capacity_source` published | assumed | configured and
  `capacity_note`; models.capacity states the rule and the assumptions per provider class:
  a marketplace listing is one machine, single-GPU instances are not combined).
- GPU counts: powers of two, the offer's instance size times powers of two, and the whole
  limit (`max_instances * gpu_count`), within `min_gpus..max_gpus`, kept only when they are
  whole instances (a multiple of the offer's `gpu_count`) within the limit.
  Fractional-GPU instances (Azure NV6ads A10 = 1/6 GPU) are not training machines and are
  left out.
- MFU at that count from the efficiency curve (`DEFAULT_CURVES` per GPU family, or a
  file), linearly interpolated between its points and never extrapolated: a count outside
  the curve's range is not a candidate (`models.scaling.interpolate_mfu` does the same for
  one value).
- Memory: the model states must fit, `gpus * gpu_memory_gib * 2**30 >= params *
  bytes_per_param` (16 bytes per parameter by default: BF16 weights and gradients plus FP32
  master weights and two Adam moments, fully sharded as in ZeRO-3 / FSDP, Rajbhandari et al.
  2020); activations are not counted.
- `gpu_hours = flops / (mfu * peak_tflops * 1e12 * 3600)` (models.training),
  `wall_clock_hours = gpu_hours / gpus`.
- Spot: the job runs on `instances = gpus / gpu_count` machines and stops when any of them
  is reclaimed, so its preemption rate is `instances * p` with `p` per instance-hour (the
  offer's published interruption bucket as a rate, `dim_spot_interruption_buckets`; else the
  rate given). Wall clock and billed hours grow by `time_multiplier = (1 + o) / (1 -
  p_job * (c/2 + restart))` (models.breakeven); a candidate whose preemptions eat all the
  time is dropped. `expected_overhead_hours` is the wall-clock added by checkpoints and lost
  work, `expected_preemptions` the expected count over the run.
- Reserved (`reserved_1y`, `reserved_3y`): the rate is the effective hourly rate with any
  upfront payment amortised over the term. A commitment bills every hour of its term, used
  or not: with `reserved_billing = "term"` (the default) a run is billed whole terms per
  GPU (`ceil(wall_clock / term) * term` hours), so a 2-week run on a 1-year reservation
  pays for the year; `"used"` bills only the hours used, for a commitment whose remaining
  hours other work will fill. `min_term_hours` says which term applied.
- `cost_usd = gpus * billed_hours_per_gpu * rate_usd_per_gpu_hour`.

`choose` applies the deadline and budget, and returns the cheapest plan that meets them
(`chosen`), the fastest one (`fastest_within_budget`) and the Pareto frontier of cost vs
wall clock (sorted by cost, a plan stays only when it is faster than every cheaper plan:
a sort and a cumulative minimum). Nothing feasible raises `NoFeasiblePlan` with the closest
miss and the cheapest plan.

Serving (`serve_candidates`): see its docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from models import breakeven, capacity, scaling, serving, training
from models.conventions import (
    BYTES_PER_GIB,
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    TRAINING_BYTES_PER_PARAM,
)
from models.costs import SECONDS_PER_HOUR, TERA

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
    factor's peak)."""
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
        offers.filter(
            pl.col("gpu_name").is_not_null()
            & (pl.col("price_usd_per_gpu_hour") > 0)
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


# -- training --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpotAssumptions:
    checkpoint_overhead: float = 0.05
    checkpoint_interval_hours: float = 1.0
    restart_hours: float = 0.0
    # per instance-hour, for spot offers with no published interruption rate
    default_preemption_rate_per_hour: float = 0.0
    # per instance-hour, for every spot offer (overrides published rates)
    preemption_rate_per_hour: float | None = None


def _curve_key(curve: pl.DataFrame) -> pl.Expr:
    """Which curve a candidate uses: one for every GPU ('*'), the default curves by GPU
    family, or a file's curves by GPU name."""
    keys = set(curve["curve_key"].unique().to_list())
    if keys == {"*"}:
        return pl.lit("*")
    if keys <= set(DEFAULT_CURVES):
        return gpu_family(pl.col("gpu_name"))
    return pl.col("gpu_name")


def check_train_inputs(
    *,
    params: float | None,
    tokens: float | None,
    compute_flops: float | None,
    compute_usd: float | None,
    allocation: str,
    min_gpus: int,
    max_gpus: int,
    reserved_billing: str,
) -> None:
    """Every input of a training plan that needs no offer, checked before any lookup."""
    if reserved_billing not in ("term", "used"):
        raise ValueError(f"--reserved-billing must be term or used, got {reserved_billing!r}")
    if not 1 <= min_gpus <= max_gpus:
        raise ValueError(
            f"--min-gpus must be between 1 and --max-gpus ({max_gpus}), got {min_gpus}"
        )
    given = [
        params is not None and tokens is not None,
        compute_flops is not None,
        compute_usd is not None,
    ]
    if sum(given) != 1 or (not given[0] and (params is not None or tokens is not None)):
        raise ValueError(
            "give exactly one of --params with --tokens, --compute-flops or --compute-usd"
        )
    if given[0]:
        training.training_flops(params, tokens)  # positive, finite
    elif given[1]:
        scaling.allocate(compute_flops, allocation)
    else:
        from models import _validate

        _validate.positive("compute_usd", compute_usd)
        scaling.allocate(1.0, allocation)  # a known allocation


def train_candidates(
    offers: pl.DataFrame,
    specs: pl.DataFrame,
    *,
    params: float | None = None,
    tokens: float | None = None,
    compute_flops: float | None = None,
    compute_usd: float | None = None,
    allocation: str = "20-tokens-per-param",
    curve: pl.DataFrame | None = None,
    min_gpus: int = 1,
    max_gpus: int = DEFAULT_MAX_GPUS,
    precision: str = "bf16",
    spot: SpotAssumptions = SpotAssumptions(),
    reserved_billing: str = "term",
    bytes_per_param: float = DEFAULT_BYTES_PER_PARAM,
    max_instances: dict[str, float] | None = None,
) -> pl.DataFrame:
    """Every (offer, GPU count) candidate with its cost and time (module docstring).
    `max_instances`: configured instance limits (models.capacity.with_capacity: keys `*`,
    `provider` or `provider/instance_type`).

    `offers` needs the columns of mart_gpu_offers_current used here plus
    `preemption_rate_per_hour` (per instance-hour where published, else null); `specs` the
    dim_gpus columns. The work is `params` and `tokens` (6ND FLOPs), or `compute_flops`, or
    `compute_usd` (converted to FLOPs at the cheapest cost per FLOP among the candidates
    whose compute-optimal model for those FLOPs fits their memory, reserved at its amortised
    rate); the last two are split into parameters and tokens by `allocation`
    (models.scaling.allocate).
    """
    check_train_inputs(
        params=params,
        tokens=tokens,
        compute_flops=compute_flops,
        compute_usd=compute_usd,
        allocation=allocation,
        min_gpus=min_gpus,
        max_gpus=max_gpus,
        reserved_billing=reserved_billing,
    )
    curve = default_curve() if curve is None else curve
    usable = capacity.with_capacity(usable_offers(offers, specs, precision), max_instances)
    grid = _gpu_counts(usable, min_gpus, max_gpus).with_columns(
        _curve_key(curve).alias("curve_key")
    )
    grid = with_mfu(grid, curve).filter(pl.col("mfu").is_not_null())

    is_spot = pl.col("pricing_model") == "spot"
    rate_source = (
        pl.lit("--preemption-rate")
        if spot.preemption_rate_per_hour is not None
        else pl.when(pl.col("preemption_rate_per_hour").is_not_null())
        .then(pl.lit("published interruption bucket"))
        .otherwise(pl.lit("assumed (no published rate)"))
    )
    instance_rate = (
        pl.lit(spot.preemption_rate_per_hour)
        if spot.preemption_rate_per_hour is not None
        else pl.col("preemption_rate_per_hour").fill_null(spot.default_preemption_rate_per_hour)
    )
    grid = (
        grid.with_columns(
            (pl.col("gpus") / pl.col("gpu_count")).alias("instances"),
            pl.when(is_spot).then(instance_rate).alias("preemption_rate_per_instance_hour"),
            pl.when(is_spot)
            .then(pl.col("gpus") / pl.col("gpu_count") * instance_rate)
            .alias("job_preemption_rate_per_hour"),
            pl.when(is_spot).then(rate_source).alias("preemption_rate_source"),
        )
        .with_columns(
            pl.when(is_spot)
            .then(
                breakeven.spot_time_multiplier_expr(
                    spot.checkpoint_overhead,
                    spot.checkpoint_interval_hours,
                    pl.col("job_preemption_rate_per_hour"),
                    restart_hours=spot.restart_hours,
                )
            )
            .otherwise(pl.lit(1.0))
            .alias("time_multiplier")
        )
        .filter(pl.col("time_multiplier").is_not_null())
    )

    if params is not None:
        flops = training.training_flops(params, tokens)
    else:
        if compute_usd is not None:
            usd_per_flop = (
                pl.col("rate_usd_per_gpu_hour")
                * pl.col("time_multiplier")
                / (pl.col("mfu") * pl.col("peak_tflops") * TERA * SECONDS_PER_HOUR)
            )
            # each candidate's own compute-optimal model must fit its memory
            affordable = pl.lit(float(compute_usd)) / usd_per_flop
            fits = (
                pl.col("gpus") * pl.col("gpu_memory_gib") * GIB
                >= scaling.allocated_params_expr(affordable, allocation) * bytes_per_param
            )
            most = grid.filter(fits).select(affordable.max()).item()
            # no candidate: any positive FLOPs gives the same empty frame
            compute_flops = most if most else 1.0
        allocated = scaling.allocate(compute_flops, allocation)
        flops, params, tokens = compute_flops, allocated["params"], allocated["tokens"]

    grid = grid.filter(
        pl.col("gpus") * pl.col("gpu_memory_gib") * GIB >= params * bytes_per_param
    ).with_columns(
        pl.lit(float(flops)).alias("flops"),
        pl.lit(float(params)).alias("params"),
        pl.lit(float(tokens)).alias("tokens"),
        training.gpu_hours_for_flops_expr(
            pl.lit(float(flops)), pl.col("peak_tflops"), pl.col("mfu")
        ).alias("gpu_hours"),
    )
    base_wall = pl.col("gpu_hours") / pl.col("gpus")
    term = pl.col("pricing_model").replace_strict(TERM_HOURS, default=None, return_dtype=pl.Float64)
    terms = pl.col("wall_clock_hours") / pl.col("min_term_hours") - ROUNDING_SLACK
    whole_terms = terms.ceil().clip(lower_bound=1) * pl.col("min_term_hours")
    grid = (
        grid.with_columns(
            (base_wall * pl.col("time_multiplier")).alias("wall_clock_hours"),
            pl.when(is_spot)
            .then(base_wall * (pl.col("time_multiplier") - 1))
            .alias("expected_overhead_hours"),
            term.alias("min_term_hours"),
        )
        .with_columns(
            pl.when(is_spot)
            .then(pl.col("job_preemption_rate_per_hour") * pl.col("wall_clock_hours"))
            .alias("expected_preemptions"),
            (
                pl.when(pl.col("min_term_hours").is_not_null() & pl.lit(reserved_billing == "term"))
                .then(whole_terms)
                .otherwise(pl.col("wall_clock_hours"))
                * pl.col("gpus")
            ).alias("billed_gpu_hours"),
        )
        .with_columns(
            (pl.col("billed_gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
            pl.col("job_preemption_rate_per_hour").alias("preemption_rate_per_hour"),
        )
    )
    return grid.select(PLAN_COLUMNS).sort(_ORDER)


# cheapest first; ties: faster, then the offers' one cheapest-first order (cheapest_order,
# int_offers_current), then fewer GPUs, so a plan is reproducible
_ORDER = ["cost_usd", "wall_clock_hours", "cheapest_order", "gpus"]


def frontier(candidates: pl.DataFrame) -> pl.DataFrame:
    """The Pareto frontier of cost vs wall clock: sorted by cost (then time), a plan stays
    when it is strictly faster than every cheaper-or-equal plan before it."""
    ordered = candidates.sort(_ORDER, nulls_last=True)
    fastest_before = pl.col("wall_clock_hours").cum_min().shift(1, fill_value=float("inf"))
    return ordered.filter(pl.col("wall_clock_hours") < fastest_before)


@dataclass(frozen=True)
class Choice:
    candidates: int
    feasible: int
    chosen: dict[str, Any]
    fastest_within_budget: dict[str, Any]
    frontier: pl.DataFrame


def _describe(plan: dict[str, Any]) -> str:
    where = " ".join(str(plan[c]) for c in ("provider", "region", "zone") if plan.get(c))
    return (
        f"{where} {plan['instance_type']}, {plan['gpus']:g} x {plan['gpu_name']} "
        f"{plan['pricing_model']}: {plan['cost_usd']:,.0f} USD, {plan['wall_clock_hours']:,.1f} h"
    )


def choose(
    candidates: pl.DataFrame,
    *,
    deadline_hours: float | None = None,
    budget_usd: float | None = None,
) -> Choice:
    """The cheapest plan meeting the deadline and budget, the fastest such plan, and the
    frontier of the plans that meet them. Raises NoFeasiblePlan naming the closest miss."""
    if candidates.is_empty():
        raise NoFeasiblePlan(
            "no candidate plan: no usable current offer matches the filters "
            "(GPU with a known peak, whole GPUs, within --min-gpus/--max-gpus, enough "
            "memory for the model, inside the efficiency curve's range)"
        )
    ok = pl.lit(True)
    if deadline_hours is not None:
        ok = ok & (pl.col("wall_clock_hours") <= deadline_hours)
    if budget_usd is not None:
        ok = ok & (pl.col("cost_usd") <= budget_usd)
    feasible = candidates.filter(ok).sort(_ORDER)
    if feasible.is_empty():
        raise NoFeasiblePlan(_miss_message(candidates, deadline_hours, budget_usd))
    fastest = feasible.sort(["wall_clock_hours", "cost_usd", *_ORDER[2:]]).row(0, named=True)
    return Choice(
        candidates=candidates.height,
        feasible=feasible.height,
        chosen=feasible.row(0, named=True),
        fastest_within_budget=fastest,
        frontier=frontier(feasible),
    )


def _miss_message(
    candidates: pl.DataFrame, deadline_hours: float | None, budget_usd: float | None
) -> str:
    limits = []
    over = pl.lit(0.0)
    if budget_usd is not None:
        limits.append(f"budget {budget_usd:,.0f} USD")
        over = pl.max_horizontal(over, pl.col("cost_usd") / budget_usd - 1)
    if deadline_hours is not None:
        limits.append(f"deadline {deadline_hours:,.1f} h")
        over = pl.max_horizontal(over, pl.col("wall_clock_hours") / deadline_hours - 1)
    closest = (
        candidates.with_columns(over.alias("_over")).sort(["_over", *_ORDER]).row(0, named=True)
    )
    cheapest = candidates.sort(_ORDER).row(0, named=True)
    fastest = candidates.sort(["wall_clock_hours", *_ORDER]).row(0, named=True)
    return (
        f"no plan meets the {' and '.join(limits)} among {candidates.height} candidates; "
        f"closest miss: {_describe(closest)}; cheapest plan costs {cheapest['cost_usd']:,.0f} USD "
        f"({_describe(cheapest)}); fastest takes {fastest['wall_clock_hours']:,.1f} h"
    )


# -- serving ---------------------------------------------------------------------------------


SERVE_COLUMNS = [
    "strategy",
    "gpu_name",
    "gpu_memory_gib",
    "provider",
    "batch",
    "gpus_per_replica",
    "tp_efficiency",
    "bound",
    "step_seconds",
    "tokens_per_second_per_user",
    "output_tokens_per_second_per_gpu",
    "input_tokens_per_second_per_gpu",
    "usd_per_1m_output_tokens",
    "usd_per_1m_input_tokens",
    "memory_bandwidth_gbps",
    "tokens_per_second_per_gpu",
    "peak_gpus",
    "base_gpus",
    "base_pricing_model",
    "base_region",
    "base_instance_type",
    "base_rate_usd_per_gpu_hour",
    "burst_pricing_model",
    "burst_region",
    "burst_instance_type",
    "burst_rate_usd_per_gpu_hour",
    "burst_gpu_hours_per_month",
    "monthly_cost_usd",
    "cost_per_1m_tokens_usd",
    "commitment_usd",
]


# the roofline figures of a serving plan (models.serving), at its base offer's rate
ROOFLINE_COLUMNS = SERVE_COLUMNS[SERVE_COLUMNS.index("batch") : SERVE_COLUMNS.index("memory_bandwidth_gbps") + 1]
BATCHES = tuple(2**k for k in range(11))  # 1 .. 1024 sequences per replica
DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER = 20.0


def serve_options(
    usable: pl.DataFrame,
    *,
    params: float,
    prompt_tokens: float,
    output_tokens: float,
    context_tokens: float | None = None,
    batch: int | None = None,
    min_tokens_per_second_per_user: float = DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER,
    weight_bytes_per_param: float = serving.WEIGHT_BYTES["bf16"],
    kv_bytes_per_token: float | None = None,
    bandwidth_share: float = serving.DECODE_BANDWIDTH_SHARE,
    compute_share: float = serving.DECODE_COMPUTE_SHARE,
) -> pl.DataFrame:
    """Every usable offer (with peak_tflops and memory_bandwidth_gbps) x GPUs per replica
    (powers of two dividing the instance, from the fewest that hold the weights and KV
    cache) x batch (`batch`, else 1..1024), on the roofline of models.serving, kept when a
    user gets at least `min_tokens_per_second_per_user`. Adds `gpu_seconds_per_request`
    (prefill of `prompt_tokens` plus `output_tokens` decode steps shared by the batch) and
    `tokens_per_second_per_gpu` ((prompt + output) tokens per GPU-second)."""
    kv = serving.default_kv_bytes_per_token(params) if kv_bytes_per_token is None else kv_bytes_per_token
    context = prompt_tokens + output_tokens / 2 if context_tokens is None else context_tokens
    batches = pl.DataFrame({"batch": [float(b) for b in ((batch,) if batch else BATCHES)]})
    tps = pl.DataFrame({"tp": [float(2**k) for k in range(7)]})  # 1 .. 64 GPUs
    needed = serving.memory_needed_bytes(
        pl.lit(float(params)),
        pl.lit(float(weight_bytes_per_param)),
        pl.lit(float(kv)),
        pl.col("batch"),
        pl.lit(float(prompt_tokens + output_tokens)),
    )
    frame = (
        usable.filter(pl.col("memory_bandwidth_gbps").is_not_null())
        .join(batches, how="cross")
        .join(tps, how="cross")
        .filter(
            (pl.col("gpu_count") % pl.col("tp") == 0)
            & (pl.col("tp") >= serving.min_tp_expr(needed, pl.col("gpu_memory_gib")))
        )
        .with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(weight_bytes_per_param)).alias("weight_bytes_per_param"),
            pl.lit(float(kv)).alias("kv_bytes_per_token"),
            pl.lit(float(context)).alias("context_tokens"),
            serving.tp_efficiency_expr(
                pl.col("tp"),
                pl.col("interconnect_gbps").is_not_null()
                if "interconnect_gbps" in usable.columns
                else pl.lit(False),
            ).alias("tp_efficiency"),
            pl.lit(float(bandwidth_share)).alias("bandwidth_share"),
            pl.lit(float(compute_share)).alias("compute_share"),
        )
    )
    frame = serving.with_decode(frame).filter(
        pl.col("tokens_per_second_per_user") >= min_tokens_per_second_per_user
    )
    per_request = pl.col("tp") * (
        prompt_tokens * pl.col("prefill_seconds_per_token")
        + output_tokens * pl.col("step_seconds") / pl.col("batch")
    )
    return frame.with_columns(
        **serving.cost_columns(pl.col("rate_usd_per_gpu_hour")),
        gpu_seconds_per_request=per_request,
        tokens_per_second_per_gpu=(prompt_tokens + output_tokens) / per_request,
        gpus_per_replica=pl.col("tp"),
    )


def serve_candidates(
    offers: pl.DataFrame,
    specs: pl.DataFrame,
    *,
    params: float,
    tokens_per_month: float,
    prompt_tokens: float = 1024.0,
    output_tokens: float = 256.0,
    context_tokens: float | None = None,
    batch: int | None = None,
    min_tokens_per_second_per_user: float = DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER,
    kv_bytes_per_token: float | None = None,
    bandwidth_share: float = serving.DECODE_BANDWIDTH_SHARE,
    compute_share: float = serving.DECODE_COMPUTE_SHARE,
    peak_to_average: float = 2.0,
    precision: str = "bf16",
    allow_spot: bool = False,
) -> pl.DataFrame:
    """Monthly serving plans per GPU type and provider (the offer of each pricing model
    within the provider that serves a token cheapest), cheapest first.

    Throughput on the roofline of models.serving (`serve_options`): for each offer, the
    GPUs per replica and the batch that serve the most tokens per GPU-second while a user
    still gets `min_tokens_per_second_per_user`; a request is `prompt_tokens` of prefill
    (compute-bound) and `output_tokens` decode steps (memory- or compute-bound, the KV
    cache read at `context_tokens`, default prompt + half the output). Weights take the
    bytes of `precision` (2 BF16, 1 FP8). The average load is `tokens_per_month / (720 *
    3600)` tokens per second, the peak `peak_to_average` times that. The fleet is sized for
    the peak, in whole instances, and holds at least one replica.

    Load over the month follows a linear load-duration curve from the peak P down to
    m = max(0, 2A - P) (A the average; when P > 2A the load is zero for the rest), a
    stated simplification of a daily cycle. Strategies: all `on_demand`, all `reserved_1y`
    / `reserved_3y` (committed for the peak; a commitment runs a whole term, the monthly
    cost is its amortised rate), all `spot` (only with `allow_spot`: preemptions drop
    requests), and `reserved + on_demand` (or `+ spot`): a committed base B serving 24/7
    and the load above it on the burst model, billed for the GPU-hours used above B. B is
    where the commitment breaks even: the capacity busy at least `u* = reserved / burst`
    of the time (models.breakeven.reserved_breakeven_utilization), on the curve
    B = P - u* (P - m) / f (f the loaded share of hours), rounded down to whole instances.
    """
    per_gpu_tps = pl.col("tokens_per_second_per_gpu")
    average_tps = tokens_per_month / (HOURS_PER_MONTH * SECONDS_PER_HOUR)
    peak_tps = average_tps * peak_to_average
    low_tps = max(0.0, 2 * average_tps - peak_tps)
    loaded_share = 1.0 if peak_tps <= 2 * average_tps else 2 * average_tps / peak_tps
    usable = usable_offers(offers, specs, precision)
    if not allow_spot:
        usable = usable.filter(pl.col("pricing_model") != "spot")
    options = serve_options(
        usable,
        params=params,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        context_tokens=context_tokens,
        batch=batch,
        min_tokens_per_second_per_user=min_tokens_per_second_per_user,
        weight_bytes_per_param=serving.WEIGHT_BYTES[precision],
        kv_bytes_per_token=kv_bytes_per_token,
        bandwidth_share=bandwidth_share,
        compute_share=compute_share,
    )
    # per offer, the replica shape and batch that serve a token cheapest (then the smaller
    # replica and batch: less latency for the same cost)
    usable = options.sort(
        "tokens_per_second_per_gpu", "gpus_per_replica", "batch", descending=[True, False, False]
    ).unique(subset=OFFER_KEY, keep="first", maintain_order=True)

    # whole instances; the slack keeps float noise (15.000000000000002) from adding one
    def whole(gpus: pl.Expr) -> pl.Expr:
        instances = (gpus / pl.col("gpu_count") - ROUNDING_SLACK).ceil().clip(lower_bound=1)
        return instances * pl.col("gpu_count")

    usable = capacity.with_capacity(usable, training=False)
    # a fleet may span regions, so only a count the source publishes caps it (a marketplace
    # listing is one machine: it serves only if it alone holds the peak)
    within_capacity = (pl.col("capacity_source") != "published") | (
        pl.col("peak_gpus") <= pl.col("max_instances") * pl.col("gpu_count")
    )
    cheapest = (
        usable.with_columns(
            whole(pl.max_horizontal(peak_tps / per_gpu_tps, pl.col("gpus_per_replica"))).alias(
                "peak_gpus"
            ),
            pl.col("gpus_per_replica").alias("_replica_gpus"),
            (pl.col("rate_usd_per_gpu_hour") / per_gpu_tps).alias("_usd_per_token"),
        )
        .filter(within_capacity)
        # the offer that serves a token cheapest, then as mart_cheapest_gpu_hour would pick
        # (cheapest_order, the one cheapest-first order)
        .sort("_usd_per_token", "cheapest_order", nulls_last=True)
        .group_by("gpu_name", "gpu_memory_gib", "provider", "pricing_model", maintain_order=True)
        .first()
    )
    single = cheapest.select(
        pl.col("pricing_model").alias("strategy"),
        "gpu_name",
        "gpu_memory_gib",
        "provider",
        *ROOFLINE_COLUMNS,
        "tokens_per_second_per_gpu",
        "peak_gpus",
        pl.col("peak_gpus").alias("base_gpus"),
        pl.col("pricing_model").alias("base_pricing_model"),
        pl.col("region").alias("base_region"),
        pl.col("instance_type").alias("base_instance_type"),
        pl.col("rate_usd_per_gpu_hour").alias("base_rate_usd_per_gpu_hour"),
        pl.lit(None, dtype=pl.String).alias("burst_pricing_model"),
        pl.lit(None, dtype=pl.String).alias("burst_region"),
        pl.lit(None, dtype=pl.String).alias("burst_instance_type"),
        pl.lit(None, dtype=pl.Float64).alias("burst_rate_usd_per_gpu_hour"),
        pl.lit(0.0).alias("burst_gpu_hours_per_month"),
        pl.col("gpu_count").alias("_base_gpu_count"),
    )
    reserved = cheapest.filter(pl.col("pricing_model").is_in(list(TERM_HOURS)))
    burst = cheapest.filter(pl.col("pricing_model").is_in(["on_demand", "spot"]))
    mixes = reserved.join(burst, on=["gpu_name", "gpu_memory_gib", "provider"], suffix="_b")
    u_star = pl.col("rate_usd_per_gpu_hour") / pl.col("rate_usd_per_gpu_hour_b")
    peak_load = peak_tps / per_gpu_tps  # in GPUs
    low_load = low_tps / per_gpu_tps
    base = (peak_load - u_star * (peak_load - low_load) / loaded_share).clip(lower_bound=0)
    base = (base / pl.col("gpu_count") + ROUNDING_SLACK).floor() * pl.col("gpu_count")
    mixes = (
        mixes.filter(u_star < 1)
        .with_columns(pl.min_horizontal(base, pl.col("peak_gpus")).alias("base_gpus"))
        .filter(
            (pl.col("base_gpus") >= pl.col("_replica_gpus"))  # the base holds a copy of the model
            & (pl.col("base_gpus") < pl.col("peak_gpus"))
        )
    )
    # GPU-hours above B on the linear load-duration curve from P to m over the loaded
    # share f of the month: f * H * (P - B)**2 / (2 (P - m)) (B >= m), else the whole area
    # above B: f * H * ((P + m) / 2 - B)
    spread = peak_load - low_load
    above = (
        pl.when(pl.col("base_gpus") >= low_load)
        .then((peak_load - pl.col("base_gpus")) ** 2 / (2 * spread))
        .otherwise((peak_load + low_load) / 2 - pl.col("base_gpus"))
        * loaded_share
        * HOURS_PER_MONTH
    )
    mixed = mixes.select(
        (pl.col("pricing_model") + pl.lit(" + ") + pl.col("pricing_model_b")).alias("strategy"),
        "gpu_name",
        "gpu_memory_gib",
        "provider",
        *ROOFLINE_COLUMNS,
        "tokens_per_second_per_gpu",
        "peak_gpus",
        "base_gpus",
        pl.col("pricing_model").alias("base_pricing_model"),
        pl.col("region").alias("base_region"),
        pl.col("instance_type").alias("base_instance_type"),
        pl.col("rate_usd_per_gpu_hour").alias("base_rate_usd_per_gpu_hour"),
        pl.col("pricing_model_b").alias("burst_pricing_model"),
        pl.col("region_b").alias("burst_region"),
        pl.col("instance_type_b").alias("burst_instance_type"),
        pl.col("rate_usd_per_gpu_hour_b").alias("burst_rate_usd_per_gpu_hour"),
        above.alias("burst_gpu_hours_per_month"),
        pl.col("gpu_count").alias("_base_gpu_count"),
    )
    plans = pl.concat([single, mixed], how="vertical_relaxed")
    term = pl.col("base_pricing_model").replace_strict(
        TERM_HOURS, default=None, return_dtype=pl.Float64
    )
    monthly = pl.col("base_gpus") * pl.col("base_rate_usd_per_gpu_hour") * HOURS_PER_MONTH + pl.col(
        "burst_gpu_hours_per_month"
    ) * pl.col("burst_rate_usd_per_gpu_hour").fill_null(0)
    return (
        plans.with_columns(monthly.alias("monthly_cost_usd"))
        .with_columns(
            (pl.col("monthly_cost_usd") / tokens_per_month * 1e6).alias("cost_per_1m_tokens_usd"),
            (pl.col("base_gpus") * pl.col("base_rate_usd_per_gpu_hour") * term).alias(
                "commitment_usd"
            ),
        )
        .select(SERVE_COLUMNS)
        .sort("monthly_cost_usd", "gpu_name", "provider", "strategy")
    )
