"""The alert evaluation: budgets, rate rules and source health read from the current
warehouse and decided (the rules themselves are models.alert_rules), the changes of state
recorded in `alert_events`, and those changes handed to `services.notify` for delivery.
The command line (`alerts check`), the Python API (`gpu_pricing.alerts_check`) and a
refresh's alert step (flows) all run this module: one home for what an alert decides.

The whole check runs inside `warehouse.db.building()`: the published file is never written
in place, readers keep a consistent view, and a check that dies midway publishes nothing.
A refresh runs it inside its own build, on the marts it has just built, before it publishes
(`check_built`); `alerts check` opens a build of its own. Order inside the build:

1. read the figures from the `sql/alert_inputs/` views, evaluate every rule
   (models.alert_rules);
2. record each change of state in `alert_events` (delivered = false);
3. deliver every undelivered event, oldest first (`services.notify.deliver_pending`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.errors import InvalidInput
from connectors.kit.page import utc_now
from models import alert_rules as rules
from services import notify
from warehouse import db, materialise, queries, sql_runner

if TYPE_CHECKING:
    import polars as pl

if TYPE_CHECKING:  # annotations only: importing the API does not load the config models
    from services.config import Config


@dataclass
class CheckResult:
    warehouse: str
    checked_at: datetime
    evaluations: list[rules.Evaluation]
    fired: list[rules.Transition]
    deliveries: list[notify.Delivery] = field(default_factory=list)

    @property
    def failed_deliveries(self) -> list[notify.Delivery]:
        return [d for d in self.deliveries if not d.delivered]

    def to_dict(self) -> dict[str, Any]:
        return {
            "warehouse": self.warehouse,
            "checked_at": self.checked_at,
            "rules": [{**asdict(e), "state": e.state} for e in self.evaluations],
            "fired": [asdict(t) for t in self.fired],
            "deliveries": [asdict(d) for d in self.deliveries],
        }


# -- evaluation ---------------------------------------------------------------------------


def _frame(con, view: str) -> pl.DataFrame:
    return db.relation_frame(con, view)


def evaluate(con, cfg: Config, now: datetime) -> list[rules.Evaluation]:
    """Every configured rule, budget and health check, evaluated on the current figures.
    The current rates are read only when a rule or budget reads them: at a million offers
    they cost more than the rest of the check (the view stack's whole computation, when
    the build holds no view: an unchanged refresh)."""
    rates = _frame(con, "alert_rates_current") if cfg.rules or cfg.budgets else None
    return _rate_rules(con, cfg, rates) + _budgets(con, cfg, rates, now) + _health(con, cfg, now)


def _rate_rules(con, cfg: Config, rates: pl.DataFrame | None) -> list[rules.Evaluation]:
    moves = (
        _frame(con, "alert_price_moves")
        if any(r.kind == "day_over_day" for r in cfg.rules)
        else None
    )
    out: list[rules.Evaluation] = []
    for r in cfg.rules:
        label = rules.gpu_label(r.gpu, r.memory_gib)
        rule = f"rate:{r.name}"
        if r.kind in ("price_above", "price_below"):
            offer = rules.cheapest(rates, r.gpu, r.memory_gib, r.pricing_model, r.providers)
            out.append(
                rules.price_level(
                    rule,
                    f"{label} {r.pricing_model}",
                    offer,
                    r.level,
                    above=r.kind == "price_above",
                )
            )
        elif r.kind == "spot_ratio":
            spot = rules.cheapest(rates, r.gpu, r.memory_gib, "spot", r.providers)
            on_demand = rules.cheapest(rates, r.gpu, r.memory_gib, "on_demand", r.providers)
            out.append(rules.spot_ratio(rule, label, spot, on_demand, r.level))
        else:  # day_over_day
            before, now_price = _price_move(
                moves, r.gpu, r.memory_gib, r.pricing_model, r.providers
            )
            out.append(
                rules.day_over_day(rule, f"{label} {r.pricing_model}", before, now_price, r.level)
            )
    return out


def _budgets(
    con, cfg: Config, rates: pl.DataFrame | None, now: datetime
) -> list[rules.Evaluation]:
    if not cfg.budgets:
        return []
    import polars as pl

    specs = _frame(con, "dim_gpus")
    out: list[rules.Evaluation] = []
    for b in cfg.budgets:
        label = f"{rules.gpu_label(b.gpu, b.memory_gib)} {b.pricing_model}"
        if b.plan is not None:
            out += rules.plan_budget(
                b.name,
                plan=b.plan,
                current_rate=_plan_rate(rates, b.plan),
                budget_usd=b.budget_usd,
                thresholds_pct=b.thresholds_pct,
            )
            continue
        offer = rules.cheapest(rates, b.gpu, b.memory_gib, b.pricing_model, b.providers)
        if b.is_training:
            peak = None
            if offer is not None:
                match = specs.filter(
                    (pl.col("gpu_name") == b.gpu)
                    & (pl.col("gpu_memory_gib") == offer["gpu_memory_gib"])
                )
                peak = match["bf16_tflops"][0] if match.height else None
            out += rules.training_budget(
                b.name,
                params=b.params,
                tokens=b.tokens,
                mfu=b.mfu,
                gpus=b.gpus,
                peak_tflops=peak,
                offer=offer,
                label=label,
                budget_usd=b.budget_usd,
                thresholds_pct=b.thresholds_pct,
            )
        else:
            if b.period == "month":
                window, period = rules.month_window(now), f"{now:%Y-%m}"
                first = date(now.year, now.month, 1)
                span = (first, date(now.year + now.month // 12, now.month % 12 + 1, 1))
            else:
                window, period = rules.total_window(b.start, b.end, now), f"{b.start}..{b.end}"
                span = (b.start, b.end)
            actual = None
            if b.usage_file is not None:
                # the usable price periods (verified whole machines, int_prices_usable)
                history = _frame(con, "int_prices_usable").filter(
                    (pl.col("gpu_name") == b.gpu) & (pl.col("pricing_model") == b.pricing_model)
                )
                if b.memory_gib is not None:
                    history = history.filter(pl.col("gpu_memory_gib") == b.memory_gib)
                if b.providers is not None:
                    history = history.filter(pl.col("provider").is_in(list(b.providers)))
                actual = rules.actual_from_usage(
                    read_usage(b.usage_file), history, gpus=b.gpus, start=span[0], end=span[1]
                )
            out += rules.usage_budget(
                b.name,
                gpus=b.gpus,
                hours_per_day=b.hours_per_day,
                offer=offer,
                label=label,
                budget_usd=b.budget_usd,
                thresholds_pct=b.thresholds_pct,
                window=window,
                period=period,
                actual=actual,
            )
    return out


def _plan_rate(rates: pl.DataFrame, plan: dict[str, Any]) -> float | None:
    """The cheapest current rate of a plan's GPU (name and memory) and pricing model at its
    provider and region (alert_rates_current), None when none is on offer there."""
    import polars as pl

    match = rates.filter(
        (pl.col("provider") == plan["provider"])
        & (pl.col("region") == plan["region"])
        & (pl.col("gpu_name") == plan["gpu_name"])
        & (pl.col("gpu_memory_gib") == plan["gpu_memory_gib"])
        & (pl.col("pricing_model") == plan["pricing_model"])
    )
    return None if match.is_empty() else float(match["price_usd_per_gpu_hour"].min())


def read_usage(path) -> pl.DataFrame:
    """A budget's usage file: `date` and one of `gpu_hours`, `hours`, `cost_usd` (numbers
    >= 0). Anything else is one ValueError naming the file and the problem."""
    import polars as pl

    try:
        raw = pl.read_csv(path, infer_schema=False)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ValueError(f"usage file {path}: cannot be read ({exc})") from None
    measures = [c for c in ("gpu_hours", "hours", "cost_usd") if c in raw.columns]
    if "date" not in raw.columns or len(measures) != 1:
        raise ValueError(
            f"usage file {path}: expected columns date and one of gpu_hours, hours, cost_usd; "
            f"got {raw.columns}"
        )
    measure = measures[0]
    frame = raw.select(
        pl.col("date").str.strip_chars().str.to_date("%Y-%m-%d", strict=False),
        pl.col(measure).str.strip_chars().cast(pl.Float64, strict=False),
    )
    bad = frame.with_row_index().filter(
        pl.col("date").is_null() | pl.col(measure).is_null() | (pl.col(measure) < 0)
    )
    if bad.height:
        row = raw.row(bad["index"][0], named=True)
        raise ValueError(
            f"usage file {path}: line {bad['index'][0] + 2}: expected a YYYY-MM-DD date and "
            f"a number >= 0, got {row}"
        )
    return frame.group_by("date").agg(pl.col(measure).sum()).sort("date")


def _health(con, cfg: Config, now: datetime) -> list[rules.Evaluation]:
    """The staleness and row-drop checks: a row per provider or connector, read with DuckDB
    (an unchanged refresh checks them without loading a frame library)."""
    out: list[rules.Evaluation] = []
    # cfg.providers names connectors: `sheets` watches every provider it publishes
    watched = {"watched": list(cfg.providers) if cfg.providers else None}
    if cfg.stale_after_hours > 0 or cfg.sheet_stale_after_days > 0:
        # nothing configured: what this warehouse loads itself, not the dates curated
        # sheets state (a fresh demo's sheet rows are dated months back: no alarm on a
        # user's first run); configure [providers.sheets] to watch them
        for row in queries.read_rows(con, "alert_stale_sources", watched).to_dicts():
            sheet = row["source_as_of"] is not None
            limit = cfg.sheet_stale_after_days * 24 if sheet else cfg.stale_after_hours
            if limit <= 0:
                continue
            out.append(
                rules.stale_source(
                    row["provider"],
                    row["fresh_as_of"],
                    now,
                    limit,
                    dated_by="newest price dated" if sheet else "last successful load",
                )
            )
    if cfg.row_drop_pct > 0:
        for row in queries.read_rows(con, "alert_row_drops_watched", watched).to_dicts():
            out.append(
                rules.row_drop(
                    row["connector"], row["open_offers"], row["dropped_offers"], cfg.row_drop_pct
                )
            )
    return out


def _price_move(
    moves: pl.DataFrame, gpu, memory_gib, pricing_model, providers
) -> tuple[float | None, float | None]:
    """Cheapest a day ago and now across the matching providers (min of per-provider mins)."""
    import polars as pl

    moves = moves.filter((pl.col("gpu_name") == gpu) & (pl.col("pricing_model") == pricing_model))
    if memory_gib is not None:
        moves = moves.filter(pl.col("gpu_memory_gib") == memory_gib)
    if providers is not None:
        moves = moves.filter(pl.col("provider").is_in(list(providers)))
    return moves["price_day_ago"].min(), moves["price_now"].min()


# -- state --------------------------------------------------------------------------------


def _previous_states(con) -> dict[str, str]:
    return dict(queries.read_rows(con, "alert_states").rows)


def _record(con, fired: list[rules.Transition], now: datetime, targets: list[str]) -> None:
    """Insert the changes of state; each pending for every configured target."""
    for t in fired:
        pending = {name: "not yet attempted" for name in targets} if t.notify else {}
        db.run(
            con,
            queries.sql("alert_event_record"),
            {
                "rule": t.rule,
                "state": t.state,
                "value": t.value,
                "threshold": t.threshold,
                "message": t.message,
                "fired_at": now,
                "pending_targets": json.dumps(pending, sort_keys=True) if pending else None,
            },
        )


# -- composition --------------------------------------------------------------------------


def check(
    path: Path, cfg: Config, *, now: datetime | None = None, deliver: bool = True
) -> CheckResult:
    """Evaluate, record and deliver, in one atomic build of the warehouse."""
    path = Path(path)
    if not path.exists():
        raise InvalidInput(f"warehouse {path} does not exist: run `gpu-pricing refresh` first")
    with db.building(path) as con:
        # the alert views are plain views: (re)build them, with the seeds they read, so a
        # warehouse published by an older version gets them too
        sql_runner.load_seeds(con)
        sql_runner.build_views(con)
        materialise.materialise(con)
        return check_built(con, path, cfg, now=now, deliver=deliver)


def check_built(
    con, path: Path, cfg: Config, *, now: datetime | None = None, deliver: bool = True
) -> CheckResult:
    """Evaluate, record and deliver inside a build whose views and marts are current: a
    refresh runs it on the marts it has just built, before it publishes (no second build)."""
    now = now or utc_now()
    evaluations = evaluate(con, cfg, now)
    fired = rules.transitions(_previous_states(con), evaluations)
    _record(con, fired, now, [t.name for t in cfg.notify])
    deliveries = notify.deliver_pending(con, cfg.notify, now) if deliver else []
    return CheckResult(str(path), now, evaluations, fired, deliveries)
