"""Budgets and rate rules through the engine: `alerts_evaluate` answers what every budget
(usage, training or plan form), rate rule and health check says of the current figures
(read-only, nothing recorded or sent), `alerts_check` is `gpu-pricing alerts check --json`
as a dict (evaluate, record the changes of state in `alert_events`, deliver them;
`check` returns the same as a `CheckResult`, what the command prints), and
`read_active_alerts` is what the report shows.

The evaluation itself has one home below the flows, `services.alerts` (the rules are
models.alert_rules), because a refresh checks the alerts on the marts it has just built
before it publishes; the command line, this API and the refresh all run it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl

from common.errors import InvalidInput
from gpu_pricing.api.reads import connect
from models.alert_rules import Evaluation
from services import alerts
from warehouse import queries

if TYPE_CHECKING:  # the config file is read when an alert command runs, not on import
    from services.config import Config


def _config(config: str | Path | Config | None) -> Config:
    from services.config import Config, load

    return config if isinstance(config, Config) else load(config)


def alerts_evaluate(
    config: str | Path | Config | None = None,
    warehouse: str | Path | duckdb.DuckDBPyConnection | None = None,
    *,
    now: datetime | None = None,
) -> list[Evaluation]:
    """Every configured budget, rule and health check evaluated on the warehouse's current
    figures (gpu-pricing.toml as the command line finds it, or `config`: a path or a loaded
    `Config`); read-only: no state is recorded and nothing is delivered."""
    from connectors.kit.page import utc_now

    cfg = _config(config)
    target = warehouse if warehouse is not None else cfg.warehouse_path(None)
    with connect(target) as con:
        return alerts.evaluate(con, cfg, now or utc_now())


def check(
    config: str | Path | Config | None = None,
    warehouse: str | Path | None = None,
    *,
    now: datetime | None = None,
    deliver: bool = True,
) -> alerts.CheckResult:
    """What `gpu-pricing alerts check` does: evaluate, record each change of state in
    `alert_events` and deliver the undelivered events (none with `deliver=False`), in one
    atomic build of the warehouse. Raises `InvalidInput` when the warehouse does not exist."""
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        raise InvalidInput("alerts_check writes the warehouse: pass its path, not a connection")
    cfg = _config(config)
    return alerts.check(cfg.warehouse_path(warehouse), cfg, now=now, deliver=deliver)


def alerts_check(
    config: str | Path | Config | None = None,
    warehouse: str | Path | None = None,
    *,
    deliver: bool = True,
) -> dict[str, Any]:
    """`gpu-pricing alerts check --json` as a dict: each rule and budget's evaluation
    (`rules`: rule, value, threshold, state, message), the changes of state recorded
    (`fired`) and the notifications sent (`deliveries`; none with `deliver=False`).
    `config`: a gpu-pricing.toml (default: as the command line finds it)."""
    return check(config, warehouse, deliver=deliver).to_dict()


def read_active_alerts(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The budgets and rules currently in ALARM, newest first (the report's section)."""
    return queries.read(con, "active_alerts")
