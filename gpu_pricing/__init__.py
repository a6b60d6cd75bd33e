"""gpu-pricing's application layer: the Python API (`gpu_pricing.api`, re-exported here)
and the training/serving planner (`gpu_pricing.plan`)."""

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
