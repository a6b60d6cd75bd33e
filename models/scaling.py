"""Scaling trade-offs: MFU vs cost, cluster size under a budget or deadline,
compute-optimal model size, and data-parallel communication cost.

Cost is proportional to 1/MFU at a fixed FLOP budget. ``gpu_hours = F / (mfu * peak *
3600)`` does not depend on the GPU count, so two configurations on the same hardware and
rate cost in the ratio of their MFUs: 1,024 GPUs at MFU 0.40 cost 0.50 / 0.40 = 1.25x
what 256 GPUs at MFU 0.50 cost, and finish in (256 * 0.50) / (1024 * 0.40) = 0.3125x the
time. ``compare_configurations`` tabulates exactly that.

Budget and deadline. MFU falls as the cluster grows (communication, stragglers,
smaller per-GPU batches); an *efficiency curve* gives measured or assumed
``(gpus, mfu)`` points, linearly interpolated between them and never extrapolated. The
"efficiency cliff" is where the curve drops steeply: past it, adding GPUs buys little
time at a large cost. ``fewest_hours_within_budget`` picks the candidate GPU count that
finishes soonest without exceeding a budget; ``cheapest_within_deadline`` the one that
costs least while finishing by a deadline. Candidates default to the curve's own GPU
counts (the cluster sizes someone actually measured).

Compute-optimal allocation (Hoffmann et al. 2022, "Training Compute-Optimal Large
Language Models", "Chinchilla"). The default, ``allocate(C)`` with ``method =
"20-tokens-per-param"``, follows the paper's rule of thumb: ``C = 6 N D`` with ``D = 20 N``,
so ``N = sqrt(C / 120)`` and ``D = 20 N`` (Chinchilla itself: 70B params on 1.4T tokens,
5.76e23 FLOPs). The power-law fit ``N_opt = 0.2536 * C**0.4995`` parameters and
``D_opt = 1.7424 * C**0.5005`` tokens stays available as ``method = "power-law-fit"``, but
its coefficients are *not* self-consistent: ``6 * N_opt * D_opt`` comes to about 2.65 C
(the exponents sum to 1, so the ratio is ``6 * 0.2536 * 1.7424`` at every C) and ``D/N``
to about 7 tokens per parameter. Both report ``tokens_per_param`` and
``implied_flops_ratio = 6 N D / C`` so the gap is visible.

Data-parallel communication. A ring all-reduce of ``B`` gradient bytes over ``n`` GPUs
moves ``2 (n - 1) / n * B`` bytes through each GPU's link::

    allreduce_seconds   = 2 * (n - 1) / n * gradient_bytes / bandwidth_bytes_per_s
    exposed_comm_seconds = (1 - overlap_fraction) * allreduce_seconds
    scaling_efficiency  = compute_seconds / (compute_seconds + exposed_comm_seconds)
    waiting_cost_usd    = gpus * rate_usd_per_gpu_hour * exposed_comm_seconds * steps / 3600

(latency terms ignored: they matter only for small messages).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from itertools import pairwise

import polars as pl

from models import _validate
from models.costs import SECONDS_PER_HOUR, compute_cost_usd
from models.training import gpu_hours_for_flops

CHINCHILLA_N_COEFFICIENT = 0.2536
CHINCHILLA_N_EXPONENT = 0.4995
CHINCHILLA_D_COEFFICIENT = 1.7424
CHINCHILLA_D_EXPONENT = 0.5005


def relative_cost(mfu: float, baseline_mfu: float) -> float:
    """Cost of a run at ``mfu`` relative to ``baseline_mfu`` (same FLOPs, hardware, rate)."""
    return _validate.fraction("baseline_mfu", baseline_mfu) / _validate.fraction("mfu", mfu)


def _configuration(
    flops: float, peak_tflops: float, rate_usd_per_gpu_hour: float, gpus: float, mfu: float
) -> dict[str, float]:
    gpus = _validate.count("gpus", gpus)
    gpu_hours = gpu_hours_for_flops(flops, peak_tflops, mfu)
    return {
        "gpus": gpus,
        "mfu": float(mfu),
        "gpu_hours": gpu_hours,
        "wall_clock_hours": gpu_hours / gpus,
        "cost_usd": compute_cost_usd(gpu_hours, rate_usd_per_gpu_hour),
    }


def compare_configurations(
    flops: float,
    peak_tflops: float,
    rate_usd_per_gpu_hour: float,
    configurations: Sequence[tuple[float, float]],
) -> list[dict[str, float]]:
    """One row per ``(gpus, mfu)``: GPU-hours, wall clock, cost, and ratios to the first row."""
    if not configurations:
        raise ValueError("configurations must not be empty, got []")
    rows = [
        _configuration(flops, peak_tflops, rate_usd_per_gpu_hour, gpus, mfu)
        for gpus, mfu in configurations
    ]
    base = rows[0]
    for row in rows:
        row["cost_ratio"] = row["cost_usd"] / base["cost_usd"]
        row["time_ratio"] = row["wall_clock_hours"] / base["wall_clock_hours"]
    return rows


def _checked_curve(curve: Sequence[tuple[float, float]]) -> list[tuple[int, float]]:
    if not curve:
        raise ValueError("curve must have at least one (gpus, mfu) point, got []")
    points = [
        (_validate.count("curve gpus", gpus), _validate.fraction("curve mfu", mfu))
        for gpus, mfu in curve
    ]
    for (left, _), (right, _) in pairwise(points):
        if right <= left:
            raise ValueError(
                f"curve gpus must be strictly increasing, got {right!r} after {left!r}"
            )
    return points


def interpolate_mfu(curve: Sequence[tuple[float, float]], gpus: float) -> float:
    """MFU at ``gpus`` on a piecewise-linear efficiency curve of ``(gpus, mfu)`` points.

    Raises outside the measured range: extrapolating past the last point is how cliffs
    get missed.
    """
    points = _checked_curve(curve)
    gpus = _validate.count("gpus", gpus)
    counts = [count for count, _ in points]
    if not counts[0] <= gpus <= counts[-1]:
        raise ValueError(
            f"gpus must be within the curve's range {counts[0]}..{counts[-1]}, got {gpus!r}"
        )
    index = bisect.bisect_left(counts, gpus)
    if counts[index] == gpus:
        return points[index][1]
    (left_gpus, left_mfu), (right_gpus, right_mfu) = points[index - 1], points[index]
    share = (gpus - left_gpus) / (right_gpus - left_gpus)
    return left_mfu + share * (right_mfu - left_mfu)


def plan(
    flops: float,
    peak_tflops: float,
    rate_usd_per_gpu_hour: float,
    curve: Sequence[tuple[float, float]],
    candidates: Iterable[float] | None = None,
) -> list[dict[str, float]]:
    """GPU-hours, wall clock and cost at each candidate GPU count on the curve."""
    points = _checked_curve(curve)
    counts = [count for count, _ in points] if candidates is None else list(candidates)
    if not counts:
        raise ValueError("candidates must not be empty, got []")
    return [
        _configuration(
            flops, peak_tflops, rate_usd_per_gpu_hour, gpus, interpolate_mfu(points, gpus)
        )
        for gpus in counts
    ]


def fewest_hours_within_budget(
    flops: float,
    peak_tflops: float,
    rate_usd_per_gpu_hour: float,
    curve: Sequence[tuple[float, float]],
    budget_usd: float,
    candidates: Iterable[float] | None = None,
) -> dict[str, float] | None:
    """The candidate that finishes soonest at a cost <= ``budget_usd``; None if none fits."""
    budget = _validate.positive("budget_usd", budget_usd)
    rows = plan(flops, peak_tflops, rate_usd_per_gpu_hour, curve, candidates)
    affordable = [row for row in rows if row["cost_usd"] <= budget]
    if not affordable:
        return None
    return min(affordable, key=lambda row: (row["wall_clock_hours"], row["cost_usd"]))


def cheapest_within_deadline(
    flops: float,
    peak_tflops: float,
    rate_usd_per_gpu_hour: float,
    curve: Sequence[tuple[float, float]],
    deadline_hours: float,
    candidates: Iterable[float] | None = None,
) -> dict[str, float] | None:
    """The cheapest candidate finishing in <= ``deadline_hours``; None if none is fast enough."""
    deadline = _validate.positive("deadline_hours", deadline_hours)
    rows = plan(flops, peak_tflops, rate_usd_per_gpu_hour, curve, candidates)
    in_time = [row for row in rows if row["wall_clock_hours"] <= deadline]
    if not in_time:
        return None
    return min(in_time, key=lambda row: (row["cost_usd"], row["wall_clock_hours"]))


def chinchilla_allocation(
    compute_flops: float,
    *,
    n_coefficient: float = CHINCHILLA_N_COEFFICIENT,
    n_exponent: float = CHINCHILLA_N_EXPONENT,
    d_coefficient: float = CHINCHILLA_D_COEFFICIENT,
    d_exponent: float = CHINCHILLA_D_EXPONENT,
) -> dict[str, float]:
    """``N_opt = a * C**alpha`` parameters and ``D_opt = b * C**beta`` tokens for ``C`` FLOPs,
    with the check ratios ``tokens_per_param`` and ``implied_flops_ratio = 6 N D / C``."""
    compute = _validate.positive("compute_flops", compute_flops)
    params = n_coefficient * compute**n_exponent
    tokens = d_coefficient * compute**d_exponent
    return {
        "compute_flops": compute,
        "params": params,
        "tokens": tokens,
        "tokens_per_param": tokens / params,
        "implied_flops_ratio": 6 * params * tokens / compute,
    }


def allocation_for_tokens_per_param(
    compute_flops: float, tokens_per_param: float = 20.0
) -> dict[str, float]:
    """Split ``C`` FLOPs so that ``6 N D = C`` and ``D = tokens_per_param * N``."""
    compute = _validate.positive("compute_flops", compute_flops)
    ratio = _validate.positive("tokens_per_param", tokens_per_param)
    params = (compute / (6 * ratio)) ** 0.5
    return {
        "compute_flops": compute,
        "params": params,
        "tokens": ratio * params,
        "tokens_per_param": ratio,
        "implied_flops_ratio": 1.0,
    }


ALLOCATIONS = ("20-tokens-per-param", "power-law-fit")
DEFAULT_ALLOCATION = ALLOCATIONS[0]


def allocate(compute_flops: float, method: str = DEFAULT_ALLOCATION) -> dict[str, float]:
    """Parameters and tokens for ``C`` FLOPs by the named allocation (see the module
    docstring): ``20-tokens-per-param`` (the default, ``6 N D = C``) or ``power-law-fit``."""
    if method == "20-tokens-per-param":
        return allocation_for_tokens_per_param(compute_flops, 20.0)
    if method == "power-law-fit":
        return chinchilla_allocation(compute_flops)
    raise ValueError(f"method must be one of {', '.join(ALLOCATIONS)}, got {method!r}")


def allocated_params_expr(compute_flops: pl.Expr, method: str = DEFAULT_ALLOCATION) -> pl.Expr:
    """The parameter count of ``allocate`` as a Polars expression over a FLOPs column."""
    if method == "20-tokens-per-param":
        return (compute_flops / (6 * 20.0)).sqrt()
    if method == "power-law-fit":
        return CHINCHILLA_N_COEFFICIENT * compute_flops.pow(CHINCHILLA_N_EXPONENT)
    raise ValueError(f"method must be one of {', '.join(ALLOCATIONS)}, got {method!r}")


def chinchilla_cost(
    compute_flops: float,
    peak_tflops: float,
    mfu: float,
    rate_usd_per_gpu_hour: float,
    method: str = DEFAULT_ALLOCATION,
) -> dict[str, float]:
    """The compute-optimal allocation for ``C`` FLOPs and what spending ``C`` costs."""
    allocation = allocate(compute_flops, method)
    gpu_hours = gpu_hours_for_flops(compute_flops, peak_tflops, mfu)
    return {
        **allocation,
        "peak_tflops": float(peak_tflops),
        "mfu": float(mfu),
        "rate_usd_per_gpu_hour": float(rate_usd_per_gpu_hour),
        "gpu_hours": gpu_hours,
        "cost_usd": compute_cost_usd(gpu_hours, rate_usd_per_gpu_hour),
    }


def gradient_bytes(params: float, bytes_per_gradient: float = 2.0) -> float:
    """Bytes all-reduced per step: one gradient per parameter (2 for BF16, 4 for FP32)."""
    return _validate.positive("params", params) * _validate.positive(
        "bytes_per_gradient", bytes_per_gradient
    )


def ring_allreduce_seconds(
    gradient_bytes: float, bandwidth_bytes_per_s: float, gpus: float
) -> float:
    """``2 (n-1)/n * gradient_bytes / bandwidth``: bandwidth-bound ring all-reduce time."""
    size = _validate.non_negative("gradient_bytes", gradient_bytes)
    bandwidth = _validate.positive("bandwidth_bytes_per_s", bandwidth_bytes_per_s)
    n = _validate.count("gpus", gpus)
    return 2 * (n - 1) / n * size / bandwidth


def scaling_efficiency(
    compute_seconds: float, communication_seconds: float, overlap_fraction: float = 0.0
) -> float:
    """``compute / (compute + (1 - overlap) * communication)`` per step."""
    compute = _validate.positive("compute_seconds", compute_seconds)
    exposed = _validate.non_negative("communication_seconds", communication_seconds) * (
        1 - _validate.unit_interval("overlap_fraction", overlap_fraction)
    )
    return compute / (compute + exposed)


def communication_wait_cost_usd(
    gpus: float,
    rate_usd_per_gpu_hour: float,
    communication_seconds: float,
    steps: float,
    overlap_fraction: float = 0.0,
) -> float:
    """USD paid for GPUs idling on the non-overlapped part of each step's all-reduce."""
    exposed = _validate.non_negative("communication_seconds", communication_seconds) * (
        1 - _validate.unit_interval("overlap_fraction", overlap_fraction)
    )
    gpu_hours = (
        _validate.count("gpus", gpus)
        * exposed
        * _validate.non_negative("steps", steps)
        / SECONDS_PER_HOUR
    )
    return compute_cost_usd(gpu_hours, rate_usd_per_gpu_hour)


def data_parallel(
    params: float,
    gpus: float,
    compute_seconds_per_step: float,
    bandwidth_bytes_per_s: float,
    steps: float,
    rate_usd_per_gpu_hour: float,
    *,
    bytes_per_gradient: float = 2.0,
    overlap_fraction: float = 0.0,
) -> dict[str, float]:
    """All-reduce time per step, scaling efficiency and the cost of waiting, together."""
    size = gradient_bytes(params, bytes_per_gradient)
    allreduce = ring_allreduce_seconds(size, bandwidth_bytes_per_s, gpus)
    return {
        "params": float(params),
        "gpus": _validate.count("gpus", gpus),
        "gradient_bytes": size,
        "compute_seconds_per_step": float(compute_seconds_per_step),
        "allreduce_seconds_per_step": allreduce,
        "exposed_comm_seconds_per_step": allreduce * (1 - float(overlap_fraction)),
        "scaling_efficiency": scaling_efficiency(
            compute_seconds_per_step, allreduce, overlap_fraction
        ),
        "steps": float(steps),
        "waiting_cost_usd": communication_wait_cost_usd(
            gpus, rate_usd_per_gpu_hour, allreduce, steps, overlap_fraction
        ),
    }
