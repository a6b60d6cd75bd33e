"""gpu-pricing's user-facing package: the command line (`gpu_pricing.cli`), the Python API
(`gpu_pricing.api`, whose names are importable from here), the training/serving planner
(`gpu_pricing.plan`) and the HTML report (`gpu_pricing.report`). It sits above the flows;
nothing below it imports it.

    import gpu_pricing
    gpu_pricing.rates(gpu="H100")
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Nothing is imported here: the command line imports this package first, and switches on
# its bytecode folder (gpu_pricing.cli._bytecode) before it loads anything else; a module
# imported here would be compiled again on every command.


def __getattr__(name: str) -> Any:
    """The API's public names (`gpu_pricing.api.__all__`, their one list), the planner's
    error and `WarehouseError`, each imported on first use (see gpu_pricing.api)."""
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "WarehouseError":
        from common.errors import WarehouseError

        return WarehouseError
    if name == "NoFeasiblePlan":
        from gpu_pricing.plan import NoFeasiblePlan

        return NoFeasiblePlan
    api = import_module("gpu_pricing.api")  # (a `from` import would ask this function)
    if name == "__all__":
        return [*api.__all__, "NoFeasiblePlan", "WarehouseError"]
    if name in globals():  # the API's own module, set here as it was imported
        return globals()[name]
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})
