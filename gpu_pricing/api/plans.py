"""The planners' doors: the offer filters as typed (one name parser), `plan_train` and
`plan_serve` over the planner's arithmetic (`gpu_pricing.plan`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from common import names
from gpu_pricing import plan as planner
from gpu_pricing.api.reads import (
    _precision,
    _provider,
    connect,
    offer_specs,
    offers,
    read_default_preemption_rate,
    read_offers,
    read_variant_specs,
    seed_gpu_specs,
)
from models import _validate, breakeven, capacity, serving
from models.conventions import (
    HOURS_PER_MONTH,
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
        _provider(p, "--providers", extra=offers_frame["provider"].unique().to_list())
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
        **serving.sizes(params, precision, kv_bytes_per_token),
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

