"""A budget tied to a plan: read a saved `gpu-pricing plan train --json` or `plan serve
--json` output (the Python API's `TrainPlan.to_dict()` / `ServePlan.to_dict()`), keep what
a budget needs from its chosen plan, and check it.

A training plan is one run: its budget's period is `total` and its forecast is the plan's
`cost_usd`. A serving plan runs every month: its period is `month` and its forecast is
the plan's `monthly_cost_usd`. The plan's GPU, memory, pricing model, provider and GPU
count become the budget's; `services.alerts` compares the plan's rate with the rate its
offer has today (models.alert_rules.plan_budget).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from services import config_checks as check

# the chosen plan's fields a budget reads, per kind of plan
TRAIN_KEYS = (
    "gpu_name", "gpu_memory_gib", "provider", "region", "instance_type", "pricing_model",
    "gpus", "rate_usd_per_gpu_hour", "wall_clock_hours", "cost_usd",
)  # fmt: skip
SERVE_KEYS = (
    "strategy", "gpu_name", "gpu_memory_gib", "provider", "base_region",
    "base_instance_type", "base_pricing_model", "base_gpus", "base_rate_usd_per_gpu_hour",
    "monthly_cost_usd",
)  # fmt: skip
NUMBERS = {
    "gpu_memory_gib", "gpus", "rate_usd_per_gpu_hour", "wall_clock_hours", "cost_usd",
    "base_gpus", "base_rate_usd_per_gpu_hour", "monthly_cost_usd",
}  # fmt: skip


def read_plan(path: str | Path) -> dict[str, Any]:
    """The plan file's chosen plan, as a budget uses it: `kind` (train | serve), `file`,
    `period` (total | month), `gpu_name`, `gpu_memory_gib`, `provider`, `region`,
    `instance_type`, `pricing_model`, `gpus`, `rate_usd_per_gpu_hour`, `cost_usd` (the
    plan's cost for its period) and `summary` (the plan in words). A file that is not such
    an output is one ValueError naming it and what is wrong."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"plan file {path}: cannot be read ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"plan file {path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("chosen"), dict):
        raise ValueError(
            f"plan file {path}: not a `plan train --json` or `plan serve --json` output "
            "(no chosen plan)"
        )
    kind = "train" if "frontier" in doc else "serve" if "plans" in doc else None
    if kind is None:
        raise ValueError(
            f"plan file {path}: not a `plan train --json` or `plan serve --json` output "
            "(neither frontier nor plans)"
        )
    chosen = doc["chosen"]
    for key in TRAIN_KEYS if kind == "train" else SERVE_KEYS:
        value = chosen.get(key)
        bad = value is None or (
            key in NUMBERS
            and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            )
        )
        if bad:
            raise ValueError(
                f"plan file {path}: chosen.{key} must be "
                + ("a number >= 0" if key in NUMBERS else "given")
                + f", got {value!r}"
            )
    if kind == "train":
        return {
            "kind": kind,
            "file": str(path),
            "period": "total",
            **{k: chosen[k] for k in TRAIN_KEYS},
            "gpus": int(chosen["gpus"]),
            "summary": (
                f"train {chosen['gpus']:g} x {chosen['gpu_name']} {chosen['pricing_model']} "
                f"on {chosen['provider']} {chosen['region']} {chosen['instance_type']}, "
                f"{chosen['wall_clock_hours']:,.0f} h"
            ),
        }
    return {
        "kind": kind,
        "file": str(path),
        "period": "month",
        "gpu_name": chosen["gpu_name"],
        "gpu_memory_gib": chosen["gpu_memory_gib"],
        "provider": chosen["provider"],
        "region": chosen["base_region"],
        "instance_type": chosen["base_instance_type"],
        "pricing_model": chosen["base_pricing_model"],
        "gpus": int(chosen["base_gpus"]),
        "rate_usd_per_gpu_hour": chosen["base_rate_usd_per_gpu_hour"],
        "cost_usd": chosen["monthly_cost_usd"],
        "summary": (
            f"serve {chosen['strategy']}: {chosen['base_gpus']:g} x {chosen['gpu_name']} on "
            f"{chosen['provider']} {chosen['base_region']} {chosen['base_instance_type']}"
            + (
                f" + burst {chosen.get('burst_gpu_hours_per_month') or 0:,.0f} GPU-hours/month "
                f"{chosen.get('burst_pricing_model')}"
                if chosen.get("burst_pricing_model")
                else ""
            )
        ),
    }


def budget_entry(entry: dict, taken: list[str]) -> dict:
    """A `[[budgets]]` entry with `plan_file`, completed from the plan: its GPU, memory, GPU
    count, pricing model and provider, and the plan itself (`plan`). `taken`: keys of the
    entry that the plan gives or that do not apply (each an error)."""
    for key in taken:
        raise check.problem(
            "is taken from the plan file or does not apply to a plan budget", key, value=entry[key]
        )
    try:
        plan = read_plan(check.string(entry["plan_file"], "plan_file"))
    except ValueError as exc:
        raise check.problem(str(exc), "plan_file", value=entry["plan_file"]) from None
    entry.setdefault("period", plan["period"])
    if entry["period"] != plan["period"]:
        raise check.problem(
            f"a {plan['kind']} plan's budget has period '{plan['period']}'",
            "period",
            value=entry["period"],
        )
    return {
        **entry,
        "plan": plan,
        "gpu": plan["gpu_name"],
        "memory_gib": plan["gpu_memory_gib"],
        "gpus": plan["gpus"],
        "pricing_model": plan["pricing_model"],
        "providers": [plan["provider"]],
    }
