"""`alerts check`: evaluate budgets and rate rules against the current warehouse, record
state changes in `alert_events`, and deliver them through Apprise.

The whole check runs inside `warehouse.db.building()`: the published file is never written
in place, readers keep a consistent view, and a check that dies midway publishes nothing.
A refresh runs it inside its own build, on the marts it has just built, before it publishes
(`check_built`); `alerts check` opens a build of its own. Order inside the build:

1. read the figures from the `sql/alert_inputs/` views, evaluate every rule
   (models.alert_rules);
2. record each change of state in `alert_events` (delivered = false);
3. deliver every undelivered event, oldest first: the new ones and those a previous run
   failed to deliver. `pending_targets` holds, per target name, the error of each target
   that has not accepted the event yet (a JSON object); only those targets are retried,
   so a target that took the event does not get it twice. An event is `delivered` once
   every target took it. Delivery is at least once: a crash after sending and before
   publishing sends again next run.

Secrets: a target's Apprise URL is read from its environment variable or Prefect Secret
block at delivery time and kept only in memory. Apprise's own log lines stay inside the
send (its DEBUG lines print URLs): captured at WARNING and scrubbed of every part of the
URL before they become a delivery error. The URL is also registered with the process-wide
redaction (common.redact), so no log line, output or stored error shows it.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import polars as pl

from common.errors import InvalidInput
from common.redact import redact, register
from connectors.kit.page import utc_now
from models import alert_rules as rules
from services.config import Config, Target
from warehouse import db, queries, sql_runner

log = logging.getLogger(__name__)

APP_ID = "gpu-pricing"


@dataclass
class Delivery:
    rule: str
    state: str
    fired_at: datetime
    target: str
    delivered: bool
    error: str | None = None


@dataclass
class CheckResult:
    warehouse: str
    checked_at: datetime
    evaluations: list[rules.Evaluation]
    fired: list[rules.Transition]
    deliveries: list[Delivery] = field(default_factory=list)

    @property
    def failed_deliveries(self) -> list[Delivery]:
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
    """Every configured rule, budget and health check, evaluated on the current figures."""
    rates = _frame(con, "alert_rates_current")
    return _rate_rules(con, cfg, rates) + _budgets(con, cfg, rates, now) + _health(con, cfg, now)


def _rate_rules(con, cfg: Config, rates: pl.DataFrame) -> list[rules.Evaluation]:
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


def _budgets(con, cfg: Config, rates: pl.DataFrame, now: datetime) -> list[rules.Evaluation]:
    specs = _frame(con, "dim_gpus")
    out: list[rules.Evaluation] = []
    for b in cfg.budgets:
        label = f"{rules.gpu_label(b.gpu, b.memory_gib)} {b.pricing_model}"
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
                history = _frame(con, "fct_gpu_prices").filter(
                    (pl.col("gpu_name") == b.gpu)
                    & (pl.col("pricing_model") == b.pricing_model)
                    & pl.col("is_verified")
                    & pl.col("host_included").fill_null(True)
                    & pl.col("price_usd_per_gpu_hour").is_not_null()
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


def read_usage(path) -> pl.DataFrame:
    """A budget's usage file: `date` and one of `gpu_hours`, `hours`, `cost_usd` (numbers
    >= 0). Anything else is one ValueError naming the file and the problem."""
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
    out: list[rules.Evaluation] = []
    if cfg.stale_after_hours > 0 or cfg.sheet_stale_after_days > 0:
        fresh = _frame(con, "alert_source_freshness").sort("provider")
        # cfg.providers names connectors: `sheets` watches every provider it publishes
        if cfg.providers:
            fresh = fresh.filter(pl.col("connector").is_in(list(cfg.providers)))
        else:
            # nothing configured: what this warehouse loads itself, not the dates curated
            # sheets state (a fresh demo's sheet rows are dated months back: no alarm on a
            # user's first run); configure [providers.sheets] to watch them
            fresh = fresh.filter(
                pl.col("fresh_as_of").is_not_null() & pl.col("source_as_of").is_null()
            )
        for row in fresh.iter_rows(named=True):
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
        drops = _frame(con, "alert_row_drops").sort("connector")
        if cfg.providers:
            drops = drops.filter(pl.col("connector").is_in(list(cfg.providers)))
        for row in drops.iter_rows(named=True):
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
    moves = moves.filter((pl.col("gpu_name") == gpu) & (pl.col("pricing_model") == pricing_model))
    if memory_gib is not None:
        moves = moves.filter(pl.col("gpu_memory_gib") == memory_gib)
    if providers is not None:
        moves = moves.filter(pl.col("provider").is_in(list(providers)))
    return moves["price_day_ago"].min(), moves["price_now"].min()


# -- state --------------------------------------------------------------------------------


def _previous_states(con) -> dict[str, str]:
    states = _frame(con, "alert_rule_states")
    return dict(zip(states["rule"], states["state"], strict=True))


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


def _pending(con) -> list[dict[str, Any]]:
    """Undelivered events that still have targets to try, oldest first."""
    rows = queries.read(con, "alert_events_pending").to_dicts()
    out = []
    for row in rows:
        try:
            pending = json.loads(row["pending_targets"])
        except json.JSONDecodeError:
            pending = None
        if isinstance(pending, dict) and pending:
            out.append({**row, "pending": pending})
    return out


# -- delivery -----------------------------------------------------------------------------


class DeliveryError(Exception):
    """A target could not take a notification; the message never holds the URL."""


def resolve_url(target: Target) -> str:
    """The target's Apprise URL from its environment variable or Prefect Secret block."""
    if target.url_env:
        url = os.environ.get(target.url_env, "").strip()
        if not url:
            raise DeliveryError(f"environment variable {target.url_env} is not set")
        register(url)  # masked in every log line, error and output from now on
        return url
    try:
        from prefect.blocks.system import Secret

        url = str(Secret.load(target.secret_block).get()).strip()
    except Exception as exc:
        raise DeliveryError(
            f"Prefect Secret block {target.secret_block!r} could not be read ({type(exc).__name__})"
        ) from None
    if not url:
        raise DeliveryError(f"Prefect Secret block {target.secret_block!r} is empty")
    register(url)
    return url


def _secret_parts(url: str) -> list[str]:
    """Every piece of a URL that could be a secret (Apprise puts tokens in the host, the
    path, the user info or the query), longest first, for scrubbing."""
    parts = {url}
    try:
        split = urlsplit(url)
        pieces = [split.netloc, split.username, split.password, split.hostname, split.query]
        pieces += split.path.split("/") + re.split(r"[&=]", split.query)
    except ValueError:
        pieces = re.split(r"[/:@?&=]", url)
    for p in pieces:
        if p and len(p) >= 4:
            parts.update({p, unquote(p)})
    return sorted(parts, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """What Apprise said about a send, without any part of the target's URL, and through
    the process-wide redaction (every other known credential)."""
    for part in _secret_parts(url):
        text = text.replace(part, "***")
    return redact(text)


# Loggers that print a target's URL (Apprise at DEBUG, urllib3 for every request it makes;
# some Apprise services keep a token in the host, which its warnings name).
_URL_LOGGERS = ("apprise", "urllib3", "requests")


@contextmanager
def _url_logs_kept_in() -> Iterator[None]:
    """While sending, those loggers stop at WARNING and keep their records to themselves:
    what Apprise said reaches our log only scrubbed, through DeliveryError."""
    loggers = [logging.getLogger(name) for name in _URL_LOGGERS]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.WARNING)
        lg.propagate = False
    try:
        yield
    finally:
        for lg, (level, propagate) in zip(loggers, saved, strict=True):
            lg.setLevel(level)
            lg.propagate = propagate


def send(target: Target, title: str, body: str, state: str) -> None:
    """One notification to one target; raises DeliveryError with a scrubbed reason."""
    import apprise

    url = resolve_url(target)
    notifier = apprise.Apprise(asset=apprise.AppriseAsset(app_id=APP_ID))
    with _url_logs_kept_in(), apprise.LogCapture(level=logging.WARNING) as captured:
        if not notifier.add(url):
            raise DeliveryError(f"its URL ({target.source}) is not a valid Apprise URL")
        kind = apprise.NotifyType.FAILURE if state == rules.ALARM else apprise.NotifyType.SUCCESS
        ok = notifier.notify(body=redact(body), title=redact(title), notify_type=kind)
        detail = captured.getvalue()
    if not ok:
        lines = [ln.split(" - ", 2)[-1] for ln in detail.strip().splitlines() if ln.strip()]
        reason = scrub("; ".join(lines), url) or "Apprise reported a failure"
        raise DeliveryError(reason[:500])


def title_for(rule: str, state: str) -> str:
    return f"[gpu-pricing] {state} {rule}"


def body_for(event: dict[str, Any], now: datetime) -> str:
    # an event from an earlier run is a retry: say when the state really changed
    late = event["fired_at"] < now
    suffix = f"\n(state changed at {event['fired_at']:%Y-%m-%d %H:%M:%S} UTC)" if late else ""
    return event["message"] + suffix


def deliver_pending(con, targets: tuple[Target, ...], now: datetime) -> list[Delivery]:
    by_name = {t.name: t for t in targets}
    out: list[Delivery] = []
    for event in _pending(con):
        remaining: dict[str, str] = {}
        for name, previous_error in event["pending"].items():
            target = by_name.get(name)
            if target is None:
                log.warning(
                    "alert %s: target %r is no longer configured; not retried (last error: %s)",
                    event["rule"],
                    name,
                    previous_error,
                )
                continue
            try:
                send(
                    target,
                    title_for(event["rule"], event["state"]),
                    body_for(event, now),
                    event["state"],
                )
            except Exception as exc:  # a delivery failure is recorded, never fatal
                error = redact(str(exc) if isinstance(exc, DeliveryError) else type(exc).__name__)
                remaining[name] = error
                log.warning("alert %s: delivery to %s failed: %s", event["rule"], name, error)
                out.append(
                    Delivery(event["rule"], event["state"], event["fired_at"], name, False, error)
                )
            else:
                out.append(Delivery(event["rule"], event["state"], event["fired_at"], name, True))
        delivered = not remaining and any(n in by_name for n in event["pending"])
        db.run(
            con,
            queries.sql("alert_event_delivered"),
            {
                "delivered": delivered,
                "pending_targets": json.dumps(remaining, sort_keys=True) if remaining else None,
                "rule": event["rule"],
                "fired_at": event["fired_at"],
            },
        )
    return out


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
        sql_runner.materialise(con)
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
    deliveries = deliver_pending(con, cfg.notify, now) if deliver else []
    return CheckResult(str(path), now, evaluations, fired, deliveries)
