"""gpu-pricing's user-facing package: the command line (`gpu_pricing.cli`), the Python API
(`gpu_pricing.api`, whose names are importable from here), the training/serving planner
(`gpu_pricing.plan`) and the HTML report (`gpu_pricing.report`). It sits above the flows;
nothing below it imports it.

    import gpu_pricing
    gpu_pricing.rates(gpu="H100")
"""

from __future__ import annotations

from common.errors import WarehouseError
from gpu_pricing.api import (
    ServePlan,
    TrainPlan,
    alerts_check,
    alerts_evaluate,
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
