"""Break-evens: what `gpu-pricing breakeven` prints, buy vs rent (`breakeven_onprem`) and
spot vs on-demand (`breakeven_spot`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from common import names
from common.errors import InvalidInput
from gpu_pricing.api.estimates import (
    _no_offer,
    offer_fields,
    read_gpu_rows,
    read_priced_offers,
)
from gpu_pricing.api.reads import (
    _gpu,
    _maybe_connect,
    _need,
    read_variant_specs,
)
from models import breakeven, capacity
from models.conventions import (
    HOST_CAPEX_SHARE,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
)
from warehouse import queries


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
            offer = offer_fields(found.row(0, named=True))
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
                    offers[model] = offer_fields(found.row(0, named=True))
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
                    offers[model] = offer_fields(found.row(0, named=True))
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

