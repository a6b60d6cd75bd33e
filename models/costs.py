"""Total cost of a run: compute plus the line items people forget.

Short form (the usual ``C = P * R * T + network + storage + ops``)::

    cost_usd = gpus * rate_usd_per_gpu_hour * hours + network_usd + storage_usd + ops_usd

Fuller form, from quantities rather than dollar amounts::

    compute_usd  = gpu_hours * rate_usd_per_gpu_hour
    storage_usd  = storage_gb * usd_per_gb_month * storage_months
    transfer_usd = transfer_gb * usd_per_gb
    failed_usd   = failed_runs * compute_usd      (each failed run burns a whole run's
                                                   compute unless a cost is given)
    total_usd    = compute_usd + storage_usd + transfer_usd + failed_usd

Conventions shared by every module in ``models``: a month is ``HOURS_PER_MONTH`` hours
(720, 30 days; defined once in sql/seeds/seed_conventions.csv, see models/conventions.py),
prices are USD, FLOPs are plain counts, peak throughput
is given in TFLOPS (10^12 FLOP/s) per GPU.
"""

from __future__ import annotations

from models import _validate

SECONDS_PER_HOUR = 3600.0
TERA = 1e12


def compute_cost_usd(gpu_hours: float, rate_usd_per_gpu_hour: float) -> float:
    """GPU-hours times the per-GPU-hour rate."""
    gpu_hours = _validate.non_negative("gpu_hours", gpu_hours)
    rate = _validate.non_negative("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour)
    return gpu_hours * rate


def run_cost_usd(
    gpus: float,
    rate_usd_per_gpu_hour: float,
    hours: float,
    *,
    network_usd: float = 0.0,
    storage_usd: float = 0.0,
    ops_usd: float = 0.0,
) -> float:
    """``P * R * T + network + storage + ops`` for P GPUs at R USD/GPU-hour for T hours."""
    gpus = _validate.count("gpus", gpus)
    hours = _validate.non_negative("hours", hours)
    extras = (
        _validate.non_negative("network_usd", network_usd)
        + _validate.non_negative("storage_usd", storage_usd)
        + _validate.non_negative("ops_usd", ops_usd)
    )
    return compute_cost_usd(gpus * hours, rate_usd_per_gpu_hour) + extras


def storage_cost_usd(storage_gb: float, usd_per_gb_month: float, storage_months: float) -> float:
    """Stored GB x USD per GB-month x months kept."""
    return (
        _validate.non_negative("storage_gb", storage_gb)
        * _validate.non_negative("usd_per_gb_month", usd_per_gb_month)
        * _validate.non_negative("storage_months", storage_months)
    )


def transfer_cost_usd(transfer_gb: float, usd_per_gb: float) -> float:
    """Egress / inter-region GB x USD per GB."""
    return _validate.non_negative("transfer_gb", transfer_gb) * _validate.non_negative(
        "usd_per_gb", usd_per_gb
    )


def total_run_cost(
    gpu_hours: float,
    rate_usd_per_gpu_hour: float,
    *,
    storage_gb: float = 0.0,
    usd_per_gb_month: float = 0.0,
    storage_months: float = 0.0,
    transfer_gb: float = 0.0,
    usd_per_gb: float = 0.0,
    failed_runs: float = 0.0,
    failed_run_cost_usd: float | None = None,
) -> dict[str, float]:
    """The fuller run cost, itemised.

    ``failed_runs`` may be fractional (an expected count: 0.1 = one run in ten is lost).
    Each failed run costs ``failed_run_cost_usd``, by default the full compute cost of the
    run (a crash near the end); pass a smaller figure when failures are caught early.
    """
    compute_usd = compute_cost_usd(gpu_hours, rate_usd_per_gpu_hour)
    storage_usd = storage_cost_usd(storage_gb, usd_per_gb_month, storage_months)
    transfer_usd = transfer_cost_usd(transfer_gb, usd_per_gb)
    failed_runs = _validate.non_negative("failed_runs", failed_runs)
    per_failure_usd = (
        compute_usd
        if failed_run_cost_usd is None
        else _validate.non_negative("failed_run_cost_usd", failed_run_cost_usd)
    )
    failed_usd = failed_runs * per_failure_usd
    return {
        "gpu_hours": float(gpu_hours),
        "rate_usd_per_gpu_hour": float(rate_usd_per_gpu_hour),
        "compute_usd": compute_usd,
        "storage_usd": storage_usd,
        "transfer_usd": transfer_usd,
        "failed_runs": failed_runs,
        "failed_usd": failed_usd,
        "total_usd": compute_usd + storage_usd + transfer_usd + failed_usd,
    }
