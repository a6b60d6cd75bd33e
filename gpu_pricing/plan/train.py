"""The training planner: `train_candidates` (every usable offer and GPU count, with hours and
cost), `frontier` and `choose` (the deadline and the budget). The arithmetic is stated in
`gpu_pricing.plan`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from gpu_pricing.plan.shared import (
    DEFAULT_BYTES_PER_PARAM,
    DEFAULT_CURVES,
    DEFAULT_MAX_GPUS,
    GIB,
    PLAN_COLUMNS,
    ROUNDING_SLACK,
    TERM_HOURS,
    NoFeasiblePlan,
    _gpu_counts,
    default_curve,
    gpu_family,
    usable_offers,
    with_mfu,
)
from models import breakeven, capacity, scaling, training
from models.costs import SECONDS_PER_HOUR, TERA


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
        # a product with a longest run (an AWS Capacity Block: 182 days) holds no longer one
        .filter(pl.col("max_hours").is_null() | (pl.col("wall_clock_hours") <= pl.col("max_hours")))
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
