"""The Python API: read the warehouse (read-only, so it works while a refresh runs) and get
Polars DataFrames back, for notebooks and other services. The `gpu-pricing plan` commands
are a thin layer over `plan_train` and `plan_serve`.

    import gpu_pricing
    gpu_pricing.rates(gpu="H100", pricing="spot", limit=5)
    gpu_pricing.cheapest()
    gpu_pricing.history("A100", memory=80)
    p = gpu_pricing.plan_train(params=70e9, tokens=2e12, deadline_hours=24 * 30)
    p.chosen, p.frontier
    gpu_pricing.estimate_train(70e9, 2e12, "H100", mfu=0.45, gpus=1024)
    gpu_pricing.estimate_infer(70e9, 2048, 1e6, "A100", rate=1.5)

Every function takes `warehouse=` (a path; default: $GPU_PRICING_WAREHOUSE, else
gpu-pricing.toml's `warehouse`, else warehouse/gpu_pricing.duckdb in the project's
checkout, whatever the working directory: see `warehouse_path`). A missing warehouse raises `WarehouseError` saying to run `gpu-pricing refresh`;
bad input raises `ValueError` naming it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from gpu_pricing import plan as planner
from gpu_pricing import queries
from models import _validate, breakeven, capacity, inference, serving, training
from models.conventions import HOURS_PER_MONTH
from warehouse import db

SEED_GPU_SPECS = Path(__file__).resolve().parent.parent / "sql" / "seeds" / "seed_gpu_specs.csv"
SPEC_SCHEMA = {
    "gpu_name": pl.String,
    "gpu_memory_gib": pl.Float64,
    "vendor": pl.String,
    "fp32_tflops": pl.Float64,
    "tf32_tflops": pl.Float64,
    "bf16_tflops": pl.Float64,
    "fp8_tflops": pl.Float64,
    "memory_bandwidth_gbps": pl.Float64,
    "interconnect_gbps": pl.Float64,
    "tdp_watts": pl.Float64,
    "capex_usd": pl.Float64,
    "capex_as_of": pl.Date,
    "capex_source": pl.String,
    "spec_source": pl.String,
}
PRECISIONS = ("fp32", "tf32", "bf16", "fp8")

def warehouse_path(warehouse: str | Path | None = None) -> Path:
    """The warehouse file: the argument, else $GPU_PRICING_WAREHOUSE, else
    gpu-pricing.toml's `warehouse` (the file in the working directory or
    $GPU_PRICING_CONFIG), else the project's warehouse/gpu_pricing.duckdb, whatever the
    working directory (`warehouse.db.project_path`)."""
    from gpu_pricing.config import load

    cfg = load()
    if warehouse or cfg.warehouse is not None:
        return cfg.warehouse_path(warehouse)
    return db.project_path()


@contextmanager
def connect(warehouse: str | Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the warehouse, closed on exit."""
    con = db.connect_readonly(warehouse_path(warehouse))
    try:
        yield con
    finally:
        con.close()


def _query(warehouse: str | Path | None, name: str, params: dict | None = None) -> pl.DataFrame:
    """The rows of query `name` (gpu_pricing/queries/<name>.sql) in the warehouse."""
    with connect(warehouse) as con:
        return queries.read(con, name, params)


def read_offers(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every usable current offer: the one place the planners read offers from."""
    return queries.read(con, "offers_usable")


def offers(warehouse: str | Path | None = None) -> pl.DataFrame:
    """Every usable current offer, with spot offers' published preemption rates."""
    with connect(warehouse) as con:
        return read_offers(con)


def seed_gpu_specs() -> pl.DataFrame:
    """dim_gpus as bundled (sql/seeds/seed_gpu_specs.csv): GPU specs with no warehouse."""
    with SEED_GPU_SPECS.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    raw = pl.DataFrame(rows, schema=dict.fromkeys(SPEC_SCHEMA, pl.String))
    blank_as_null = {name: pl.col(name).replace("", None) for name in SPEC_SCHEMA}
    return raw.select(
        blank_as_null[name].str.to_date("%Y-%m-%d").alias(name)
        if dtype == pl.Date
        else blank_as_null[name].cast(dtype, strict=True)
        for name, dtype in SPEC_SCHEMA.items()
    )


def read_gpu_specs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """dim_gpus."""
    return queries.read(con, "gpu_specs")


def read_variant_specs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """dim_gpu_variants: the specs of each form factor, keyed by gpu_variant as offers are."""
    return queries.read(con, "gpu_variant_peaks")


def _specs(warehouse: str | Path | None, read) -> pl.DataFrame:
    """`read(con)` on the warehouse; the bundled seed when the warehouse does not exist."""
    if not warehouse_path(warehouse).exists():
        return seed_gpu_specs()
    with connect(warehouse) as con:
        return read(con)


def offer_specs(warehouse: str | Path | None = None) -> pl.DataFrame:
    """The specs offers are costed at: per form factor from the warehouse (an H100 PCIe
    offer at the PCIe peak), the bundled seed (one form factor per GPU) without one."""
    return _specs(warehouse, read_variant_specs)


def gpu_specs(warehouse: str | Path | None = None) -> pl.DataFrame:
    """dim_gpus from the warehouse; the bundled seed when the warehouse does not exist."""
    return _specs(warehouse, read_gpu_specs)


def rates(
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Current per-GPU-hour rates (mart_gpu_offers_current), cheapest first."""
    _check_pricing(pricing)
    return _query(
        warehouse,
        "current_offers",
        {
            "gpu": gpu,
            "memory": memory,
            "pricing": pricing,
            "provider": provider,
            "region": region,
            "limit": limit,
        },
    )


def cheapest(warehouse: str | Path | None = None) -> pl.DataFrame:
    """mart_cheapest_gpu_hour: per GPU and pricing model, the cheapest offer now."""
    return _query(
        warehouse,
        "cheapest",
    )


def history(
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Effective-dated price history of a GPU (fct_gpu_prices: valid_from, valid_to)."""
    _check_pricing(pricing)
    return _query(
        warehouse,
        "price_history",
        {"gpu": gpu, "memory": memory, "pricing": pricing, "provider": provider},
    )


def _check_pricing(pricing: str | None) -> None:
    if pricing is not None and pricing not in planner.PRICING_MODELS:
        raise ValueError(
            f"pricing must be one of {', '.join(planner.PRICING_MODELS)}, got {pricing!r}"
        )


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [v.strip() for v in items if v.strip()]
    return names or None


def _no_offer_matches(frame: pl.DataFrame, filters: dict[str, Any]) -> None:
    """Raise naming the filters and what the offers hold, when no offer passes them."""
    given = {k: v for k, v in filters.items() if _names(v)}
    if not given:
        return
    column = {
        "providers": "provider",
        "regions": "region",
        "pricing": "pricing_model",
        "gpu_names": "gpu_name",
    }
    known = "; ".join(
        f"{name} with offers: {', '.join(sorted(set(frame[column[name]].drop_nulls())))}"
        for name in given
    )
    shown = ", ".join(f"{k}={','.join(_names(v) or [])}" for k, v in given.items())
    raise planner.NoFeasiblePlan(f"no current offer matches {shown} ({known})")


def filter_offers(
    frame: pl.DataFrame,
    *,
    providers: str | Sequence[str] | None = None,
    regions: str | Sequence[str] | None = None,
    pricing: str | Sequence[str] | None = None,
    gpu_names: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Offers of the given providers, regions, pricing models and GPU names (None: all)."""
    pricing_models = _names(pricing)
    for model in pricing_models or []:
        _check_pricing(model)
    upper_names = [g.upper() for g in _names(gpu_names) or []] or None
    for column, allowed in (
        ("provider", _names(providers)),
        ("region", _names(regions)),
        ("pricing_model", pricing_models),
        ("gpu_name", upper_names),
    ):
        if allowed is not None:
            frame = frame.filter(pl.col(column).is_in(allowed))
    return frame


def read_default_preemption_rate(con: duckdb.DuckDBPyConnection) -> float:
    """The rate assumed for spot offers with no published interruption frequency: the
    worst published bucket's (AWS Spot Advisor '>20%', p = -ln(0.8) / 720 per hour)."""
    return float(
        queries.read(con, "default_preemption_rate")["p"][0]
    )


@dataclass
class TrainPlan:
    """The outcome of `plan_train`: the inputs, every candidate, the chosen plan (the
    cheapest meeting the constraints), the fastest within budget, and the frontier."""

    inputs: dict[str, Any]
    candidates: pl.DataFrame
    chosen: pl.DataFrame
    fastest_within_budget: pl.DataFrame
    frontier: pl.DataFrame
    feasible: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "candidates": self.candidates.height,
            "feasible": self.feasible,
            "chosen": self.chosen.to_dicts()[0],
            "fastest_within_budget": self.fastest_within_budget.to_dicts()[0],
            "frontier": self.frontier.to_dicts(),
        }


def plan_train(
    *,
    params: float | None = None,
    tokens: float | None = None,
    compute_flops: float | None = None,
    compute_usd: float | None = None,
    allocation: str = "20-tokens-per-param",
    deadline_hours: float | None = None,
    budget_usd: float | None = None,
    min_gpus: int = 1,
    max_gpus: int = planner.DEFAULT_MAX_GPUS,
    providers: str | Sequence[str] | None = None,
    regions: str | Sequence[str] | None = None,
    pricing: str | Sequence[str] | None = None,
    gpu_names: str | Sequence[str] | None = None,
    efficiency_curve: str | Path | pl.DataFrame | None = None,
    precision: str = "bf16",
    checkpoint_interval_hours: float = 1.0,
    checkpoint_overhead: float = 0.05,
    restart_hours: float = 0.0,
    preemption_rate: float | None = None,
    default_preemption_rate: float | None = None,
    reserved_billing: str = "term",
    bytes_per_param: float = planner.DEFAULT_BYTES_PER_PARAM,
    max_instances: int | Mapping[str, int] | None = None,
    warehouse: str | Path | None = None,
    offers_frame: pl.DataFrame | None = None,
    specs_frame: pl.DataFrame | None = None,
) -> TrainPlan:
    """The cheapest way to train a model by a deadline and within a budget, across every
    current offer (gpu_pricing.plan explains the arithmetic). Raises
    `gpu_pricing.plan.NoFeasiblePlan` (a ValueError) with the closest miss when nothing
    meets the constraints. Spot offers use their published preemption rate per
    instance-hour, else `default_preemption_rate` (default: the worst published bucket's),
    or `preemption_rate` for all. Each plan is one offer in one region within its instance
    limit (`max_instances`, `capacity_source`; models.capacity): `max_instances` configures
    the limit, for every offer (a number) or per `provider` / `provider/instance_type` (a
    mapping; `*` for the rest). `offers_frame` / `specs_frame` replace the warehouse
    reads."""
    planner.check_train_inputs(
        params=params,
        tokens=tokens,
        compute_flops=compute_flops,
        compute_usd=compute_usd,
        allocation=allocation,
        min_gpus=min_gpus,
        max_gpus=max_gpus,
        reserved_billing=reserved_billing,
    )
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    for name, value in (("deadline_hours", deadline_hours), ("budget_usd", budget_usd)):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")
    if not bytes_per_param > 0:
        raise ValueError(f"bytes_per_param must be > 0, got {bytes_per_param!r}")
    if preemption_rate is not None and preemption_rate < 0:
        raise ValueError(f"preemption_rate_per_hour must be >= 0, got {preemption_rate!r}")
    limits = capacity.check_overrides(
        {"*": max_instances} if isinstance(max_instances, int | float) else max_instances
    )
    curve = (
        planner.read_curve(Path(efficiency_curve))
        if isinstance(efficiency_curve, str | Path)
        else efficiency_curve
    )
    # the scalar formula checks the checkpointing inputs and names them
    breakeven.spot_time_multiplier(
        checkpoint_overhead, checkpoint_interval_hours, 0.0, restart_hours=restart_hours
    )
    assumed = default_preemption_rate or 0.0
    if offers_frame is None:
        with connect(warehouse) as con:
            offers_frame = read_offers(con)
            specs_frame = read_variant_specs(con) if specs_frame is None else specs_frame
            if default_preemption_rate is None:
                assumed = read_default_preemption_rate(con)
    frame = filter_offers(
        offers_frame, providers=providers, regions=regions, pricing=pricing, gpu_names=gpu_names
    )
    if frame.is_empty():
        _no_offer_matches(
            offers_frame,
            {
                "providers": providers,
                "regions": regions,
                "pricing": pricing,
                "gpu_names": gpu_names,
            },
        )
    specs = seed_gpu_specs() if specs_frame is None else specs_frame
    spot = planner.SpotAssumptions(
        checkpoint_overhead=checkpoint_overhead,
        checkpoint_interval_hours=checkpoint_interval_hours,
        restart_hours=restart_hours,
        default_preemption_rate_per_hour=assumed,
        preemption_rate_per_hour=preemption_rate,
    )
    budget = budget_usd if budget_usd is not None else compute_usd
    candidates = planner.train_candidates(
        frame,
        specs,
        params=params,
        tokens=tokens,
        compute_flops=compute_flops,
        compute_usd=compute_usd,
        allocation=allocation,
        curve=curve,
        min_gpus=min_gpus,
        max_gpus=max_gpus,
        precision=precision,
        spot=spot,
        reserved_billing=reserved_billing,
        bytes_per_param=bytes_per_param,
        max_instances=limits,
    )
    choice = planner.choose(candidates, deadline_hours=deadline_hours, budget_usd=budget)
    first = candidates.row(0, named=True)
    inputs = {
        "params": first["params"],
        "tokens": first["tokens"],
        "flops": first["flops"],
        "compute_flops": compute_flops,
        "compute_usd": compute_usd,
        "allocation": allocation if params is None else None,
        "deadline_hours": deadline_hours,
        "budget_usd": budget,
        "min_gpus": min_gpus,
        "max_gpus": max_gpus,
        "providers": _names(providers),
        "regions": _names(regions),
        "pricing": _names(pricing),
        "gpu_names": _names(gpu_names),
        "efficiency_curve": str(efficiency_curve)
        if isinstance(efficiency_curve, str | Path)
        else ("custom" if efficiency_curve is not None else "default"),
        "precision": precision,
        "checkpoint_interval_hours": checkpoint_interval_hours,
        "checkpoint_overhead": checkpoint_overhead,
        "restart_hours": restart_hours,
        "preemption_rate_per_instance_hour": preemption_rate,
        "assumed_preemption_rate_per_instance_hour": assumed,
        "reserved_billing": reserved_billing,
        "bytes_per_param": bytes_per_param,
        "max_instances": limits or None,
    }
    return TrainPlan(
        inputs=inputs,
        candidates=candidates,
        chosen=pl.DataFrame([choice.chosen], schema=candidates.schema),
        fastest_within_budget=pl.DataFrame(
            [choice.fastest_within_budget], schema=candidates.schema
        ),
        frontier=choice.frontier,
        feasible=choice.feasible,
    )


@dataclass
class ServePlan:
    inputs: dict[str, Any]
    plans: pl.DataFrame
    chosen: pl.DataFrame = field(default_factory=pl.DataFrame)

    def to_dict(self, limit: int = 10) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "chosen": self.chosen.to_dicts()[0],
            "plans": self.plans.head(limit).to_dicts(),
            "candidates": self.plans.height,
        }


def plan_serve(
    *,
    params: float,
    tokens_per_month: float | None = None,
    requests_per_month: float | None = None,
    prompt_tokens: float = 1024.0,
    output_tokens: float = 256.0,
    context_tokens: float | None = None,
    batch: int | None = None,
    min_tokens_per_second_per_user: float = planner.DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER,
    kv_bytes_per_token: float | None = None,
    bandwidth_share: float = serving.DECODE_BANDWIDTH_SHARE,
    compute_share: float = serving.DECODE_COMPUTE_SHARE,
    peak_to_average: float = 2.0,
    allow_spot: bool = False,
    providers: str | Sequence[str] | None = None,
    regions: str | Sequence[str] | None = None,
    pricing: str | Sequence[str] | None = None,
    gpu_names: str | Sequence[str] | None = None,
    precision: str = "bf16",
    budget_usd: float | None = None,
    warehouse: str | Path | None = None,
    offers_frame: pl.DataFrame | None = None,
    specs_frame: pl.DataFrame | None = None,
) -> ServePlan:
    """The cheapest monthly way to serve `tokens_per_month` (or `requests_per_month` of
    `prompt_tokens` + `output_tokens`) with a model of `params` parameters, each offer at
    the batch and replica size that serve a token cheapest while a user gets at least
    `min_tokens_per_second_per_user` (gpu_pricing.plan.serve_candidates, models.serving)."""
    if (tokens_per_month is None) == (requests_per_month is None):
        raise ValueError("give --tokens-per-month or --requests-per-month, not both or neither")
    _validate.non_negative("prompt_tokens", prompt_tokens)
    _validate.positive("output_tokens", output_tokens)
    if tokens_per_month is None:
        tokens_per_month = _validate.positive("requests_per_month", requests_per_month) * (
            prompt_tokens + output_tokens
        )
    _validate.positive("params", params)
    _validate.positive("tokens_per_month", tokens_per_month)
    _validate.positive("min_tokens_per_second_per_user", min_tokens_per_second_per_user)
    _validate.fraction("bandwidth_share", bandwidth_share)
    _validate.fraction("compute_share", compute_share)
    if batch is not None:
        _validate.count("batch", batch)
    if context_tokens is not None:
        _validate.non_negative("context_tokens", context_tokens)
    if kv_bytes_per_token is not None:
        _validate.non_negative("kv_bytes_per_token", kv_bytes_per_token)
    if not peak_to_average >= 1:
        raise ValueError(f"peak_to_average must be >= 1, got {peak_to_average!r}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    every = offers(warehouse) if offers_frame is None else offers_frame
    frame = filter_offers(
        every, providers=providers, regions=regions, pricing=pricing, gpu_names=gpu_names
    )
    if frame.is_empty():
        _no_offer_matches(
            every,
            {
                "providers": providers,
                "regions": regions,
                "pricing": pricing,
                "gpu_names": gpu_names,
            },
        )
    specs = offer_specs(warehouse) if specs_frame is None else specs_frame
    plans = planner.serve_candidates(
        frame,
        specs,
        params=params,
        tokens_per_month=tokens_per_month,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        context_tokens=context_tokens,
        batch=batch,
        min_tokens_per_second_per_user=min_tokens_per_second_per_user,
        kv_bytes_per_token=kv_bytes_per_token,
        bandwidth_share=bandwidth_share,
        compute_share=compute_share,
        peak_to_average=peak_to_average,
        precision=precision,
        allow_spot=allow_spot,
    )
    inputs = {
        "params": params,
        "tokens_per_month": tokens_per_month,
        "requests_per_month": requests_per_month,
        "prompt_tokens": prompt_tokens,
        "output_tokens": output_tokens,
        "context_tokens": prompt_tokens + output_tokens / 2
        if context_tokens is None
        else context_tokens,
        "batch": batch,
        "min_tokens_per_second_per_user": min_tokens_per_second_per_user,
        "kv_bytes_per_token": serving.default_kv_bytes_per_token(params)
        if kv_bytes_per_token is None
        else kv_bytes_per_token,
        "weight_bytes_per_param": serving.WEIGHT_BYTES[precision],
        "bandwidth_share": bandwidth_share,
        "compute_share": compute_share,
        "shares_source": serving.SHARES_SOURCE,
        "peak_to_average": peak_to_average,
        "allow_spot": allow_spot,
        "providers": _names(providers),
        "regions": _names(regions),
        "pricing": _names(pricing),
        "gpu_names": _names(gpu_names),
        "precision": precision,
        "budget_usd": budget_usd,
        "hours_per_month": HOURS_PER_MONTH,
    }
    if plans.is_empty():
        raise planner.NoFeasiblePlan(
            "no serving plan: no usable current offer matches the filters (GPU with a known "
            "peak and memory bandwidth, whole GPUs, a replica within one instance) at "
            f"{min_tokens_per_second_per_user:g} tokens/s per user or more"
        )
    within = plans if budget_usd is None else plans.filter(pl.col("monthly_cost_usd") <= budget_usd)
    if within.is_empty():
        best = plans.row(0, named=True)
        raise planner.NoFeasiblePlan(
            f"no serving plan within the budget of {budget_usd:,.0f} USD per month; cheapest "
            f"plan costs {best['monthly_cost_usd']:,.0f} USD ({best['strategy']}, "
            f"{best['peak_gpus']:g} x {best['gpu_name']} on {best['provider']})"
        )
    return ServePlan(inputs=inputs, plans=plans, chosen=within.head(1))


def _priced_specs(
    gpu: str,
    memory: float | None,
    pricing: str,
    precision: str,
    rate: float | None,
    warehouse: str | Path | None,
) -> pl.DataFrame:
    """The peak of `gpu` at `precision` with a rate: `rate` (one row at the GPU's default
    form factor, dim_gpus; no warehouse needed), or every matching current offer's, each at
    its own form factor's peak (dim_gpu_variants)."""
    _check_pricing(pricing)
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    name = gpu.strip().upper()

    def peaks(specs: pl.DataFrame) -> pl.DataFrame:
        specs = specs.filter(pl.col("gpu_name") == name)
        if memory is not None:
            specs = specs.filter(pl.col("gpu_memory_gib") == memory)
        specs = specs.select(
            *planner.spec_keys(specs), pl.col(f"{precision}_tflops").alias("peak_tflops")
        ).filter(pl.col("peak_tflops").is_not_null())
        if specs.is_empty():
            raise ValueError(
                f"gpu {gpu!r}: no {precision} peak in dim_gpus for that GPU and memory"
            )
        return specs

    if rate is not None:
        if not rate >= 0:
            raise ValueError(f"rate_usd_per_gpu_hour must be >= 0, got {rate!r}")
        return peaks(gpu_specs(warehouse)).head(1).with_columns(
            pl.lit(float(rate)).alias("rate_usd_per_gpu_hour"),
            pl.lit(pricing).alias("pricing_model"),
            pl.lit("--rate").alias("rate_source"),
        )
    specs = peaks(offer_specs(warehouse))
    return (
        filter_offers(offers(warehouse), pricing=pricing, gpu_names=[name])
        .join(specs, on=planner.spec_keys(specs), how="inner")
        .rename({"price_usd_per_gpu_hour": "rate_usd_per_gpu_hour"})
        .with_columns(pl.lit("warehouse").alias("rate_source"))
    )


def estimate_train(
    params: float,
    tokens: float,
    gpu: str,
    *,
    mfu: float = 0.45,
    gpus: int = 1,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Training cost (models.training, 6ND at `mfu`) at every matching current offer,
    cheapest first; with `rate`, one row at that rate (no warehouse needed: GPU specs come
    from the bundled seed when it is missing)."""
    flops = training.training_flops(params, tokens)
    training.gpu_hours_for_flops(flops, 1.0, mfu)  # checks mfu
    gpus = _validate.count("gpus", gpus)
    priced = _priced_specs(gpu, memory, pricing, precision, rate, warehouse)
    gpu_hours = training.gpu_hours_for_flops_expr(
        pl.lit(flops), pl.col("peak_tflops"), pl.lit(float(mfu))
    )
    return (
        priced.with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(tokens)).alias("tokens"),
            pl.lit(float(mfu)).alias("mfu"),
            pl.lit(gpus).alias("gpus"),
            pl.lit(flops).alias("flops"),
            gpu_hours.alias("gpu_hours"),
        )
        .with_columns(
            (pl.col("gpu_hours") / pl.col("gpus")).alias("wall_clock_hours"),
            (pl.col("gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
        )
        .with_columns((pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"))
        .sort("cost_usd", maintain_order=True)
    )


def estimate_infer(
    params: float,
    tokens_per_request: float,
    requests: float,
    gpu: str,
    *,
    utilization: float = 0.3,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Inference cost (models.inference, 2N FLOPs per token at `utilization` of the peak) at
    every matching current offer, cheapest first; with `rate`, one row at that rate."""
    tokens = _validate.positive("tokens_per_request", tokens_per_request) * _validate.positive(
        "requests", requests
    )
    flops = inference.inference_flops(params, tokens)
    _validate.fraction("utilization", utilization)
    priced = _priced_specs(gpu, memory, pricing, precision, rate, warehouse)
    # GPU-hours to run `flops` at a fraction of the peak: the same arithmetic as training's
    gpu_hours = training.gpu_hours_for_flops_expr(
        pl.lit(flops), pl.col("peak_tflops"), pl.lit(float(utilization))
    )
    return (
        priced.with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(tokens_per_request)).alias("tokens_per_request"),
            pl.lit(float(requests)).alias("requests"),
            pl.lit(tokens).alias("tokens"),
            pl.lit(float(utilization)).alias("utilization"),
            pl.lit(flops).alias("flops"),
            gpu_hours.alias("gpu_hours"),
        )
        .with_columns(
            (pl.col("gpu_hours") * 3600).alias("gpu_seconds"),
            (pl.col("gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
        )
        .with_columns(
            (pl.col("cost_usd") / requests).alias("cost_per_request_usd"),
            (pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"),
        )
        .sort("cost_usd", maintain_order=True)
    )


__all__ = [
    "ServePlan",
    "TrainPlan",
    "cheapest",
    "connect",
    "estimate_infer",
    "estimate_train",
    "gpu_specs",
    "history",
    "offers",
    "plan_serve",
    "plan_train",
    "rates",
    "seed_gpu_specs",
    "warehouse_path",
]
