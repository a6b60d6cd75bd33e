"""Training cost from model size, tokens, hardware peak and achieved MFU.

The arithmetic (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", §2.1)::

    flops            = 6 * params * tokens           # 2 forward + 4 backward per param per token
    gpu_hours        = flops / (mfu * peak_tflops * 1e12 * 3600)
    wall_clock_hours = gpu_hours / gpus
    cost_usd         = gpu_hours * rate_usd_per_gpu_hour
    cost_per_1m_tokens_usd = cost_usd / tokens * 1e6

Worked example: 70B dense on 2T tokens = 6 * 70e9 * 2e12 = 8.4e23 FLOPs;
on H100 SXM (989 dense BF16 TFLOPS) at MFU 0.45 that is
8.4e23 / (0.45 * 989e12 * 3600) = 524,286 GPU-hours, 2.10M USD at 4 USD/GPU-hour.

MFU vs HFU. MFU (model FLOPs utilisation, PaLM paper, Chowdhery et al. 2022, app. B)
counts only the FLOPs the model needs, 6ND. With full activation recomputation the
forward pass runs a second time inside the backward pass, so the hardware executes
2ND + 2ND + 4ND = 8ND: hardware FLOPs utilisation HFU = MFU * 8/6. A profiler reports
HFU; cost follows MFU, because the recomputed forward is work you pay for and throw
away. Selective recomputation (Korthikanti et al. 2022) recomputes only parts of
attention and sits much closer to 6ND; it is not modelled here.

The attention term (about ``6 * n_layers * seq_len * d_model`` FLOPs per token) is left
out, as in the 6ND rule: it is a few percent for the sequence lengths this is used with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models import _validate
from models.conventions import TRAINING_FLOPS_PER_PARAM_PER_TOKEN
from models.costs import SECONDS_PER_HOUR, TERA, compute_cost_usd

if TYPE_CHECKING:
    import polars as pl

FLOPS_PER_PARAM_PER_TOKEN = TRAINING_FLOPS_PER_PARAM_PER_TOKEN  # 6, seed_conventions
RECOMPUTE_FLOPS_PER_PARAM_PER_TOKEN = 8.0


def training_flops(params: float, tokens: float) -> float:
    """Model FLOPs of one pass over ``tokens``: ``6 * params * tokens``."""
    return (
        FLOPS_PER_PARAM_PER_TOKEN
        * _validate.positive("params", params)
        * _validate.positive("tokens", tokens)
    )


def hardware_flops(params: float, tokens: float, *, full_recompute: bool) -> float:
    """FLOPs the hardware executes: ``8ND`` with full activation recomputation, else ``6ND``."""
    per_param_token = (
        RECOMPUTE_FLOPS_PER_PARAM_PER_TOKEN if full_recompute else FLOPS_PER_PARAM_PER_TOKEN
    )
    return per_param_token * _validate.positive("params", params) * _validate.positive("tokens", tokens)


def hfu_from_mfu(mfu: float, *, full_recompute: bool = True) -> float:
    """HFU for a given MFU: ``mfu * 8/6`` under full recomputation, ``mfu`` otherwise.

    Raises when the implied HFU exceeds 1 (MFU above 0.75 is impossible with full
    recomputation).
    """
    mfu = _validate.fraction("mfu", mfu)
    if not full_recompute:
        return mfu
    hfu = mfu * RECOMPUTE_FLOPS_PER_PARAM_PER_TOKEN / FLOPS_PER_PARAM_PER_TOKEN
    if hfu > 1:
        raise ValueError(f"mfu must be <= 0.75 with full recompute (HFU = mfu * 8/6), got {mfu!r}")
    return hfu


def mfu_from_hfu(hfu: float, *, full_recompute: bool = True) -> float:
    """MFU for a measured HFU: ``hfu * 6/8`` under full recomputation, ``hfu`` otherwise."""
    hfu = _validate.fraction("hfu", hfu)
    if not full_recompute:
        return hfu
    return hfu * FLOPS_PER_PARAM_PER_TOKEN / RECOMPUTE_FLOPS_PER_PARAM_PER_TOKEN


def gpu_hours_for_flops(flops: float, peak_tflops: float, mfu: float) -> float:
    """GPU-hours to execute ``flops`` model FLOPs at ``mfu`` of ``peak_tflops`` per GPU."""
    flops = _validate.positive("flops", flops)
    peak_flops_per_second = _validate.positive("peak_tflops", peak_tflops) * TERA
    mfu = _validate.fraction("mfu", mfu)
    return flops / (mfu * peak_flops_per_second * SECONDS_PER_HOUR)


def gpu_hours_for_flops_expr(flops: pl.Expr, peak_tflops: pl.Expr, mfu: pl.Expr) -> pl.Expr:
    """``gpu_hours_for_flops`` as a Polars expression (columns of FLOPs, peaks and MFUs)."""
    return flops / (mfu * peak_tflops * TERA * SECONDS_PER_HOUR)


def wall_clock_hours(gpu_hours: float, gpus: float) -> float:
    """Elapsed hours when ``gpus`` GPUs share ``gpu_hours`` (the MFU already prices in
    the scaling loss at that GPU count)."""
    return _validate.non_negative("gpu_hours", gpu_hours) / _validate.count("gpus", gpus)


def cost_per_token_usd(cost_usd: float, tokens: float) -> float:
    """USD per trained token."""
    return _validate.non_negative("cost_usd", cost_usd) / _validate.positive("tokens", tokens)


def cost_per_1m_tokens_usd(cost_usd: float, tokens: float) -> float:
    """USD per million trained tokens."""
    return cost_per_token_usd(cost_usd, tokens) * 1e6


def estimate_training(
    params: float,
    tokens: float,
    peak_tflops: float,
    mfu: float,
    gpus: float,
    rate_usd_per_gpu_hour: float,
    *,
    full_recompute: bool = False,
) -> dict[str, float]:
    """Every input and intermediate of a training estimate, for the CLI and reports.

    ``full_recompute`` only adds ``hfu`` and ``hardware_flops`` to the result; the cost
    does not change, because the MFU is what you measured or assumed.
    """
    gpus = _validate.count("gpus", gpus)
    flops = training_flops(params, tokens)
    gpu_hours = gpu_hours_for_flops(flops, peak_tflops, mfu)
    cost_usd = compute_cost_usd(gpu_hours, rate_usd_per_gpu_hour)
    return {
        "params": float(params),
        "tokens": float(tokens),
        "peak_tflops": float(peak_tflops),
        "mfu": float(mfu),
        "hfu": hfu_from_mfu(mfu, full_recompute=full_recompute),
        "gpus": gpus,
        "rate_usd_per_gpu_hour": float(rate_usd_per_gpu_hour),
        "flops": flops,
        "hardware_flops": hardware_flops(params, tokens, full_recompute=full_recompute),
        "gpu_hours": gpu_hours,
        "wall_clock_hours": wall_clock_hours(gpu_hours, gpus),
        "wall_clock_days": wall_clock_hours(gpu_hours, gpus) / 24,
        "cost_usd": cost_usd,
        "cost_per_token_usd": cost_per_token_usd(cost_usd, tokens),
        "cost_per_1m_tokens_usd": cost_per_1m_tokens_usd(cost_usd, tokens),
    }
