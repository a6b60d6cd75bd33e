"""gpu-pricing's user-facing package: the command line (`gpu_pricing.cli`), the Python API
(`gpu_pricing.api`, whose names are importable from here), the training/serving planner
(`gpu_pricing.plan`) and the HTML report (`gpu_pricing.report`). It sits above the flows;
nothing below it imports it.

    import gpu_pricing
    gpu_pricing.rates(gpu="H100")
"""

from __future__ import annotations

from typing import Any

from common.errors import WarehouseError
from gpu_pricing import api


def __getattr__(name: str) -> Any:
    """The API's public names (`gpu_pricing.api.__all__`, their one list) and the
    planner's error, each imported on first use (see gpu_pricing.api)."""
    if name in api.__all__:
        return getattr(api, name)
    if name == "NoFeasiblePlan":
        from gpu_pricing.plan import NoFeasiblePlan

        return NoFeasiblePlan
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [*api.__all__, "NoFeasiblePlan", "WarehouseError"]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
