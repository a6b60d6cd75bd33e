"""Break-even points: buy vs rent, spot vs on-demand, reserved vs on-demand.

Buy vs rent (``onprem``). Over ``H`` GPU-hours of use, owning costs the purchase price of
the GPU and its share of the server (host), less what it resells for, plus power for the
GPU and its host at the facility's PUE for each hour used, plus operations (staff,
support, spares, space) all year; renting costs the hourly rate for each hour used::

    own(H)  = capex + host - residual + H * ((power_kw + host_kw) * pue * usd_per_kwh
                                              + ops_usd_per_year / (8760 * utilization))
    rent(H) = H * rate_usd_per_gpu_hour
    break_even_gpu_hours = (capex + host - residual) / (rate - power/h - ops/h)
    break_even_months    = break_even_gpu_hours / (utilization * HOURS_PER_MONTH)

With HOURS_PER_MONTH = 720 (30 days): an H100 at 30,000 USD vs 4 USD/h with nothing else
counted breaks even after 30000 / 4 = 7,500 GPU-hours = 10.4 months at full use. With the
stated defaults (``owning_defaults``: 0.10 USD/kWh, PUE 1.56, a 575 W host and 25% of the
price on top, operations 10% of the purchase a year): power (0.7 + 0.575) * 1.56 * 0.10 =
0.1989 USD/h, host 7,500 USD, operations 3,750 USD/year = 0.4281 USD/h at full use, so
(37,500) / (4 - 0.1989 - 0.4281) = 11,118 GPU-hours = 15.4 months.

Spot vs on-demand with checkpointing (``spot``). A checkpoint every ``c`` hours costs a
fraction ``o`` of extra time; a preemption (rate ``p`` per hour) loses on average half an
interval of work, ``c/2``. To first order the useful fraction of each hour is
``1 - p*c/2``, so::

    time_multiplier          = (1 + o) / (1 - p*c/2)      (T_eff = T * time_multiplier)
    spot_cost_per_useful_hour = spot_rate * time_multiplier
    break-even p, where that equals the on-demand rate:
        p* = (2 / c) * (1 - spot_rate * (1 + o) / on_demand_rate)

Spot 1.50 vs on-demand 4.00, 5% overhead, hourly checkpoints:
p* = 2 * (1 - 1.5 * 1.05 / 4) = 1.2125 preemptions per hour. ``restart_hours`` (time to
get a replacement and reload, lost per preemption) generalises ``c/2`` to
``c/2 + restart_hours``; it defaults to 0, which gives the formula above.

Reserved vs on-demand (``reserved``). A commitment bills every hour of the term whether
used or not; on-demand bills only hours used. At utilisation ``u`` the on-demand cost
per committed hour is ``u * on_demand``, so the commitment pays above
``u* = reserved_effective_hourly / on_demand_hourly``.
"""

from __future__ import annotations

import polars as pl

from models import _validate
from models.conventions import (
    HOST_CAPEX_SHARE,
    HOST_WATTS_PER_GPU,
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
    PUE,
)


def onprem_breakeven_gpu_hours(
    capex_usd: float,
    rate_usd_per_gpu_hour: float,
    *,
    power_kw: float = 0.0,
    usd_per_kwh: float = 0.0,
    residual_value_usd: float = 0.0,
    host_capex_usd: float = 0.0,
    host_kw: float = 0.0,
    pue: float = 1.0,
    ops_usd_per_year: float = 0.0,
    utilization: float = 1.0,
) -> float:
    """GPU-hours of use after which owning is cheaper than renting (`onprem` explains)."""
    return onprem(
        capex_usd,
        rate_usd_per_gpu_hour,
        utilization=utilization,
        power_kw=power_kw,
        usd_per_kwh=usd_per_kwh,
        residual_value_usd=residual_value_usd,
        host_capex_usd=host_capex_usd,
        host_kw=host_kw,
        pue=pue,
        ops_usd_per_year=ops_usd_per_year,
    )["break_even_gpu_hours"]


def months_for_gpu_hours(
    gpu_hours: float, utilization: float = 1.0, hours_per_month: float = HOURS_PER_MONTH
) -> float:
    """Calendar months to accumulate ``gpu_hours`` on one GPU busy ``utilization`` of the time."""
    return _validate.non_negative("gpu_hours", gpu_hours) / (
        _validate.fraction("utilization", utilization)
        * _validate.positive("hours_per_month", hours_per_month)
    )


def onprem(
    capex_usd: float,
    rate_usd_per_gpu_hour: float,
    utilization: float = 1.0,
    power_kw: float = 0.0,
    usd_per_kwh: float = 0.0,
    residual_value_usd: float = 0.0,
    hours_per_month: float = HOURS_PER_MONTH,
    *,
    host_capex_usd: float = 0.0,
    host_kw: float = 0.0,
    pue: float = 1.0,
    ops_usd_per_year: float = 0.0,
) -> dict[str, float]:
    """Buy vs rent for one GPU, the whole cost of owning: every input, the break-even
    GPU-hours and months.

        owned_capex_usd       = capex_usd + host_capex_usd        (the server's share per GPU)
        power_usd_per_hour    = (power_kw + host_kw) * pue * usd_per_kwh   (per hour of use)
        ops_usd_per_hour      = ops_usd_per_year / (8760 * utilization)  (spread over the
                                hours of use: staff, support, spares, space run all year)
        saved_usd_per_hour    = rate - power_usd_per_hour - ops_usd_per_hour
        break_even_gpu_hours  = (owned_capex_usd - residual_value_usd) / saved_usd_per_hour
        break_even_months     = break_even_gpu_hours / (utilization * hours_per_month)

    Raises when renting costs no more than running the GPU one owns (never breaks even).
    The defaults a caller states (sql/seeds/seed_conventions.csv): usd_per_kwh 0.10, PUE
    1.56, host 575 W and 25% of the GPU's price, operations 10% of the purchase a year.
    """
    capex = _validate.positive("capex_usd", capex_usd)
    rate = _validate.positive("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour)
    host = _validate.non_negative("host_capex_usd", host_capex_usd)
    residual = _validate.non_negative("residual_value_usd", residual_value_usd)
    use = _validate.fraction("utilization", utilization)
    if residual >= capex + host:
        raise ValueError(
            f"residual_value_usd must be < the purchase price ({capex + host!r}), got {residual!r}"
        )
    if not _validate.positive("pue", pue) >= 1:
        raise ValueError(f"pue must be >= 1, got {pue!r}")
    gpu_kw = _validate.non_negative("power_kw", power_kw)
    host_kw = _validate.non_negative("host_kw", host_kw)
    price = _validate.non_negative("usd_per_kwh", usd_per_kwh)
    ops_year = _validate.non_negative("ops_usd_per_year", ops_usd_per_year)
    power_usd_per_hour = (gpu_kw + host_kw) * pue * price
    ops_usd_per_hour = ops_year / (HOURS_PER_YEAR * use)
    saved_usd_per_hour = rate - power_usd_per_hour - ops_usd_per_hour
    if saved_usd_per_hour <= 0:
        raise ValueError(
            f"rate_usd_per_gpu_hour must exceed the cost of running an owned GPU per hour of "
            f"use ({power_usd_per_hour:.4f} USD power + {ops_usd_per_hour:.4f} USD operations), "
            f"got {rate!r}: owning never breaks even"
        )
    hours = (capex + host - residual) / saved_usd_per_hour
    return {
        "capex_usd": capex,
        "host_capex_usd": host,
        "owned_capex_usd": capex + host,
        "residual_value_usd": residual,
        "rate_usd_per_gpu_hour": rate,
        "power_kw": gpu_kw,
        "host_kw": host_kw,
        "pue": float(pue),
        "usd_per_kwh": price,
        "power_usd_per_hour": power_usd_per_hour,
        "ops_usd_per_year": ops_year,
        "ops_usd_per_hour": ops_usd_per_hour,
        "saved_usd_per_hour": saved_usd_per_hour,
        "utilization": use,
        "hours_per_month": float(hours_per_month),
        "break_even_gpu_hours": hours,
        "break_even_months": months_for_gpu_hours(hours, use, hours_per_month),
    }


def owning_defaults(capex_usd: float, tdp_watts: float | None) -> dict[str, float | None]:
    """The stated defaults of the whole cost of owning one GPU of price `capex_usd` and
    TDP `tdp_watts` (sql/seeds/seed_conventions.csv; sources in sql/seeds/README.md)."""
    host = HOST_CAPEX_SHARE * capex_usd
    return {
        "power_kw": None if tdp_watts is None else tdp_watts / 1000,
        "usd_per_kwh": POWER_USD_PER_KWH,
        "pue": PUE,
        "host_kw": HOST_WATTS_PER_GPU / 1000,
        "host_capex_usd": host,
        "ops_usd_per_year": OPS_SHARE_OF_CAPEX_PER_YEAR * (capex_usd + host),
    }


def _lost_hours_per_preemption(checkpoint_interval_hours: float, restart_hours: float) -> float:
    return _validate.positive(
        "checkpoint_interval_hours", checkpoint_interval_hours
    ) / 2 + _validate.non_negative("restart_hours", restart_hours)


def spot_time_multiplier(
    checkpoint_overhead: float,
    checkpoint_interval_hours: float,
    preemption_rate_per_hour: float,
    *,
    restart_hours: float = 0.0,
) -> float:
    """``T_eff / T = (1 + o) / (1 - p * (c/2 + restart_hours))``.

    Raises when preemptions eat all the time (denominator <= 0: the job never finishes).
    """
    overhead = _validate.non_negative("checkpoint_overhead", checkpoint_overhead)
    rate = _validate.non_negative("preemption_rate_per_hour", preemption_rate_per_hour)
    lost = _lost_hours_per_preemption(checkpoint_interval_hours, restart_hours)
    useful_fraction = 1 - rate * lost
    if useful_fraction <= 0:
        raise ValueError(
            f"preemption_rate_per_hour must be < {1 / lost!r} for a "
            f"{checkpoint_interval_hours!r} h checkpoint interval (the run never finishes), "
            f"got {preemption_rate_per_hour!r}"
        )
    return (1 + overhead) / useful_fraction


def spot_time_multiplier_expr(
    checkpoint_overhead: float,
    checkpoint_interval_hours: float,
    preemption_rate_per_hour: pl.Expr,
    *,
    restart_hours: float = 0.0,
) -> pl.Expr:
    """``spot_time_multiplier`` as a Polars expression over a column of preemption rates:
    null where preemptions eat all the time (the run never finishes)."""
    overhead = _validate.non_negative("checkpoint_overhead", checkpoint_overhead)
    lost = _lost_hours_per_preemption(checkpoint_interval_hours, restart_hours)
    useful_fraction = 1 - preemption_rate_per_hour * lost
    return pl.when(useful_fraction > 0).then((1 + overhead) / useful_fraction)


def spot_breakeven_preemption_rate(
    spot_rate_usd_per_hour: float,
    on_demand_rate_usd_per_hour: float,
    checkpoint_overhead: float,
    checkpoint_interval_hours: float,
    *,
    restart_hours: float = 0.0,
) -> float:
    """Preemptions per hour above which spot costs more per useful hour than on-demand.

    ``(1 - spot * (1 + o) / on_demand) / (c/2 + restart_hours)``; 0.0 when spot is not
    cheaper even with no preemptions at all.
    """
    spot = _validate.positive("spot_rate_usd_per_hour", spot_rate_usd_per_hour)
    on_demand = _validate.positive("on_demand_rate_usd_per_hour", on_demand_rate_usd_per_hour)
    overhead = _validate.non_negative("checkpoint_overhead", checkpoint_overhead)
    lost = _lost_hours_per_preemption(checkpoint_interval_hours, restart_hours)
    return max(0.0, (1 - spot * (1 + overhead) / on_demand) / lost)


def spot(
    spot_rate_usd_per_hour: float,
    on_demand_rate_usd_per_hour: float,
    checkpoint_overhead: float,
    checkpoint_interval_hours: float,
    preemption_rate_per_hour: float | None = None,
    restart_hours: float = 0.0,
) -> dict[str, float | bool | None]:
    """Spot vs on-demand: every input, the discount and the break-even preemption rate;
    with a preemption rate, the time multiplier and effective cost per useful hour."""
    spot_rate = _validate.positive("spot_rate_usd_per_hour", spot_rate_usd_per_hour)
    on_demand = _validate.positive("on_demand_rate_usd_per_hour", on_demand_rate_usd_per_hour)
    result: dict[str, float | bool | None] = {
        "spot_rate_usd_per_hour": spot_rate,
        "on_demand_rate_usd_per_hour": on_demand,
        "checkpoint_overhead": float(checkpoint_overhead),
        "checkpoint_interval_hours": float(checkpoint_interval_hours),
        "restart_hours": float(restart_hours),
        "spot_discount": 1 - spot_rate / on_demand,
        "break_even_preemption_rate_per_hour": spot_breakeven_preemption_rate(
            spot_rate,
            on_demand,
            checkpoint_overhead,
            checkpoint_interval_hours,
            restart_hours=restart_hours,
        ),
        "preemption_rate_per_hour": None,
        "time_multiplier": None,
        "spot_usd_per_useful_hour": None,
        "spot_is_cheaper": None,
    }
    if preemption_rate_per_hour is not None:
        multiplier = spot_time_multiplier(
            checkpoint_overhead,
            checkpoint_interval_hours,
            preemption_rate_per_hour,
            restart_hours=restart_hours,
        )
        result["preemption_rate_per_hour"] = float(preemption_rate_per_hour)
        result["time_multiplier"] = multiplier
        result["spot_usd_per_useful_hour"] = spot_rate * multiplier
        result["spot_is_cheaper"] = spot_rate * multiplier < on_demand
    return result


def reserved_effective_usd_per_hour(
    upfront_usd: float, recurring_usd_per_hour: float, term_hours: float
) -> float:
    """Upfront payment amortised over the term plus the recurring hourly charge."""
    return _validate.non_negative("upfront_usd", upfront_usd) / _validate.positive(
        "term_hours", term_hours
    ) + _validate.non_negative("recurring_usd_per_hour", recurring_usd_per_hour)


def reserved_breakeven_utilization(
    reserved_effective_usd_per_hour: float, on_demand_usd_per_hour: float
) -> float:
    """Utilisation above which a commitment is cheaper: ``reserved / on_demand``.

    A value >= 1 means the commitment never pays (it costs at least on-demand at 100% use).
    """
    return _validate.positive(
        "reserved_effective_usd_per_hour", reserved_effective_usd_per_hour
    ) / _validate.positive("on_demand_usd_per_hour", on_demand_usd_per_hour)


def reserved(
    reserved_effective_usd_per_hour: float,
    on_demand_usd_per_hour: float,
    utilization: float | None = None,
) -> dict[str, float | bool | None]:
    """Reserved vs on-demand: the break-even utilisation; with a utilisation, the cost of
    each option per committed hour."""
    threshold = reserved_breakeven_utilization(
        reserved_effective_usd_per_hour, on_demand_usd_per_hour
    )
    result: dict[str, float | bool | None] = {
        "reserved_effective_usd_per_hour": float(reserved_effective_usd_per_hour),
        "on_demand_usd_per_hour": float(on_demand_usd_per_hour),
        "break_even_utilization": threshold,
        "utilization": None,
        "on_demand_usd_per_committed_hour": None,
        "reserved_is_cheaper": None,
    }
    if utilization is not None:
        used = _validate.fraction("utilization", utilization)
        result["utilization"] = used
        result["on_demand_usd_per_committed_hour"] = used * float(on_demand_usd_per_hour)
        result["reserved_is_cheaper"] = used > threshold
    return result
