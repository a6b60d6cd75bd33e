"""Inference cost from model size, tokens served, hardware peak and utilisation.

The arithmetic (Kaplan et al. 2020, §2.1: a forward pass costs about 2 FLOPs per
parameter per token)::

    flops                  = 2 * params * tokens_per_request * requests
    gpu_seconds            = flops / (utilization * peak_tflops * 1e12)
    cost_usd               = gpu_seconds / 3600 * rate_usd_per_gpu_hour
    cost_per_request_usd   = cost_usd / requests
    cost_per_1k_tokens_usd = cost_usd / (tokens_per_request * requests) * 1000

``utilization`` is the fraction of peak FLOPs actually achieved while serving. Decoding
is memory-bandwidth bound at small batch sizes, so realistic values are far below
training MFU (0.05-0.4 depending on batch size); the number is an input, stated in the
output, never a hidden default. Prompt and generated tokens both count in
``tokens_per_request``; attention over the KV cache is left out as in the 2N rule.
"""

from __future__ import annotations

from models import _validate
from models.conventions import INFERENCE_FLOPS_PER_PARAM_PER_TOKEN
from models.costs import SECONDS_PER_HOUR, TERA

FLOPS_PER_PARAM_PER_TOKEN = INFERENCE_FLOPS_PER_PARAM_PER_TOKEN  # 2, seed_conventions


def inference_flops_per_token(params: float) -> float:
    """``2 * params`` FLOPs per token."""
    return FLOPS_PER_PARAM_PER_TOKEN * _validate.positive("params", params)


def inference_flops(params: float, tokens: float) -> float:
    """FLOPs to process ``tokens`` tokens."""
    return inference_flops_per_token(params) * _validate.positive("tokens", tokens)


def gpu_seconds_for_flops(flops: float, peak_tflops: float, utilization: float) -> float:
    """GPU-seconds to execute ``flops`` at ``utilization`` of ``peak_tflops`` per GPU."""
    flops = _validate.positive("flops", flops)
    peak_flops_per_second = _validate.positive("peak_tflops", peak_tflops) * TERA
    utilization = _validate.fraction("utilization", utilization)
    return flops / (utilization * peak_flops_per_second)


def estimate_inference(
    params: float,
    tokens_per_request: float,
    requests: float,
    peak_tflops: float,
    utilization: float,
    rate_usd_per_gpu_hour: float,
) -> dict[str, float]:
    """Every input and intermediate of an inference estimate, for the CLI and reports."""
    tokens_per_request = _validate.positive("tokens_per_request", tokens_per_request)
    requests = _validate.positive("requests", requests)
    rate = _validate.non_negative("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour)
    tokens = tokens_per_request * requests
    flops = inference_flops(params, tokens)
    gpu_seconds = gpu_seconds_for_flops(flops, peak_tflops, utilization)
    cost_usd = gpu_seconds / SECONDS_PER_HOUR * rate
    return {
        "params": float(params),
        "tokens_per_request": tokens_per_request,
        "requests": requests,
        "tokens": tokens,
        "peak_tflops": float(peak_tflops),
        "utilization": float(utilization),
        "rate_usd_per_gpu_hour": rate,
        "flops_per_token": inference_flops_per_token(params),
        "flops": flops,
        "gpu_seconds": gpu_seconds,
        "gpu_hours": gpu_seconds / SECONDS_PER_HOUR,
        "cost_usd": cost_usd,
        "cost_per_request_usd": cost_usd / requests,
        "cost_per_1k_tokens_usd": cost_usd / tokens * 1e3,
        "cost_per_1m_tokens_usd": cost_usd / tokens * 1e6,
    }
