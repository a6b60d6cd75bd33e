"""Budgets and rules from Python: `alerts_check` evaluates every budget (usage, training or
plan form) and rate rule of a gpu-pricing.toml against the warehouse, as `gpu-pricing
alerts check` does (services.alerts, the one evaluation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def alerts_check(
    config: str | Path | None = None,
    warehouse: str | Path | None = None,
    *,
    deliver: bool = True,
) -> dict[str, Any]:
    """`gpu-pricing alerts check --json` as a dict: each rule and budget's evaluation
    (`rules`: rule, value, threshold, state, message), the changes of state recorded
    (`fired`) and the notifications sent (`deliveries`; none with `deliver=False`).
    `config`: a gpu-pricing.toml (default: as the command line finds it)."""
    from services import alerts
    from services.config import load

    cfg = load(config)
    return alerts.check(cfg.warehouse_path(warehouse), cfg, deliver=deliver).to_dict()
