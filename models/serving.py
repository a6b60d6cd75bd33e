"""Serving cost on a roofline, for Python callers: decoding is bound by memory bandwidth at
small batches and by compute at large ones; the prompt (prefill) is compute-bound.

The rule itself lives in one place, the table macro ``serving_roofline`` of
``sql/macros/serving_roofline.sql`` (its header writes every formula out): the SQL cost
views call it there, and this module runs the same file in an in-memory DuckDB over a
data frame of cases (``roofline``), so ``estimate infer``, ``plan serve``, the report and
``mart_cost_per_token`` cannot disagree. In short, per decode step of one replica (``tp``
GPUs, tensor-parallel) serving ``batch`` sequences::

    step_seconds = max((weights + KV cache bytes) / (tp * bandwidth * bandwidth_share),
                       batch * 2 * params / (tp * peak FLOPs * compute_share)) / tp_efficiency
    output tokens/s per GPU = batch / step_seconds / tp;  tokens/s per user = 1 / step_seconds
    prefill (input) seconds per token = 2 * params / (tp * peak FLOPs * compute_share) / tp_eff.

The shares of peak (``decode_bandwidth_share`` 0.61, ``decode_compute_share`` 0.60) are
measured on an H100 80GB HBM3 with plain PyTorch (sql/seeds/README.md); serving engines
reach more. Worked: a 7B-shaped model (6.48B parameters, 12.95 GB of BF16 weights) on an
H100 SXM (3.35 TB/s, 989 TFLOPS) at batch 1: 12.95e9 / (3.35e12 * 0.61) = 6.34 ms per step,
158 tokens/s (measured 6.32 ms); at batch 256 the compute time 256 * 2 * 6.48e9 / (989e12 *
0.6) = 5.59 ms is still below the memory time, 6.4 ms per step, 40,000 tokens/s (measured
6.94 ms, 36,873 tokens/s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from models import _validate
from models.conventions import CONVENTIONS, DECODE_BANDWIDTH_SHARE, DECODE_COMPUTE_SHARE

MACRO = Path(__file__).resolve().parent.parent / "sql" / "macros" / "serving_roofline.sql"
PRECISIONS = ("fp32", "tf32", "bf16", "fp8")
SHARES_SOURCE = (
    "decode_bandwidth_share and decode_compute_share (sql/seeds/seed_conventions.csv): "
    "measured on an H100 80GB HBM3, plain PyTorch, BF16; serving engines reach more"
)

# the input columns of the macro (the nullable ones may hold null: see its header)
INPUTS = (
    "params",
    "precision",
    "weight_bytes_per_param",
    "kv_bytes_per_token",
    "batch",
    "context_tokens",
    "longest_tokens",
    "peak_tflops",
    "memory_bandwidth_gbps",
    "gpu_memory_gib",
    "tp",
    "has_link",
    "bandwidth_share",
    "compute_share",
    "rate_usd_per_gpu_hour",
    "prompt_tokens",
    "output_tokens",
)
# the columns it adds (an input column of one of these names is replaced)
OUTPUTS = (
    "memory_needed_gib",
    "min_tp",
    "tp_efficiency",
    "weights_bytes",
    "kv_cache_bytes",
    "decode_memory_seconds",
    "decode_compute_seconds",
    "step_seconds",
    "bound",
    "prefill_seconds_per_token",
    "tokens_per_second_per_user",
    "output_tokens_per_second_per_gpu",
    "input_tokens_per_second_per_gpu",
    "usd_per_1m_output_tokens",
    "usd_per_1m_input_tokens",
    "gpu_seconds_per_request",
    "tokens_per_second_per_gpu",
    "usd_per_request",
)
_ROW = "_roofline_row"


def roofline(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` (every INPUTS column; other columns pass through) with the roofline's
    columns (OUTPUTS) added, in the same row order: the macro serving_roofline run on it."""
    missing = [c for c in INPUTS if c not in frame.columns]
    if missing:
        raise ValueError(f"serving roofline: input columns missing: {', '.join(missing)}")
    cases = frame.drop([c for c in (*OUTPUTS, _ROW) if c in frame.columns]).with_row_index(_ROW)
    con = duckdb.connect(config={"threads": 1})
    try:
        con.register("seed_conventions", pl.DataFrame([CONVENTIONS]))
        con.execute(MACRO.read_text(encoding="utf-8"))
        con.register("roofline_cases", cases)
        out = con.sql("select * from serving_roofline('roofline_cases')").pl()
    finally:
        con.close()
    return out.sort(_ROW).drop(_ROW)


def decode(
    params: float,
    *,
    peak_tflops: float,
    memory_bandwidth_gbps: float,
    batch: int = 1,
    context_tokens: float = 0.0,
    precision: str = "bf16",
    weight_bytes_per_param: float | None = None,
    kv_bytes_per_token: float | None = None,
    tp: int | None = None,
    gpu_memory_gib: float | None = None,
    longest_tokens: float | None = None,
    has_link: bool = True,
    bandwidth_share: float = DECODE_BANDWIDTH_SHARE,
    compute_share: float = DECODE_COMPUTE_SHARE,
    rate_usd_per_gpu_hour: float | None = None,
    prompt_tokens: float | None = None,
    output_tokens: float | None = None,
) -> dict[str, Any]:
    """The roofline of one decode step of one replica (the macro's columns, every input
    and output named); `tp` None = the fewest GPUs of `gpu_memory_gib` that hold it (1
    without a memory size); with a rate, the cost per 1M output and input tokens; with
    `prompt_tokens` and `output_tokens`, the GPU-seconds and cost of one request."""
    if precision.lower() not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")

    def optional(name: str, value: float | None, check: Any) -> float | None:
        return None if value is None else check(name, value)

    row = {
        "params": _validate.positive("params", params),
        "precision": precision.lower(),
        "weight_bytes_per_param": optional(
            "weight_bytes_per_param", weight_bytes_per_param, _validate.positive
        ),
        "kv_bytes_per_token": optional(
            "kv_bytes_per_token", kv_bytes_per_token, _validate.non_negative
        ),
        "batch": float(_validate.count("batch", batch)),
        "context_tokens": _validate.non_negative("context_tokens", context_tokens),
        "longest_tokens": optional("longest_tokens", longest_tokens, _validate.non_negative),
        "peak_tflops": _validate.positive("peak_tflops", peak_tflops),
        "memory_bandwidth_gbps": _validate.positive("memory_bandwidth_gbps", memory_bandwidth_gbps),
        "gpu_memory_gib": optional("gpu_memory_gib", gpu_memory_gib, _validate.positive),
        "tp": None if tp is None else float(_validate.count("tp", tp)),
        "has_link": bool(has_link),
        "bandwidth_share": _validate.fraction("bandwidth_share", bandwidth_share),
        "compute_share": _validate.fraction("compute_share", compute_share),
        "rate_usd_per_gpu_hour": optional(
            "rate_usd_per_gpu_hour", rate_usd_per_gpu_hour, _validate.non_negative
        ),
        "prompt_tokens": optional("prompt_tokens", prompt_tokens, _validate.non_negative),
        "output_tokens": optional("output_tokens", output_tokens, _validate.positive),
    }
    schema = {name: pl.Float64 for name in INPUTS} | {"precision": pl.String, "has_link": pl.Boolean}
    return roofline(pl.DataFrame([row], schema=schema)).row(0, named=True)


def sizes(
    params: float, precision: str = "bf16", kv_bytes_per_token: float | None = None
) -> dict[str, float]:
    """The bytes per weight and per token of KV cache the macro takes for a model (the
    given KV size, else its default for the parameter count): for stating a plan's inputs."""
    step = decode(
        params, peak_tflops=1.0, memory_bandwidth_gbps=1.0, precision=precision,
        kv_bytes_per_token=kv_bytes_per_token,
    )
    return {k: step[k] for k in ("weight_bytes_per_param", "kv_bytes_per_token")}
