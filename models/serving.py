"""Serving cost on a roofline: decoding is bound by memory bandwidth at small batches and by
compute at large ones; the prompt (prefill) is compute-bound.

One decode step produces one token for each of the ``batch`` sequences of a replica (a
copy of the model on ``tp`` GPUs, tensor-parallel). It reads every weight once and each
sequence's KV cache, and does 2 FLOPs per parameter per sequence::

    weights_bytes     = params * weight_bytes_per_param          (2 BF16, 1 FP8, 4 FP32)
    kv_cache_bytes    = batch * context_tokens * kv_bytes_per_token
    memory_seconds    = (weights_bytes + kv_cache_bytes)
                        / (tp * bandwidth_gbps * 1e9 * bandwidth_share)
    compute_seconds   = batch * 2 * params / (tp * peak_tflops * 1e12 * compute_share)
    step_seconds      = max(memory_seconds, compute_seconds) / tp_efficiency
    bound             = "memory" if memory_seconds >= compute_seconds else "compute"
    output tokens/s per replica = batch / step_seconds;  per GPU = that / tp
    tokens/s per user = 1 / step_seconds

Prefill processes the prompt's tokens together, so it is compute-bound::

    prefill_seconds_per_token = 2 * params / (tp * peak_tflops * 1e12 * compute_share)
                                / tp_efficiency

Costs at ``rate`` USD per GPU-hour::

    usd_per_1m_output_tokens = rate * tp * step_seconds / batch / 3600 * 1e6
    usd_per_1m_input_tokens  = rate * tp * prefill_seconds_per_token / 3600 * 1e6

``tp`` (GPUs per replica) is the fewest power of two whose memory, at
``serving_memory_share``, holds the weights and the KV cache of the batch at its longest
(``prompt_tokens + output_tokens`` per sequence); a larger ``tp`` may be asked for. Tensor
parallelism costs ``tp_efficiency = e ** log2(tp)`` with ``e`` the per-doubling efficiency
(``tensor_parallel_efficiency_nvlink`` on GPUs with a GPU-to-GPU link, ``_pcie`` without).

The KV cache per token is ``2 (K and V) * layers * kv_dim * kv_bytes``. Without a given
``kv_bytes_per_token`` the shape comes from the parameter count: ``params = 12 * layers *
d_model**2`` with ``d_model = 128 * layers`` (the 7B shape: 32 layers, d_model 4096, 6.4B),
and full multi-head attention (``kv_dim = d_model``) in BF16: 524,288 bytes per token for
the 7B shape. Models with grouped-query attention hold less (Llama 3 70B: 2 * 80 * 1024 * 2
= 327,680 bytes); pass theirs. Attention FLOPs over the context are left out of the compute
time (they matter only at long context and large batch).

The shares of peak (``decode_bandwidth_share`` 0.61, ``decode_compute_share`` 0.60) are
measured on an H100 80GB HBM3 with plain PyTorch (sql/seeds/README.md); serving engines
reach more. Worked: a 7B-shaped model (6.48B parameters, 12.95 GB of BF16 weights) on an
H100 SXM (3.35 TB/s, 989 TFLOPS) at batch 1: 12.95e9 / (3.35e12 * 0.61) = 6.34 ms per step,
158 tokens/s (measured 6.32 ms); at batch 256 the compute time 256 * 2 * 6.48e9 / (989e12 *
0.6) = 5.59 ms is still below the memory time, 6.34 ms per step, 40,400 tokens/s
(measured 6.94 ms, 36,873 tokens/s).

Every formula is a Polars expression over named columns (``decode_columns``); the scalar
``decode`` evaluates the same expressions on one row, so the planner and an estimate
cannot disagree.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from models import _validate
from models.conventions import (
    BYTES_PER_GIB,
    DECODE_BANDWIDTH_SHARE,
    DECODE_COMPUTE_SHARE,
    INFERENCE_FLOPS_PER_PARAM_PER_TOKEN,
    SERVING_MEMORY_SHARE,
    TENSOR_PARALLEL_EFFICIENCY_NVLINK,
    TENSOR_PARALLEL_EFFICIENCY_PCIE,
)
from models.costs import SECONDS_PER_HOUR, TERA

GIGA = 1e9
# bytes per weight at each precision of dim_gpus' peak columns
WEIGHT_BYTES = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp8": 1.0}
KV_BYTES_PER_VALUE = 2.0  # BF16 keys and values
D_MODEL_PER_LAYER = 128.0
SHARES_SOURCE = (
    "decode_bandwidth_share and decode_compute_share (sql/seeds/seed_conventions.csv): "
    "measured on an H100 80GB HBM3, plain PyTorch, BF16; serving engines reach more"
)

# the input columns of `decode_columns`
INPUTS = (
    "params",
    "weight_bytes_per_param",
    "kv_bytes_per_token",
    "batch",
    "context_tokens",
    "peak_tflops",
    "memory_bandwidth_gbps",
    "tp",
    "tp_efficiency",
    "bandwidth_share",
    "compute_share",
)


def model_shape(params: float) -> dict[str, float]:
    """layers and d_model from the parameter count: 12 * L * d**2 = params, d = 128 L."""
    params = _validate.positive("params", params)
    layers = (params / (12 * D_MODEL_PER_LAYER**2)) ** (1 / 3)
    return {"layers": layers, "d_model": D_MODEL_PER_LAYER * layers}


def default_kv_bytes_per_token(params: float) -> float:
    """2 * layers * d_model * 2 bytes: full multi-head attention in BF16 (module docstring)."""
    shape = model_shape(params)
    return 2 * shape["layers"] * shape["d_model"] * KV_BYTES_PER_VALUE


def tp_efficiency_expr(tp: pl.Expr, has_link: pl.Expr) -> pl.Expr:
    """e ** log2(tp): e per doubling, with or without a GPU-to-GPU link."""
    per_doubling = pl.when(has_link).then(TENSOR_PARALLEL_EFFICIENCY_NVLINK).otherwise(
        TENSOR_PARALLEL_EFFICIENCY_PCIE
    )
    return per_doubling.pow(tp.log(2))


def tp_efficiency(tp: int, has_link: bool) -> float:
    per_doubling = TENSOR_PARALLEL_EFFICIENCY_NVLINK if has_link else TENSOR_PARALLEL_EFFICIENCY_PCIE
    return per_doubling ** math.log2(_validate.count("tp", tp))


def memory_needed_bytes(
    params: pl.Expr, weight_bytes: pl.Expr, kv_bytes_per_token: pl.Expr, batch: pl.Expr,
    longest_tokens: pl.Expr,
) -> pl.Expr:
    """Weights plus the KV cache of `batch` sequences at their longest."""
    return params * weight_bytes + batch * longest_tokens * kv_bytes_per_token


def min_tp_expr(needed_bytes: pl.Expr, gpu_memory_gib: pl.Expr) -> pl.Expr:
    """The fewest power-of-two GPUs whose usable memory holds `needed_bytes`."""
    gpus = needed_bytes / (gpu_memory_gib * BYTES_PER_GIB * SERVING_MEMORY_SHARE)
    return pl.lit(2.0).pow(gpus.log(2).ceil().clip(lower_bound=0))


def decode_columns() -> dict[str, pl.Expr]:
    """The roofline's outputs as expressions over the INPUTS columns, in dependency order
    (each may use the ones before it)."""
    c = pl.col
    flops_per_token = INFERENCE_FLOPS_PER_PARAM_PER_TOKEN * c("params")
    return {
        "weights_bytes": c("params") * c("weight_bytes_per_param"),
        "kv_cache_bytes": c("batch") * c("context_tokens") * c("kv_bytes_per_token"),
        "decode_memory_seconds": (c("weights_bytes") + c("kv_cache_bytes"))
        / (c("tp") * c("memory_bandwidth_gbps") * GIGA * c("bandwidth_share")),
        "decode_compute_seconds": c("batch")
        * flops_per_token
        / (c("tp") * c("peak_tflops") * TERA * c("compute_share")),
        "step_seconds": pl.max_horizontal("decode_memory_seconds", "decode_compute_seconds")
        / c("tp_efficiency"),
        "bound": pl.when(c("decode_memory_seconds") >= c("decode_compute_seconds"))
        .then(pl.lit("memory"))
        .otherwise(pl.lit("compute")),
        "tokens_per_second_per_user": 1 / c("step_seconds"),
        "output_tokens_per_second_per_gpu": c("batch") / c("step_seconds") / c("tp"),
        "prefill_seconds_per_token": flops_per_token
        / (c("tp") * c("peak_tflops") * TERA * c("compute_share"))
        / c("tp_efficiency"),
        "input_tokens_per_second_per_gpu": 1 / (c("prefill_seconds_per_token") * c("tp")),
    }


def with_decode(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` (the INPUTS columns) with every roofline output added."""
    for name, expr in decode_columns().items():
        frame = frame.with_columns(expr.alias(name))
    return frame


def cost_columns(rate: pl.Expr) -> dict[str, pl.Expr]:
    """USD per 1M output and input tokens at `rate` USD per GPU-hour."""
    c = pl.col
    return {
        "usd_per_1m_output_tokens": rate * c("tp") * c("step_seconds") / c("batch")
        / SECONDS_PER_HOUR
        * 1e6,
        "usd_per_1m_input_tokens": rate * c("tp") * c("prefill_seconds_per_token")
        / SECONDS_PER_HOUR
        * 1e6,
    }


def decode(
    params: float,
    *,
    peak_tflops: float,
    memory_bandwidth_gbps: float,
    batch: int = 1,
    context_tokens: float = 0.0,
    weight_bytes_per_param: float = WEIGHT_BYTES["bf16"],
    kv_bytes_per_token: float | None = None,
    tp: int = 1,
    has_link: bool = True,
    bandwidth_share: float = DECODE_BANDWIDTH_SHARE,
    compute_share: float = DECODE_COMPUTE_SHARE,
    rate_usd_per_gpu_hour: float | None = None,
) -> dict[str, Any]:
    """The roofline of one decode step (module docstring) for one replica, every input
    and output named; with a rate, the cost per 1M output and input tokens."""
    row = {
        "params": _validate.positive("params", params),
        "weight_bytes_per_param": _validate.positive("weight_bytes_per_param", weight_bytes_per_param),
        "kv_bytes_per_token": _validate.non_negative(
            "kv_bytes_per_token",
            default_kv_bytes_per_token(params) if kv_bytes_per_token is None else kv_bytes_per_token,
        ),
        "batch": float(_validate.count("batch", batch)),
        "context_tokens": _validate.non_negative("context_tokens", context_tokens),
        "peak_tflops": _validate.positive("peak_tflops", peak_tflops),
        "memory_bandwidth_gbps": _validate.positive("memory_bandwidth_gbps", memory_bandwidth_gbps),
        "tp": float(_validate.count("tp", tp)),
        "tp_efficiency": tp_efficiency(tp, has_link),
        "bandwidth_share": _validate.fraction("bandwidth_share", bandwidth_share),
        "compute_share": _validate.fraction("compute_share", compute_share),
    }
    frame = with_decode(pl.DataFrame([row]))
    if rate_usd_per_gpu_hour is not None:
        rate = _validate.non_negative("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour)
        frame = frame.with_columns(
            pl.lit(rate).alias("rate_usd_per_gpu_hour"),
            **cost_columns(pl.lit(rate)),
        )
    return frame.row(0, named=True)
