"""The serving planner: `serve_options` and `serve_candidates` (replicas, batch and
monthly cost per offer, within the latency bound)."""

from __future__ import annotations

import polars as pl

from gpu_pricing.plan.shared import OFFER_KEY, ROUNDING_SLACK, TERM_HOURS, usable_offers
from models import capacity, serving
from models.conventions import (
    HOURS_PER_MONTH,
)
from models.costs import SECONDS_PER_HOUR

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
    precision: str = "bf16",
    weight_bytes_per_param: float | None = None,
    kv_bytes_per_token: float | None = None,
    bandwidth_share: float = serving.DECODE_BANDWIDTH_SHARE,
    compute_share: float = serving.DECODE_COMPUTE_SHARE,
) -> pl.DataFrame:
    """Every usable offer (with peak_tflops and memory_bandwidth_gbps) x GPUs per replica
    (powers of two dividing the instance, from the fewest that hold the weights and KV
    cache) x batch (`batch`, else 1..1024), on the serving roofline (models.serving: the
    table macro serving_roofline), kept when a user gets at least
    `min_tokens_per_second_per_user`, with the macro's `gpu_seconds_per_request` (prefill
    of `prompt_tokens` plus `output_tokens` decode steps shared by the batch) and
    `tokens_per_second_per_gpu` ((prompt + output) tokens per GPU-second)."""
    context = prompt_tokens + output_tokens / 2 if context_tokens is None else context_tokens
    batches = pl.DataFrame({"batch": [float(b) for b in ((batch,) if batch else BATCHES)]})
    tps = pl.DataFrame({"tp": [float(2**k) for k in range(7)]})  # 1 .. 64 GPUs
    has_link = (
        pl.col("interconnect_gbps").is_not_null()
        if "interconnect_gbps" in usable.columns
        else pl.lit(False)
    )
    frame = (
        usable.filter(pl.col("memory_bandwidth_gbps").is_not_null())
        .join(batches, how="cross")
        .join(tps, how="cross")
        .filter(pl.col("gpu_count") % pl.col("tp") == 0)
        .with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(precision).alias("precision"),
            pl.lit(weight_bytes_per_param, dtype=pl.Float64).alias("weight_bytes_per_param"),
            pl.lit(kv_bytes_per_token, dtype=pl.Float64).alias("kv_bytes_per_token"),
            pl.lit(float(context)).alias("context_tokens"),
            pl.lit(None, dtype=pl.Float64).alias("longest_tokens"),
            has_link.alias("has_link"),
            pl.lit(float(bandwidth_share)).alias("bandwidth_share"),
            pl.lit(float(compute_share)).alias("compute_share"),
            pl.lit(float(prompt_tokens)).alias("prompt_tokens"),
            pl.lit(float(output_tokens)).alias("output_tokens"),
        )
    )
    frame = serving.roofline(frame).filter(
        (pl.col("tp") >= pl.col("min_tp"))
        & (pl.col("tokens_per_second_per_user") >= min_tokens_per_second_per_user)
    )
    return frame.with_columns(gpus_per_replica=pl.col("tp"))



def _plan_rows(
    df: pl.DataFrame,
    *,
    strategy: pl.Expr,
    base_gpus: pl.Expr,
    burst: tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr],
    burst_gpu_hours: pl.Expr,
) -> pl.DataFrame:
    """One serving plan per row: the base offer is the row's own; `burst` is the (pricing
    model, region, instance type, rate) of the capacity above the base, nulls for none."""
    return df.select(
        strategy.alias("strategy"),
        "gpu_name",
        "gpu_memory_gib",
        "provider",
        *ROOFLINE_COLUMNS,
        "tokens_per_second_per_gpu",
        "peak_gpus",
        base_gpus.alias("base_gpus"),
        pl.col("pricing_model").alias("base_pricing_model"),
        pl.col("region").alias("base_region"),
        pl.col("instance_type").alias("base_instance_type"),
        pl.col("rate_usd_per_gpu_hour").alias("base_rate_usd_per_gpu_hour"),
        *(
            expr.alias(f"burst_{name}")
            for expr, name in zip(
                burst,
                ("pricing_model", "region", "instance_type", "rate_usd_per_gpu_hour"),
                strict=True,
            )
        ),
        burst_gpu_hours.alias("burst_gpu_hours_per_month"),
        pl.col("gpu_count").alias("_base_gpu_count"),
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
        precision=precision,
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
    none = pl.lit(None, dtype=pl.String)
    single = _plan_rows(
        cheapest,
        strategy=pl.col("pricing_model"),
        base_gpus=pl.col("peak_gpus"),
        burst=(none, none, none, pl.lit(None, dtype=pl.Float64)),
        burst_gpu_hours=pl.lit(0.0),
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
    mixed = _plan_rows(
        mixes,
        strategy=pl.col("pricing_model") + pl.lit(" + ") + pl.col("pricing_model_b"),
        base_gpus=pl.col("base_gpus"),
        burst=tuple(
            pl.col(f"{c}_b")
            for c in ("pricing_model", "region", "instance_type", "rate_usd_per_gpu_hour")
        ),
        burst_gpu_hours=above,
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
