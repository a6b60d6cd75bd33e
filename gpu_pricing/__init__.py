"""gpu-pricing's application layer.

- the services the nightly flow also uses: `config` (gpu-pricing.toml), `names` (the one
  name parser), `notify` (alert rules checked, state recorded, changes delivered through
  Apprise), `publish` (Iceberg tables on a path or object storage), `snapshot_export`
  (recorded pages back out in the snapshot format);
- above the flows: the Python API (`gpu_pricing.api`, re-exported here), the
  training/serving planner (`gpu_pricing.plan`), the HTML report (`gpu_pricing.report`) and
  the command line (`gpu_pricing.cli`).

The re-exports resolve on first use (PEP 562), so a flow that imports
`gpu_pricing.config` does not load the API and the planner.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# name -> the module that defines it
_EXPORTS = {
    "NoFeasiblePlan": "gpu_pricing.plan",
    "ServePlan": "gpu_pricing.api",
    "TrainPlan": "gpu_pricing.api",
    "WarehouseError": "warehouse.errors",
    "cheapest": "gpu_pricing.api",
    "connect": "gpu_pricing.api",
    "estimate_infer": "gpu_pricing.api",
    "estimate_train": "gpu_pricing.api",
    "gpu_specs": "gpu_pricing.api",
    "history": "gpu_pricing.api",
    "offers": "gpu_pricing.api",
    "plan_serve": "gpu_pricing.api",
    "plan_train": "gpu_pricing.api",
    "rates": "gpu_pricing.api",
    "seed_gpu_specs": "gpu_pricing.api",
    "warehouse_path": "gpu_pricing.api",
}

__all__ = [
    "NoFeasiblePlan",
    "ServePlan",
    "TrainPlan",
    "WarehouseError",
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from gpu_pricing.api import (
        ServePlan,
        TrainPlan,
        cheapest,
        connect,
        estimate_infer,
        estimate_train,
        gpu_specs,
        history,
        offers,
        plan_serve,
        plan_train,
        rates,
        seed_gpu_specs,
        warehouse_path,
    )
    from gpu_pricing.plan import NoFeasiblePlan
    from warehouse.errors import WarehouseError
