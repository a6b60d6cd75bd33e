"""Alert rules as pure functions: evaluate a rule against current figures, and turn a
set of evaluations into state changes. No I/O, no clock (``now`` is an argument).

Every rule has a state, ``OK`` or ``ALARM``; a rule never seen before is ``OK``. An alert
fires on a change of state only, so re-evaluating unchanged figures fires nothing, and a
rule that goes back below its level fires one recovery (``OK``) event. An evaluation with
no figure to compare (``alarm is None``: no matching offer, no history a day back) leaves
the state as it was.

Workload budgets: a budget is a workload priced for its period, with one state (one
rule, ``budget:<name>``), in ALARM while the forecast or the actual spend reaches the
lowest of its thresholds (percentages of the budget, default 50/80/100; the message says
which are crossed). A usage workload (``gpus`` GPUs for ``hours_per_day`` hours a day)
is priced, with ``models.costs.run_cost_usd``::

    daily_usd    = gpus * rate_usd_per_gpu_hour * hours_per_day      (today's cheapest rate)
    forecast_usd = daily_usd * days_in_period        (calendar days of the month, or
                                                      end - start for a 'total' budget)

8 x A100 at 1.36 USD/GPU-hour, 6 h a day: 65.28 USD a day, 1,958.40 USD forecast for a
30-day month. The *actual* spend is what was used, not the forecast's share of the days
gone: with a usage file (``actual_from_usage``: GPU-hours per day priced at the cheapest
matching rate in force that day, from the price history; or a cost export's USD per day)
it is the usage of the period so far, and the forecast becomes that actual plus the
workload's remaining days at today's rate. Without a usage file there is no actual. A
training run (``models.training``: 6 * params * tokens FLOPs at ``mfu`` of the BF16 peak)
has a forecast.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from models.costs import run_cost_usd
from models.training import estimate_training

if TYPE_CHECKING:
    import polars as pl

OK = "OK"
ALARM = "ALARM"


@dataclass(frozen=True)
class Evaluation:
    """One rule checked now. ``alarm`` None: nothing to compare, state unchanged."""

    rule: str
    value: float | None
    threshold: float | None
    alarm: bool | None
    message: str

    @property
    def state(self) -> str | None:
        return None if self.alarm is None else ALARM if self.alarm else OK


@dataclass(frozen=True)
class Transition:
    """A change of state: what gets recorded in alert_events and delivered."""

    rule: str
    state: str
    value: float | None
    threshold: float | None
    message: str
    notify: bool = True


def transitions(previous: Mapping[str, str], evaluations: Iterable[Evaluation]) -> list[Transition]:
    """The evaluations whose state differs from the rule's previous state (default OK),
    plus a silent closing event for every rule still in ALARM that was not evaluated at
    all (removed from the configuration), so it stops showing as active."""
    out: list[Transition] = []
    seen: set[str] = set()
    for ev in evaluations:
        seen.add(ev.rule)
        if ev.state is not None and ev.state != previous.get(ev.rule, OK):
            prefix = "" if ev.state == ALARM else "Back to OK: "
            out.append(Transition(ev.rule, ev.state, ev.value, ev.threshold, prefix + ev.message))
    for rule, state in sorted(previous.items()):
        if rule not in seen and state == ALARM:
            out.append(
                Transition(
                    rule, OK, None, None, f"{rule}: no longer configured; closed", notify=False
                )
            )
    return out


# -- figures -----------------------------------------------------------------------------


def cheapest(
    rates: pl.DataFrame,
    gpu: str,
    memory_gib: float | None,
    pricing_model: str,
    providers: Iterable[str] | None = None,
) -> dict | None:
    """The cheapest row of ``alert_rates_current`` matching a GPU (any memory size when
    ``memory_gib`` is None), a pricing model and optionally a set of providers: the first
    in the view's ``cheapest_order`` (the one cheapest-first rule, int_offers_ranked)."""
    import polars as pl

    cond = (pl.col("gpu_name") == gpu) & (pl.col("pricing_model") == pricing_model)
    if memory_gib is not None:
        cond &= pl.col("gpu_memory_gib") == memory_gib
    if providers is not None:
        cond &= pl.col("provider").is_in(list(providers))
    rows = rates.filter(cond).sort("cheapest_order")
    return rows.row(0, named=True) if rows.height else None


def gpu_label(gpu: str, memory_gib: float | None) -> str:
    return f"{gpu} {memory_gib:g} GiB" if memory_gib is not None else gpu


def where(offer: Mapping) -> str:
    return f"{offer['provider']} {offer['region']} {offer['instance_type']}"


def month_window(now: datetime) -> tuple[float, float]:
    """(days in the calendar month of ``now``, days elapsed since the 1st at 00:00)."""
    days = calendar.monthrange(now.year, now.month)[1]
    start = datetime(now.year, now.month, 1)
    return float(days), (now - start) / timedelta(days=1)


def total_window(start: date, end: date, now: datetime) -> tuple[float, float]:
    """(days from start to end, days elapsed since start, clamped to the window)."""
    days = float((end - start).days)
    elapsed = (now - datetime(start.year, start.month, start.day)) / timedelta(days=1)
    return days, min(max(elapsed, 0.0), days)


# -- rules -------------------------------------------------------------------------------


def price_level(
    rule: str, label: str, offer: Mapping | None, level: float, *, above: bool
) -> Evaluation:
    """Cheapest rate above (or below) a level: ALARM while it is."""
    word = "above" if above else "below"
    if offer is None:
        return Evaluation(rule, None, level, None, f"{rule}: no current {label} offer")
    value = float(offer["price_usd_per_gpu_hour"])
    alarm = value > level if above else value < level
    verb = "is" if alarm else "is not"
    return Evaluation(
        rule,
        value,
        level,
        alarm,
        f"{rule}: cheapest {label} rate {value:.4f} USD/GPU-hour {verb} {word} "
        f"{level:.4f} ({where(offer)})",
    )


def pct_change(before: float, now: float) -> float:
    """Percentage change from ``before`` to ``now``."""
    if before <= 0:
        raise ValueError(f"before must be > 0, got {before!r}")
    return (now - before) / before * 100


def day_over_day(
    rule: str, label: str, price_day_ago: float | None, price_now: float | None, max_pct: float
) -> Evaluation:
    """The cheapest rate moved more than ``max_pct`` percent (either way) in 24 hours."""
    if price_now is None or price_day_ago is None:
        return Evaluation(rule, None, max_pct, None, f"{rule}: no {label} price a day back yet")
    move = pct_change(price_day_ago, price_now)
    alarm = abs(move) > max_pct
    return Evaluation(
        rule,
        move,
        max_pct,
        alarm,
        f"{rule}: cheapest {label} rate moved {move:+.1f}% in 24 h "
        f"({price_day_ago:.4f} -> {price_now:.4f} USD/GPU-hour; limit +/-{max_pct:g}%)",
    )


def spot_ratio(
    rule: str, label: str, spot: Mapping | None, on_demand: Mapping | None, max_pct: float
) -> Evaluation:
    """Cheapest spot rate above ``max_pct`` percent of the cheapest on-demand rate."""
    if spot is None or on_demand is None:
        return Evaluation(rule, None, max_pct, None, f"{rule}: no {label} spot and on-demand pair")
    pct = spot["price_usd_per_gpu_hour"] / on_demand["price_usd_per_gpu_hour"] * 100
    alarm = pct > max_pct
    return Evaluation(
        rule,
        pct,
        max_pct,
        alarm,
        f"{rule}: cheapest {label} spot rate {spot['price_usd_per_gpu_hour']:.4f} is "
        f"{pct:.1f}% of on-demand {on_demand['price_usd_per_gpu_hour']:.4f} USD/GPU-hour "
        f"(limit {max_pct:g}%)",
    )


def stale_source(
    provider: str,
    last_ok_at: datetime | None,
    now: datetime,
    max_hours: float,
    *,
    dated_by: str = "last successful load",
) -> Evaluation:
    """A provider whose prices are older than ``max_hours`` (or that has been tried and
    never loaded). ``last_ok_at`` is the newest successful load, or for a provider known
    only from curated sheets the newest date its sheet rows state (``dated_by`` says
    which, in the message)."""
    rule = f"stale_source:{provider}"
    if last_ok_at is None:
        return Evaluation(rule, None, max_hours, True, f"{rule}: {provider} has never loaded")
    age = (now - last_ok_at) / timedelta(hours=1)
    alarm = age > max_hours
    return Evaluation(
        rule,
        age,
        max_hours,
        alarm,
        f"{rule}: {provider} data is {age:.1f} h old "
        f"({dated_by} {last_ok_at:%Y-%m-%d %H:%M} UTC; limit {max_hours:g} h)",
    )


def row_drop(connector: str, open_offers: int, dropped: int, max_pct: float) -> Evaluation:
    """The connector's latest refresh dropped more than ``max_pct`` percent of its offers."""
    rule = f"row_drop:{connector}"
    before = open_offers + dropped
    if before == 0:
        return Evaluation(rule, None, max_pct, None, f"{rule}: no offers yet")
    pct = dropped / before * 100
    return Evaluation(
        rule,
        pct,
        max_pct,
        pct > max_pct,
        f"{rule}: the latest {connector} refresh dropped {dropped} of {before} offers "
        f"({pct:.1f}%; limit {max_pct:g}%)",
    )


def budget_state(
    name: str,
    *,
    forecast_usd: float | None,
    actual_usd: float | None,
    budget_usd: float,
    thresholds_pct: Iterable[float],
    detail: str,
) -> Evaluation:
    """One evaluation per budget, ``budget:<name>``: ALARM while the forecast or the
    actual reaches the lowest threshold; the value is the larger of the two."""
    rule = f"budget:{name}"
    thresholds = sorted(thresholds_pct)
    level = budget_usd * thresholds[0] / 100
    known = {k: v for k, v in (("forecast", forecast_usd), ("actual", actual_usd)) if v is not None}
    if not known:
        return Evaluation(rule, None, level, None, f"{rule}: {detail}")
    parts = [f"{k} {v:,.2f} USD ({v / budget_usd * 100:.0f}%)" for k, v in known.items()]
    value = max(known.values())
    crossed = [f"{pct:g}%" for pct in thresholds if value >= budget_usd * pct / 100]
    state = f"crossed {', '.join(crossed)}" if crossed else f"below {thresholds[0]:g}%"
    return Evaluation(
        rule,
        value,
        level,
        value >= level,
        f"{rule}: {' and '.join(parts)} of the {budget_usd:,.2f} USD budget, {state}; "
        + (detail if "actual" in known else detail + "; no usage file: forecast only"),
    )


def daily_rates(history: pl.DataFrame, days: pl.Series) -> pl.DataFrame:
    """The cheapest ``price_usd_per_gpu_hour`` in force at noon of each day (``date``,
    ``rate_usd_per_gpu_hour``) among the price periods of ``history`` (int_prices_usable rows
    of the matching offers: valid_from, valid_to null = still in force). A day before the
    history begins takes the cheapest rate the history opens with (``rate_source`` says so)."""
    import polars as pl

    noon = pl.col("date").cast(pl.Datetime("us")) + pl.duration(hours=12)
    covering = (
        pl.DataFrame({"date": days.unique().sort()})
        .join(history.select("valid_from", "valid_to", "price_usd_per_gpu_hour"), how="cross")
        .filter(
            (pl.col("valid_from") <= noon)
            & (pl.col("valid_to").is_null() | (pl.col("valid_to") > noon))
        )
        .group_by("date")
        .agg(pl.col("price_usd_per_gpu_hour").min().alias("rate_usd_per_gpu_hour"))
    )
    # before the history: the cheapest rate of the periods that opened it
    first = history.filter(pl.col("valid_from") == pl.col("valid_from").min())
    earliest = first["price_usd_per_gpu_hour"].min() if first.height else None
    return (
        pl.DataFrame({"date": days.unique().sort()})
        .join(covering, on="date", how="left")
        .with_columns(
            pl.when(pl.col("rate_usd_per_gpu_hour").is_null())
            .then(pl.lit("first rate known (before the price history)"))
            .otherwise(pl.lit("price history"))
            .alias("rate_source"),
            pl.col("rate_usd_per_gpu_hour").fill_null(earliest),
        )
    )


def actual_from_usage(
    usage: pl.DataFrame, history: pl.DataFrame, *, gpus: int, start: date, end: date
) -> dict[str, float | int]:
    """Actual spend of a period [start, end) from a usage file: ``date`` with
    ``cost_usd`` (a cost export: summed), or ``gpu_hours`` (or ``hours`` of the budget's
    ``gpus`` GPUs) priced at the rate in force each day (``daily_rates``)."""
    import polars as pl

    rows = usage.filter((pl.col("date") >= start) & (pl.col("date") < end))
    if "cost_usd" in rows.columns:
        return {"actual_usd": float(rows["cost_usd"].sum()), "days": rows.height, "gpu_hours": None}
    gpu_hours = pl.col("gpu_hours") if "gpu_hours" in rows.columns else pl.col("hours") * gpus
    rows = rows.with_columns(gpu_hours.alias("_gpu_hours"))
    if rows.is_empty():
        return {"actual_usd": 0.0, "days": 0, "gpu_hours": 0.0}
    priced = rows.join(daily_rates(history, rows["date"]), on="date", how="left")
    if priced["rate_usd_per_gpu_hour"].null_count():
        raise ValueError("no price history for the budget's GPU to price its usage file")
    return {
        "actual_usd": float((priced["_gpu_hours"] * priced["rate_usd_per_gpu_hour"]).sum()),
        "days": rows.height,
        "gpu_hours": float(priced["_gpu_hours"].sum()),
    }


def usage_budget(
    name: str,
    *,
    gpus: int,
    hours_per_day: float,
    offer: Mapping | None,
    label: str,
    budget_usd: float,
    thresholds_pct: Iterable[float],
    window: tuple[float, float],
    period: str,
    actual: Mapping | None = None,
) -> list[Evaluation]:
    """The state of a usage workload's budget over its period ``window`` (days in the
    period, days elapsed): the forecast, and the actual spend where ``actual`` (from
    ``actual_from_usage``) is given."""
    if offer is None:
        forecast, detail = None, f"no current {label} offer to price it"
    else:
        rate = float(offer["price_usd_per_gpu_hour"])
        days, elapsed = window
        if actual is None:
            forecast = run_cost_usd(gpus, rate, hours_per_day * days)
            how = f"forecast {gpus} x {label}, {hours_per_day:g} h/day for {days:g} days"
        else:
            forecast = actual["actual_usd"] + run_cost_usd(
                gpus, rate, hours_per_day * max(days - elapsed, 0.0)
            )
            how = (
                f"actual from the usage file ({actual['days']} days, at the rates in force "
                f"each day), forecast adds {gpus} x {label}, {hours_per_day:g} h/day for the "
                f"{max(days - elapsed, 0.0):.1f} days left"
            )
        detail = f"{how} ({period}) at {rate:.4f} USD/GPU-hour today ({where(offer)})"
    return [
        budget_state(
            name,
            forecast_usd=forecast,
            actual_usd=None if actual is None else actual["actual_usd"],
            budget_usd=budget_usd,
            thresholds_pct=list(thresholds_pct),
            detail=detail,
        )
    ]


def training_budget(
    name: str,
    *,
    params: float,
    tokens: float,
    mfu: float,
    gpus: int,
    peak_tflops: float | None,
    offer: Mapping | None,
    label: str,
    budget_usd: float,
    thresholds_pct: Iterable[float],
) -> list[Evaluation]:
    """Forecast of a training run (6ND at ``mfu`` of the BF16 peak) at the cheapest rate."""
    if offer is None or peak_tflops is None:
        why = "no BF16 peak" if offer is not None else "no current offer"
        forecast, detail = None, f"{why} for {label}"
    else:
        rate = float(offer["price_usd_per_gpu_hour"])
        est = estimate_training(params, tokens, peak_tflops, mfu, gpus, rate)
        forecast = est["cost_usd"]
        detail = (
            f"forecast {params:.3g} params x {tokens:.3g} tokens at MFU {mfu:g} on {gpus} x "
            f"{label}: {est['gpu_hours']:,.0f} GPU-hours, {est['wall_clock_days']:.1f} days, "
            f"at {rate:.4f} USD/GPU-hour ({where(offer)})"
        )
    return [
        budget_state(
            name,
            forecast_usd=forecast,
            actual_usd=None,
            budget_usd=budget_usd,
            thresholds_pct=thresholds_pct,
            detail=detail,
        )
    ]


def plan_budget(
    name: str,
    *,
    plan: Mapping,
    current_rate: float | None,
    budget_usd: float,
    thresholds_pct: Iterable[float],
) -> list[Evaluation]:
    """The state of a budget tied to a saved plan (services.budget_plans.read_plan): the
    forecast is the plan's cost for its period (a training run's `cost_usd`, a serving
    plan's `monthly_cost_usd`); the detail says whether the plan's offer still has the rate
    it was planned at (`current_rate`: the cheapest current rate of its GPU and pricing
    model at its provider and region, None when none is on offer there)."""
    planned = float(plan["rate_usd_per_gpu_hour"])
    if current_rate is None:
        drift = (
            f"no {plan['gpu_name']} {plan['pricing_model']} offer is current at "
            f"{plan['provider']} {plan['region']}: re-plan to price it again"
        )
    elif abs(current_rate - planned) <= 1e-9 * max(planned, 1.0):
        drift = f"the rate there is unchanged ({planned:.4f} USD/GPU-hour)"
    else:
        drift = (
            f"the rate there moved from {planned:.4f} to {current_rate:.4f} USD/GPU-hour "
            f"({(current_rate / planned - 1) * 100 if planned else float('inf'):+.1f}%) since it "
            "was planned: re-plan to price it again"
        )
    per = "the whole run" if plan["period"] == "total" else "a month"
    detail = (
        f"forecast = the cost of the plan in {plan['file']} for {per} ({plan['summary']}); "
        + drift
    )
    return [
        budget_state(
            name,
            forecast_usd=float(plan["cost_usd"]),
            actual_usd=None,
            budget_usd=budget_usd,
            thresholds_pct=thresholds_pct,
            detail=detail,
        )
    ]
