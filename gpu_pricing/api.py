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

This module is the engine: every read and decision the command line, the planner and the
report give (rates, cheapest, history, estimates, plans, break-evens) is answered here,
and they print what it returns, so the same question gets the same answer at every door.
Names are read by one parser (services.names): GPUs, providers, regions and pricing
models in any case and alias (`rates(gpu="h100 sxm", provider="AWS", pricing="on-demand")`);
an unknown name raises naming the closest, never returns an empty frame.

Every function takes `warehouse=` (a path; default: $GPU_PRICING_WAREHOUSE, else
gpu-pricing.toml's `warehouse`, else warehouse/gpu_pricing.duckdb in the project's
checkout, whatever the working directory: see `warehouse_path`). A missing warehouse raises
`WarehouseError` saying to run `gpu-pricing refresh`; bad input raises `ValueError`
(`InvalidInput` is one) naming it, as the command-line flag.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from common.errors import InvalidInput, WarehouseError
from gpu_pricing import plan as planner
from models import _validate, breakeven, capacity, inference, memory_fit, serving, training
from models.conventions import (
    DEFAULT_MFU,
    HOST_CAPEX_SHARE,
    HOURS_PER_MONTH,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
    SERVING_UTILIZATION,
)
from models.costs import SECONDS_PER_HOUR
from services import names
from warehouse import db, queries

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

def warehouse_path(warehouse: str | Path | None = None) -> Path:
    """The warehouse file: the argument, else $GPU_PRICING_WAREHOUSE, else
    gpu-pricing.toml's `warehouse` (the file in the working directory or
    $GPU_PRICING_CONFIG), else the project's warehouse/gpu_pricing.duckdb, whatever the
    working directory (`warehouse.db.project_path`)."""
    from services.config import load

    cfg = load()
    if warehouse or cfg.warehouse is not None:
        return cfg.warehouse_path(warehouse)
    return db.project_path()


@contextmanager
def connect(warehouse: str | Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the warehouse, closed on exit. Every function's
    `warehouse=` also takes an open connection (`with gpu_pricing.connect() as con:
    gpu_pricing.rates("H100", warehouse=con)`), used as it is and left open: many
    questions, one connection."""
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        yield warehouse
        return
    con = db.connect_readonly(warehouse_path(warehouse))
    try:
        yield con
    finally:
        con.close()


def _exists(warehouse: str | Path | duckdb.DuckDBPyConnection | None) -> bool:
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        return True
    return warehouse_path(warehouse).exists()


def _where(warehouse: str | Path | duckdb.DuckDBPyConnection | None) -> str:
    """The warehouse as an error message names it."""
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        return "the given connection"
    return f"warehouse {warehouse_path(warehouse)}"


def _query(warehouse: str | Path | None, name: str, params: dict | None = None) -> pl.DataFrame:
    """The rows of query `name` (warehouse/queries/<name>.sql) in the warehouse."""
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
    if not _exists(warehouse):
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


def read_rates(
    con: duckdb.DuckDBPyConnection,
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    include_illustrative: bool = False,
    include_gpu_only: bool = False,
) -> pl.DataFrame:
    """`rates` on an open connection (names parsed here, checked against the warehouse)."""
    choice = _gpu(gpu, memory) if gpu else None
    if limit is not None and limit < 1:
        raise InvalidInput(f"--limit {limit}: must be >= 1")
    params = {
        "gpu": choice.name if choice else None,
        "variant": choice.variant if choice else None,
        "memory": choice.memory_gib if choice else memory,
        "pricing": names.pricing_model(pricing) if pricing else None,
        "provider": names.provider(provider, extra=read_providers(con)) if provider else None,
        "limit": limit,
        "include_illustrative": include_illustrative,
        "include_gpu_only": include_gpu_only,
    }
    params["region"] = (
        names.region(region, read_regions(con, params["provider"])) if region else None
    )
    return queries.read(con, "rates", params)


def read_providers(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The providers a warehouse holds prices for (a sheet may add one)."""
    return queries.read(con, "providers_seen")["provider"].to_list()


def read_regions(con: duckdb.DuckDBPyConnection, provider: str | None = None) -> list[str]:
    """The regions of current offers (of one provider, or all)."""
    return queries.read(con, "regions_seen", {"provider": provider})["region"].to_list()


def rates(
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    include_illustrative: bool = False,
    include_gpu_only: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Current per-GPU-hour rates (mart_gpu_offers_current), cheapest first by
    cheapest_order: what `gpu-pricing rates` prints. Usable offers only (int_offers_usable:
    verified prices of whole machines); `include_illustrative` and `include_gpu_only` add the
    others, with a `note` saying why each is not ranked by default."""
    with connect(warehouse) as con:
        return read_rates(
            con,
            gpu,
            memory=memory,
            pricing=pricing,
            provider=provider,
            region=region,
            limit=limit,
            include_illustrative=include_illustrative,
            include_gpu_only=include_gpu_only,
        )


def read_cheapest_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """mart_cheapest_gpu_hour in the columns `refresh` prints and the report charts."""
    return queries.read(con, "cheapest_summary")


def cheapest(warehouse: str | Path | None = None) -> pl.DataFrame:
    """mart_cheapest_gpu_hour: per GPU and pricing model, the cheapest offer now."""
    return _query(
        warehouse,
        "cheapest",
    )


def read_history(
    con: duckdb.DuckDBPyConnection,
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    since: date | None = None,
) -> pl.DataFrame:
    """`history` on an open connection."""
    choice = _gpu(gpu, memory)
    model = names.pricing_model(pricing) if pricing else None
    params = {
        "gpu": choice.name,
        "memory": choice.memory_gib,
        "pricing": model,
        "provider": names.provider(provider, extra=read_providers(con)) if provider else None,
        "since": since,
    }
    if model == "spot":  # every spot price point, per zone
        return queries.read(con, "spot_history", params)
    return queries.read(con, "price_periods", params)


def history(
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    since: date | None = None,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Effective-dated price history of a GPU (fct_gpu_prices: valid_from, valid_to; an open
    period has valid_to null), periods still valid on `since`; spot: every price point, per
    zone (fct_spot_prices). What `gpu-pricing history` prints."""
    with connect(warehouse) as con:
        return read_history(
            con, gpu, memory=memory, pricing=pricing, provider=provider, since=since
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


def _parsed_filters(
    offers_frame: pl.DataFrame,
    providers: str | Sequence[str] | None,
    regions: str | Sequence[str] | None,
    pricing: str | Sequence[str] | None,
    gpu_names: str | Sequence[str] | None,
) -> dict[str, list[str] | None]:
    """The planners' filters as typed -> the warehouse's names (one parser for every door):
    providers and regions any case, pricing models and GPUs any alias."""
    provider_list = [
        names.provider(p, "--providers", extra=offers_frame["provider"].unique().to_list())
        for p in _names(providers) or []
    ]
    known_regions = offers_frame["region"].drop_nulls().unique().to_list()
    return {
        "providers": provider_list or None,
        "regions": [names.region(r, known_regions, "--regions") for r in _names(regions) or []]
        or None,
        "pricing": [names.pricing_model(p) for p in _names(pricing) or []] or None,
        "gpu_names": [names.gpu(g).name for g in _names(gpu_names) or []] or None,
    }


def filter_offers(
    frame: pl.DataFrame,
    *,
    providers: str | Sequence[str] | None = None,
    regions: str | Sequence[str] | None = None,
    pricing: str | Sequence[str] | None = None,
    gpu_names: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Offers of the given providers, regions, pricing models and GPU names (None: all),
    each read by the one name parser."""
    parsed = _parsed_filters(frame, providers, regions, pricing, gpu_names)
    for column, allowed in (
        ("provider", parsed["providers"]),
        ("region", parsed["regions"]),
        ("pricing_model", parsed["pricing"]),
        ("gpu_name", parsed["gpu_names"]),
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
    precision = _precision(precision)
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
    precision = _precision(precision)
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


# -- estimates and break-evens: what `gpu-pricing estimate` and `breakeven` print ----------

# an offer as the estimates and break-evens show it (the offer columns of estimate_offers)
OFFER_COLUMNS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "gpu_memory_gib",
    "gpu_count",
    "gpu_variant",
    "pricing_model",
    "pricing_detail",
    "price_usd_per_hour",
    "price_usd_per_gpu_hour",
    "price_flag",
    "provenance",
    "is_verified",
    "source_effective_at",
    "first_seen_at",
    "effective_at",
    "fetched_at",
    "load_id",
]
# the columns of the query gpu_variant_specs, taken from the bundled seed without a warehouse
SPEC_COLUMNS = [
    "gpu_name",
    "gpu_memory_gib",
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "tdp_watts",
    "capex_usd",
    "capex_as_of",
    "capex_source",
]


def _gpu(gpu: str | names.Gpu, memory: float | None = None) -> names.Gpu:
    """A GPU as typed (any case or alias, memory and form factor riding along) -> its
    reference name, memory and form factor; unknown names raise naming the closest."""
    if isinstance(gpu, names.Gpu):
        return names.Gpu(gpu.name, memory if memory is not None else gpu.memory_gib, gpu.variant)
    return names.gpu_and_memory(gpu, memory)


def _precision(precision: str) -> str:
    return names.precision(precision)[0]


@contextmanager
def _maybe_connect(warehouse: str | Path | None) -> Iterator[duckdb.DuckDBPyConnection | None]:
    """A read-only connection when the warehouse exists, else None (the bundled seed then
    answers spec questions; an offer lookup says to refresh)."""
    if not _exists(warehouse):
        yield None
        return
    with connect(warehouse) as con:
        yield con


def _need(con: duckdb.DuckDBPyConnection | None, warehouse: str | Path | None, instead: str):
    if con is None:
        raise WarehouseError(
            f"{_where(warehouse)} does not exist: run `gpu-pricing refresh` "
            f"first, or pass {instead}"
        )
    return con


def read_gpu_rows(
    con: duckdb.DuckDBPyConnection | None, choice: names.Gpu
) -> pl.DataFrame:
    """The dim_gpus rows of a GPU (one per memory size; --memory keeps one), with the peaks
    and TDP of its named form factor; the bundled seed when there is no warehouse."""
    if con is not None:
        rows = queries.read(con, "gpu_variant_specs", {"gpu": choice.name, "variant": choice.variant})
    else:
        seed = seed_gpu_specs().filter(pl.col("gpu_name") == choice.name)
        rows = seed.select(SPEC_COLUMNS).sort("gpu_memory_gib")
    if rows.is_empty():
        raise InvalidInput(f"--gpu {choice.name!r}: unknown GPU, not in dim_gpus")
    if choice.memory_gib is not None:
        sizes = rows["gpu_memory_gib"].to_list()
        rows = rows.filter(pl.col("gpu_memory_gib") == choice.memory_gib)
        if rows.is_empty():
            raise InvalidInput(
                f"--memory {choice.memory_gib:g}: no {choice.name} with that memory in dim_gpus "
                f"(known: {', '.join(f'{s:g}' for s in sizes)} GiB)"
            )
    return rows


def read_priced_offers(
    con: duckdb.DuckDBPyConnection,
    choice: names.Gpu,
    pricing: str,
    *,
    precision: str = "bf16",
    need_peak: bool = False,
    include_illustrative: bool = False,
    limit: int | None = None,
) -> pl.DataFrame:
    """The current offers of a GPU and pricing model an estimate or break-even prices with
    (estimate_offers: rankable, verified unless `include_illustrative`), cheapest first by
    cheapest_order, each with `peak_tflops` at its own form factor."""
    return queries.read(
        con,
        "estimate_offers",
        {
            "variant": choice.variant,
            "include_illustrative": include_illustrative,
            "gpu": choice.name,
            "memory": choice.memory_gib,
            "pricing": pricing,
            "precision": precision,
            "need_peak": need_peak,
            "limit": limit,
        },
    )


def _no_offer(
    warehouse: str | Path | None, choice: names.Gpu, pricing: str, why: str = ""
) -> InvalidInput:
    size = f" {choice.memory_gib:g} GiB" if choice.memory_gib is not None else ""
    return InvalidInput(
        f"no current {pricing} offer for {choice.name}{size}{why} in "
        f"{_where(warehouse)}: refresh it, try another --pricing, or pass the rate"
    )


def _single_peak(specs: pl.DataFrame, gpu: str, precision: str) -> float:
    """The one peak TFLOPS of a GPU at a precision (a --rate estimate has no offer)."""
    peaks = specs.filter(pl.col(f"{precision}_tflops").is_not_null())
    distinct = sorted(set(peaks[f"{precision}_tflops"].to_list()))
    if not distinct:
        raise InvalidInput(
            f"--precision {precision}: dim_gpus has no dense {precision} peak for {gpu}"
        )
    if len(distinct) > 1:
        sizes = ", ".join(f"{m:g}" for m in peaks["gpu_memory_gib"].to_list())
        raise InvalidInput(
            f"--gpu {gpu}: its memory sizes ({sizes} GiB) differ in {precision} peak; pass --memory"
        )
    return float(distinct[0])


def priced_rows(
    gpu: str | names.Gpu,
    *,
    memory: float | None = None,
    pricing: str = "on_demand",
    precision: str = "bf16",
    rate: float | None = None,
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """What an estimate is priced at: every matching current offer (OFFER_COLUMNS plus
    `peak_tflops` of its own form factor, `rate_usd_per_gpu_hour`, `rate_source` and
    `cheapest_order`), or with `rate` one row at that rate and the GPU's peak (offer
    columns null; no warehouse needed). Unknown names, a missing peak, no offer: InvalidInput."""
    choice = _gpu(gpu, memory)
    pricing = names.pricing_model(pricing)
    precision = _precision(precision)
    if rate is not None:
        _validate.non_negative("rate_usd_per_gpu_hour", rate)
    with _maybe_connect(warehouse) as con:
        specs = read_gpu_rows(con, choice)
        if rate is not None:
            peak = _single_peak(specs, choice.name, precision)
            sizes = specs["gpu_memory_gib"].to_list()
            mem = choice.memory_gib if choice.memory_gib is not None else max(sizes)
            row = {c: None for c in OFFER_COLUMNS} | {
                "gpu_name": choice.name,
                "gpu_memory_gib": float(mem),
                "gpu_variant": choice.variant,
                "pricing_model": pricing,
            }
            return pl.DataFrame([row]).with_columns(
                pl.lit(float(peak)).alias("peak_tflops"),
                pl.lit(float(rate)).alias("rate_usd_per_gpu_hour"),
                pl.lit("--rate").alias("rate_source"),
                pl.lit(None, dtype=pl.Int64).alias("cheapest_order"),
                pl.lit(precision).alias("precision"),
            )
        if specs.filter(pl.col(f"{precision}_tflops").is_not_null()).is_empty():
            raise InvalidInput(
                f"--precision {precision}: dim_gpus has no dense {precision} peak for {choice.name}"
            )
        found = read_priced_offers(
            _need(con, warehouse, "--rate"),
            choice,
            pricing,
            precision=precision,
            need_peak=True,
            include_illustrative=include_illustrative,
        )
    if found.is_empty():
        raise _no_offer(warehouse, choice, pricing)
    return found.with_columns(
        pl.col("price_usd_per_gpu_hour").alias("rate_usd_per_gpu_hour"),
        pl.lit("warehouse").alias("rate_source"),
        pl.lit(precision).alias("precision"),
    )


# the order every estimate answers in: offers that hold the model first, then the
# cheapest total cost, then the one cheapest-first order of the offers
ESTIMATE_ORDER = ("fits_memory", "cost_usd", "cheapest_order")


def _estimate_sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(
        list(ESTIMATE_ORDER), descending=[True, False, False], nulls_last=True, maintain_order=True
    )


def estimate_train(
    params: float | str,
    tokens: float | str,
    gpu: str,
    *,
    mfu: float = DEFAULT_MFU,
    gpus: int | None = None,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    include_illustrative: bool = False,
    full_recompute: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Training cost (models.training: 6ND FLOPs at `mfu` of each offer's own peak) at
    every matching current offer, or at `rate`. One row per offer, in the order the
    command line answers: offers whose GPUs hold the model's training state first
    (models.memory_fit: `fits_memory`, `min_gpus`), then the cheapest total cost. Without
    `gpus`, each offer uses the fewest of its GPUs that hold the model
    (`gpus_source` = 'memory fit')."""
    params, tokens = names.count(params, "--params"), names.count(tokens, "--tokens")
    # every input checked by the formula before any lookup
    training.estimate_training(params, tokens, 1.0, mfu, 1 if gpus is None else gpus, 0.0)
    priced = priced_rows(
        gpu,
        memory=memory,
        pricing=pricing,
        precision=precision,
        rate=rate,
        include_illustrative=include_illustrative,
        warehouse=warehouse,
    )
    flops = training.training_flops(params, tokens)
    min_gpus = memory_fit.min_gpus_expr("training", params, pl.col("gpu_memory_gib"))
    chosen = pl.lit(gpus, dtype=pl.Int64) if gpus is not None else min_gpus
    gpu_hours = training.gpu_hours_for_flops_expr(
        pl.lit(flops), pl.col("peak_tflops"), pl.lit(float(mfu))
    )
    frame = (
        priced.with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(tokens)).alias("tokens"),
            pl.lit(float(mfu)).alias("mfu"),
            pl.lit(training.hfu_from_mfu(mfu, full_recompute=full_recompute)).alias("hfu"),
            chosen.alias("gpus"),
            pl.lit("--gpus" if gpus is not None else "memory fit").alias("gpus_source"),
            pl.lit(flops).alias("flops"),
            pl.lit(training.hardware_flops(params, tokens, full_recompute=full_recompute)).alias(
                "hardware_flops"
            ),
            gpu_hours.alias("gpu_hours"),
            pl.lit(memory_fit.required_gib("training", params)).alias("required_gib"),
            min_gpus.alias("min_gpus"),
        )
        .with_columns(
            (pl.col("gpu_hours") / pl.col("gpus")).alias("wall_clock_hours"),
            (pl.col("gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
            (pl.col("min_gpus") <= pl.col("gpus")).alias("fits_memory"),
        )
        .with_columns(
            (pl.col("wall_clock_hours") / 24).alias("wall_clock_days"),
            (pl.col("cost_usd") / tokens).alias("cost_per_token_usd"),
            (pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"),
        )
    )
    return _estimate_sorted(frame)


def estimate_infer(
    params: float | str,
    tokens_per_request: float | str,
    requests: float | str,
    gpu: str,
    *,
    utilization: float = SERVING_UTILIZATION,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Inference cost (models.inference: 2N FLOPs per token at `utilization` of each
    offer's own peak) at every matching current offer, or at `rate`. One row per offer:
    instances whose GPUs hold the weights and KV cache (models.memory_fit) first, then
    the cheapest total cost."""
    params = names.count(params, "--params")
    tokens_per_request = names.count(tokens_per_request, "--tokens-per-request")
    requests = names.count(requests, "--requests")
    inference.estimate_inference(params, tokens_per_request, requests, 1.0, utilization, 0.0)
    priced = priced_rows(
        gpu,
        memory=memory,
        pricing=pricing,
        precision=precision,
        rate=rate,
        include_illustrative=include_illustrative,
        warehouse=warehouse,
    )
    tokens = tokens_per_request * requests
    flops = inference.inference_flops(params, tokens)
    # GPU-hours to run `flops` at a fraction of the peak: the same arithmetic as training's
    gpu_hours = training.gpu_hours_for_flops_expr(
        pl.lit(flops), pl.col("peak_tflops"), pl.lit(float(utilization))
    )
    frame = (
        priced.with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(tokens_per_request)).alias("tokens_per_request"),
            pl.lit(float(requests)).alias("requests"),
            pl.lit(tokens).alias("tokens"),
            pl.lit(float(utilization)).alias("utilization"),
            pl.lit(inference.inference_flops_per_token(params)).alias("flops_per_token"),
            pl.lit(flops).alias("flops"),
            gpu_hours.alias("gpu_hours"),
            pl.lit(memory_fit.required_gib("serving", params)).alias("required_gib"),
            memory_fit.min_gpus_expr("serving", params, pl.col("gpu_memory_gib")).alias(
                "min_gpus"
            ),
            # one replica on one instance: its GPUs hold the weights and KV cache
            pl.col("gpu_count").alias("gpus"),
        )
        .with_columns(
            (pl.col("gpu_hours") * SECONDS_PER_HOUR).alias("gpu_seconds"),
            (pl.col("gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
            (pl.col("min_gpus") <= pl.col("gpus")).alias("fits_memory"),
        )
        .with_columns(
            (pl.col("cost_usd") / requests).alias("cost_per_request_usd"),
            (pl.col("cost_usd") / tokens * 1e3).alias("cost_per_1k_tokens_usd"),
            (pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"),
        )
    )
    return _estimate_sorted(frame)


def _offer(row: dict[str, Any]) -> dict[str, Any] | None:
    return None if row.get("provider") is None else {c: row[c] for c in OFFER_COLUMNS}


def breakeven_onprem(
    gpu: str,
    *,
    memory: float | None = None,
    capex: float | None = None,
    rate: float | None = None,
    pricing: str = "on_demand",
    utilization: float = 1.0,
    power_kw: float | None = None,
    usd_per_kwh: float = POWER_USD_PER_KWH,
    residual_value: float = 0.0,
    pue: float | None = None,
    host_kw: float | None = None,
    host_usd: float | None = None,
    ops_usd_per_year: float | None = None,
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> dict[str, Any]:
    """Hours and months of use until buying a GPU beats renting it, with the whole cost of
    owning (models.breakeven.onprem): capex from `capex` or dim_gpus' reference, the host's
    share, power for the GPU (`power_kw`, default its TDP) and host at the facility's PUE
    and `usd_per_kwh`, operations per GPU-year; what is not given takes the stated defaults
    of models.breakeven.owning_defaults (seed_conventions). The rent is `rate`, or the
    cheapest verified whole-machine offer of the GPU's form factor (the one named, else its
    default: H100 SXM), never a marketplace listing; `compared_with` says which."""
    pricing = names.pricing_model(pricing)
    choice = _gpu(gpu, memory)
    given = {
        k: v
        for k, v in (
            ("pue", pue),
            ("host_kw", host_kw),
            ("host_capex_usd", host_usd),
            ("ops_usd_per_year", ops_usd_per_year),
        )
        if v is not None
    }

    def assumptions(capex_usd: float, kw: float) -> dict[str, float]:
        defaults = breakeven.owning_defaults(capex_usd, kw * 1000)
        host = given.get("host_capex_usd", defaults["host_capex_usd"])
        return {
            "pue": given.get("pue", defaults["pue"]),
            "host_kw": given.get("host_kw", defaults["host_kw"]),
            "host_capex_usd": host,
            "ops_usd_per_year": given.get(
                "ops_usd_per_year", OPS_SHARE_OF_CAPEX_PER_YEAR * (capex_usd + host)
            ),
        }

    def compute(capex_usd: float, rate_usd: float, kw: float) -> dict[str, Any]:
        return breakeven.onprem(
            capex_usd,
            rate_usd,
            utilization=utilization,
            power_kw=kw,
            usd_per_kwh=usd_per_kwh,
            residual_value_usd=residual_value,
            **assumptions(capex_usd, kw),
        )

    # every given input checked before any lookup, with valid placeholders for the rest (a
    # placeholder rate high enough that only the given inputs can fail)
    power_given = power_kw is not None
    compute(
        capex if capex is not None else max(residual_value, 0.0) + 1.0,
        rate if rate is not None else 1e9,
        power_kw if power_given else 0.0,
    )
    capex_source = "--capex"
    mem = choice.memory_gib
    offer = None
    form = choice.variant
    with _maybe_connect(warehouse) as con:
        specs = read_gpu_rows(con, choice)
        if capex is None:
            with_capex = specs.filter(pl.col("capex_usd").is_not_null())
            if with_capex.is_empty():
                raise InvalidInput(
                    f"--capex: dim_gpus has no reference capex for {choice.name}; pass --capex"
                )
            if with_capex.height > 1:
                sizes = ", ".join(f"{m:g}" for m in with_capex["gpu_memory_gib"].to_list())
                raise InvalidInput(
                    f"--gpu {choice.name}: capex known for {sizes} GiB; pass --memory"
                )
            row = with_capex.row(0, named=True)
            capex, mem = row["capex_usd"], row["gpu_memory_gib"]
            capex_source = f"dim_gpus reference as of {row['capex_as_of']}: {row['capex_source']}"
        if mem is not None:
            specs = specs.filter(pl.col("gpu_memory_gib") == mem)
        if not power_given:
            tdps = specs.filter(pl.col("tdp_watts").is_not_null())["tdp_watts"].unique().to_list()
            if len(tdps) != 1:
                raise InvalidInput(
                    f"--power-kw: no single TDP for {choice.name} in dim_gpus; pass --power-kw"
                )
            power_kw = tdps[0] / 1000
        if rate is None:
            con = _need(con, warehouse, "--rate")
            if form is None:
                defaults = read_variant_specs(con).filter(
                    (pl.col("gpu_name") == choice.name) & pl.col("is_default_variant")
                )
                if mem is not None:
                    defaults = defaults.filter(pl.col("gpu_memory_gib") == mem)
                forms = defaults["gpu_variant"].unique().to_list()
                form = forms[0] if len(forms) == 1 else None
            sized = names.Gpu(choice.name, mem, form)
            found = read_priced_offers(
                con, sized, pricing, include_illustrative=include_illustrative
            ).filter(capacity.provider_class(pl.col("provider")) != "marketplace")
            if found.is_empty():
                raise _no_offer(
                    warehouse, sized, pricing, f" ({form} form factor, no marketplace listing;"
                    " pass --rate)"
                )
            offer = _offer(found.row(0, named=True))
            rate = offer["price_usd_per_gpu_hour"]
    result = compute(capex, rate, power_kw)
    stated = {
        "power_kw": "--power-kw" if power_given else "the GPU's TDP (dim_gpus)",
        "usd_per_kwh": "seed_conventions power_usd_per_kwh (EIA 2023 US industrial and "
        "commercial averages)"
        if usd_per_kwh == POWER_USD_PER_KWH
        else "--usd-per-kwh",
        "pue": "--pue" if "pue" in given else "seed_conventions pue (Uptime Institute 2024)",
        "host_kw": "--host-kw"
        if "host_kw" in given
        else "seed_conventions host_watts_per_gpu (DGX H100 datasheet)",
        "host_capex_usd": "--host-usd"
        if "host_capex_usd" in given
        else f"seed_conventions host_capex_share, {HOST_CAPEX_SHARE:.0%} of the GPU's price, "
        "assumed",
        "ops_usd_per_year": "--ops-usd-per-year"
        if "ops_usd_per_year" in given
        else f"seed_conventions ops_share_of_capex_per_year, {OPS_SHARE_OF_CAPEX_PER_YEAR:.0%} of "
        "the purchase a year, assumed",
    }
    return {
        "gpu": choice.name,
        "gpu_memory_gib": mem,
        "gpu_variant": form,
        "pricing_model": pricing,
        **result,
        "capex_source": capex_source,
        "owning_source": stated,
        "rate_source": "--rate" if offer is None else "warehouse",
        "compared_with": None
        if offer is None
        else f"the cheapest verified whole-machine {pricing} offer of the {form} form factor "
        "(marketplace listings left out)",
        "offer": offer,
    }


PAIRS_LISTED = 5


def breakeven_spot(
    gpu: str | None = None,
    *,
    memory: float | None = None,
    spot_rate: float | None = None,
    on_demand_rate: float | None = None,
    checkpoint_overhead: float = 0.05,
    checkpoint_interval_hours: float = 1.0,
    preemption_rate: float | None = None,
    restart_hours: float = 0.0,
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> dict[str, Any]:
    """Break-even preemption rate of spot vs on-demand (models.breakeven.spot). Rates not
    given come from the warehouse: like for like, the cheapest same-instance pair
    (int_offer_pairs, through the spot_breakeven macro) when one exists, else the cheapest
    offer of each pricing model (`rates_paired` false)."""

    def compute(spot_usd: float, on_demand_usd: float) -> dict[str, Any]:
        return breakeven.spot(
            spot_usd,
            on_demand_usd,
            checkpoint_overhead,
            checkpoint_interval_hours,
            preemption_rate,
            restart_hours,
        )

    # every given input checked before any lookup, with valid placeholders for the rest
    compute(
        spot_rate if spot_rate is not None else 1.0,
        on_demand_rate if on_demand_rate is not None else 2.0,
    )
    choice = _gpu(gpu, memory) if gpu else None
    if choice is None and (spot_rate is None or on_demand_rate is None):
        raise InvalidInput(
            "--gpu: needed to look up the cheapest current rates; "
            "or pass both --spot-rate and --on-demand-rate"
        )
    offers: dict[str, dict[str, Any] | None] = {"spot": None, "on_demand": None}
    rates_: dict[str, float | None] = {"spot": spot_rate, "on_demand": on_demand_rate}
    paired = False
    pairs: list[dict[str, Any]] = []
    if choice is not None:
        with _maybe_connect(warehouse) as con:
            read_gpu_rows(con, choice)
            if con is not None:
                pairs = queries.read(
                    con,
                    "spot_pairs",
                    {
                        "overhead": checkpoint_overhead,
                        "interval": checkpoint_interval_hours,
                        "restart": restart_hours,
                        "gpu": choice.name,
                        "memory": choice.memory_gib,
                        "limit": PAIRS_LISTED,
                        "include_illustrative": include_illustrative,
                    },
                ).to_dicts()
            if spot_rate is None and on_demand_rate is None and pairs:
                # like for like: both sides of the cheapest same-instance pair
                best, paired = pairs[0], True
                for model, zone in (("spot", best["zone"]), ("on_demand", best["on_demand_zone"])):
                    found = queries.read(
                        con,
                        "offer_by_key",
                        {
                            "provider": best["provider"],
                            "region": best["region"],
                            "zone": zone,
                            "instance_type": best["instance_type"],
                            "pricing": model,
                        },
                    )
                    offers[model] = _offer(found.row(0, named=True))
            for model in ("spot", "on_demand"):
                if rates_[model] is None and offers[model] is None:
                    found = read_priced_offers(
                        _need(con, warehouse, "--spot-rate and --on-demand-rate"),
                        choice,
                        model,
                        include_illustrative=include_illustrative,
                        limit=1,
                    )
                    if found.is_empty():
                        flag = f"--{model.replace('_', '-')}-rate"
                        raise _no_offer(warehouse, choice, model, f" (pass {flag})")
                    offers[model] = _offer(found.row(0, named=True))
                if rates_[model] is None:
                    rates_[model] = offers[model]["price_usd_per_gpu_hour"]
    result = compute(rates_["spot"], rates_["on_demand"])
    return {
        "gpu": choice.name if choice else None,
        "gpu_memory_gib": choice.memory_gib if choice else memory,
        # both rates are per GPU-hour; the *_usd_per_hour keys are the former names,
        # kept as aliases for one release
        "spot_rate_usd_per_gpu_hour": result["spot_rate_usd_per_hour"],
        "on_demand_rate_usd_per_gpu_hour": result["on_demand_rate_usd_per_hour"],
        **result,
        # true: both rates from one same-provider, same-region instance (like for like)
        "rates_paired": paired,
        "spot_offer": offers["spot"],
        "on_demand_offer": offers["on_demand"],
        "same_instance_pairs": pairs,
    }


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
