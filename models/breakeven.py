"""Break-even points: buy vs rent, spot vs on-demand, reserved vs on-demand.

Buy vs rent (``onprem``). Over ``H`` GPU-hours of use, owning costs the purchase price
less what the GPU resells for, plus power for each hour used; renting costs the hourly
rate for each hour used::

    own(H)  = capex_usd - residual_value_usd + H * power_kw * usd_per_kwh
    rent(H) = H * rate_usd_per_gpu_hour
    break_even_gpu_hours = (capex_usd - residual_value_usd)
                           / (rate_usd_per_gpu_hour - power_kw * usd_per_kwh)
    break_even_months    = break_even_gpu_hours / (utilization * HOURS_PER_MONTH)

With HOURS_PER_MONTH = 720 (30 days): an H100 at 30,000 USD vs 4 USD/h breaks even after
30000 / 4 = 7,500 GPU-hours = 10.4 months at full use. Power is charged per hour used;
fold cooling in by passing ``power_kw * PUE``. Hosting, networking and staff are not in
the formula; they push the break-even later.

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
from models.conventions import HOURS_PER_MONTH, HOURS_PER_YEAR  # noqa: F401 (re-exported)


def onprem_breakeven_gpu_hours(
    capex_usd: float,
    rate_usd_per_gpu_hour: float,
    *,
    power_kw: float = 0.0,
    usd_per_kwh: float = 0.0,
    residual_value_usd: float = 0.0,
) -> float:
    """GPU-hours of use after which owning is cheaper than renting."""
    capex = _validate.positive("capex_usd", capex_usd)
    rate = _validate.positive("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour)
    residual = _validate.non_negative("residual_value_usd", residual_value_usd)
    if residual >= capex:
        raise ValueError(f"residual_value_usd must be < capex_usd ({capex!r}), got {residual!r}")
    power_usd_per_hour = _validate.non_negative("power_kw", power_kw) * _validate.non_negative(
        "usd_per_kwh", usd_per_kwh
    )
    saved_usd_per_hour = rate - power_usd_per_hour
    if saved_usd_per_hour <= 0:
        raise ValueError(
            f"rate_usd_per_gpu_hour must exceed the power cost per hour "
            f"({power_usd_per_hour!r} USD), got {rate!r}: owning never breaks even"
        )
    return (capex - residual) / saved_usd_per_hour


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
) -> dict[str, float]:
    """Buy vs rent for one GPU: every input, the break-even GPU-hours and months."""
    hours = onprem_breakeven_gpu_hours(
        capex_usd,
        rate_usd_per_gpu_hour,
        power_kw=power_kw,
        usd_per_kwh=usd_per_kwh,
        residual_value_usd=residual_value_usd,
    )
    power_usd_per_hour = float(power_kw) * float(usd_per_kwh)
    return {
        "capex_usd": float(capex_usd),
        "residual_value_usd": float(residual_value_usd),
        "rate_usd_per_gpu_hour": float(rate_usd_per_gpu_hour),
        "power_kw": float(power_kw),
        "usd_per_kwh": float(usd_per_kwh),
        "power_usd_per_hour": power_usd_per_hour,
        "saved_usd_per_hour": float(rate_usd_per_gpu_hour) - power_usd_per_hour,
        "utilization": float(utilization),
        "hours_per_month": float(hours_per_month),
        "break_even_gpu_hours": hours,
        "break_even_months": months_for_gpu_hours(hours, utilization, hours_per_month),
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
