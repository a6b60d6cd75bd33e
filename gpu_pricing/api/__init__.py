"""The Python API: read the warehouse (read-only, so it works while a refresh runs) and get
Polars DataFrames back, for notebooks and other services. The `gpu-pricing plan` commands
are a thin layer over `plan_train` and `plan_serve`.

    import gpu_pricing
    gpu_pricing.rates(gpu="H100", pricing="spot", limit=5)
    gpu_pricing.cheapest()
    gpu_pricing.history("A100", memory=80)
    p = gpu_pricing.plan_train(params=70e9, tokens=2e12, deadline_hours=24 * 30)
    p.chosen, p.frontier
    gpu_pricing.estimate_train(70e9, 2e12, "H100", mfu=0.45, gpus=1024)
    gpu_pricing.estimate_infer(70e9, 1e6, "H100", batch=32, rate=2.0)
    gpu_pricing.alerts_check("gpu-pricing.toml")

This module is the engine: every read and decision the command line, the planner and the
report give (rates, cheapest, history, estimates, plans, break-evens, alerts) is answered here,
and they print what it returns, so the same question gets the same answer at every door.
Names are read by one parser (common.names): GPUs, providers, regions and pricing
models in any case and alias (`rates(gpu="h100 sxm", provider="AWS", pricing="on-demand")`);
an unknown name raises naming the closest, never returns an empty frame.

Every function takes `warehouse=` (a path; default: $GPU_PRICING_WAREHOUSE, else
gpu-pricing.toml's `warehouse`, else warehouse/gpu_pricing.duckdb in the project's
checkout, whatever the working directory: see `warehouse_path`). A missing warehouse raises
`WarehouseError` saying to run `gpu-pricing refresh`; bad input raises `ValueError`
(`InvalidInput` is one) naming it, as the command-line flag.

The engine's modules, by role: `reads` (the warehouse, specs, rates, cheapest, history),
`plans` (the offer filters, `plan_train`, `plan_serve`), `estimates` (`estimate_train`,
`estimate_infer` and the offers they are priced at), `breakevens` (`breakeven_onprem`,
`breakeven_spot`) and `alerts` (`alerts_evaluate`, `alerts_check`: budgets and rate rules,
evaluated by services.alerts); every name is importable from here.
"""

# The engine's names, importable from here (its modules' other names for the command line,
# the report and the tests), each imported from its module on first use: `import
# gpu_pricing` and a command that reads rates load only the modules they use. `__all__` is
# the public list `gpu_pricing` exports.
from __future__ import annotations

from importlib import import_module
from typing import Any

_NAMES_BY_MODULE = {
    "alerts": ("alerts_check", "alerts_evaluate", "read_active_alerts"),
    "breakevens": ("PAIRS_LISTED", "breakeven_onprem", "breakeven_spot"),
    "charts": (
        "read_breakeven_table",
        "read_cost_per_token_best",
        "read_dated_points",
        "read_latest_fetch",
        "read_price_steps",
        "read_report_meta",
        "read_spot_bands",
    ),
    "estimates": (
        "ESTIMATE_ORDER",
        "OFFER_COLUMNS",
        "SPEC_COLUMNS",
        "estimate_infer",
        "estimate_train",
        "offer_fields",
        "priced_rows",
        "read_gpu_rows",
        "read_priced_offers",
    ),
    "plans": ("ServePlan", "TrainPlan", "filter_offers", "plan_serve", "plan_train"),
    "reads": (
        "SEED_GPU_SPECS",
        "SPEC_SCHEMA",
        "cheapest",
        "connect",
        "gpu_specs",
        "history",
        "offer_specs",
        "offers",
        "rates",
        "read_cheapest_summary",
        "read_default_preemption_rate",
        "read_gpu_specs",
        "read_history",
        "read_left_out",
        "read_offers",
        "read_providers",
        "read_rates",
        "read_regions",
        "read_variant_specs",
        "seed_gpu_specs",
        "warehouse_path",
    ),
}
_MODULE_OF = {name: module for module, names in _NAMES_BY_MODULE.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


__all__ = [
    "ServePlan",
    "TrainPlan",
    "alerts_check",
    "alerts_evaluate",
    "cheapest",
    "connect",
    "estimate_infer",
    "estimate_train",
    "gpu_specs",
    "history",
    "offers",
    "plan_serve",
    "plan_train",
    "rates",
    "seed_gpu_specs",
    "warehouse_path",
]
