"""Does a model fit in GPU memory? Rules of thumb for training and serving.

Training (mixed precision with Adam), per parameter (Rajbhandari et al. 2020, "ZeRO:
Memory Optimizations Toward Training Trillion Parameter Models", section 3.1):
2 bytes of BF16/FP16 weights + 2 bytes of gradients + 12 bytes of optimizer state (FP32
master weights, momentum and variance) = **16 bytes per parameter**. Activations, buffers
and fragmentation come on top, so this is a lower bound: a model that does not fit at 16
bytes per parameter cannot be trained on those GPUs, however it is sharded (ZeRO-3 / FSDP
spread these 16 bytes over the GPUs of the job).

Serving: **2 bytes per parameter** (BF16/FP16 weights) plus **20% headroom** for the KV
cache and activations (an assumption: the KV cache grows with batch size and context
length; 20% is a modest batch at a few thousand tokens of context).

    required_gib = params * bytes_per_param * (1 + headroom) / 2**30
    min_gpus     = ceil(required_gib / gpu_memory_gib)

``gpu_memory_gib`` is the marketed size per GPU as the warehouse stores it (GiB). The SQL
twins (mart_cost_per_token, the cost_per_token(...) macro) use the same constants.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from models import _validate
from models.conventions import (  # 16, 2 and 0.2: sql/seeds/seed_conventions.csv
    BYTES_PER_GIB,
    SERVING_BYTES_PER_PARAM,
    SERVING_HEADROOM,
    TRAINING_BYTES_PER_PARAM,
)

GIB = BYTES_PER_GIB

RULES = {
    "training": (
        TRAINING_BYTES_PER_PARAM,
        0.0,
        "16 bytes/parameter: BF16 weights + gradients + FP32 Adam states (ZeRO paper, "
        "section 3.1); activations not included, so a lower bound",
    ),
    "serving": (
        SERVING_BYTES_PER_PARAM,
        SERVING_HEADROOM,
        "2 bytes/parameter of BF16 weights + 20% headroom for the KV cache (assumed)",
    ),
}


def required_gib(workload: str, params: float) -> float:
    """GiB of GPU memory ``params`` need for ``workload`` ('training' | 'serving')."""
    bytes_per_param, headroom, _ = RULES[workload]
    return _validate.positive("params", params) * bytes_per_param * (1 + headroom) / GIB


def min_gpus_expr(workload: str, params: float, gpu_memory_gib: pl.Expr) -> pl.Expr:
    """The fewest GPUs of ``gpu_memory_gib`` (a column) whose memory holds the model: the
    one statement of the rule (`min_gpus` evaluates it for one size)."""
    needed = (pl.lit(required_gib(workload, params)) / gpu_memory_gib).ceil()
    return pl.max_horizontal(pl.lit(1.0), needed).cast(pl.Int64)


def min_gpus(workload: str, params: float, gpu_memory_gib: float) -> int:
    """The fewest GPUs of ``gpu_memory_gib`` whose memory holds the model."""
    memory = _validate.positive("gpu_memory_gib", gpu_memory_gib)
    return int(pl.select(min_gpus_expr(workload, params, pl.lit(memory))).item())


def check(workload: str, params: float, gpu_memory_gib: float, gpus: float | None) -> dict[str, Any]:
    """The memory check of an estimate: what is needed, the fewest GPUs that hold it, and
    whether ``gpus`` GPUs do (None when the GPU count is not known)."""
    needed = min_gpus(workload, params, gpu_memory_gib)
    return {
        "workload": workload,
        "rule": RULES[workload][2],
        "required_gib": required_gib(workload, params),
        "gpu_memory_gib": gpu_memory_gib,
        "min_gpus": needed,
        "gpus": gpus,
        "fits": None if gpus is None else needed <= gpus,
    }
