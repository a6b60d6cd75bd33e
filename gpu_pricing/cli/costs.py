"""`gpu-pricing estimate train|infer` and `gpu-pricing breakeven onprem|spot`: options,
rendering and exit codes over the engine (`gpu_pricing.api`: estimate_train,
estimate_infer, breakeven_onprem, breakeven_spot), which finds the inputs (rates from the
warehouse's current offers, never a made-up rate; peaks and reference capex from
`dim_gpus`) and runs the formulas of models/. `--json` prints what the API returns.

Invalid inputs (MFU outside (0, 1], negative tokens, an unknown GPU, a preemption rate at
which the run never finishes, ...) raise `InvalidInput` naming the flag: exit 2 through
`gpu_pricing.cli._common.run`. Added to the root app by `gpu_pricing.cli`.

This module holds what both command groups share (the options, the flag of each input,
the offer and rate lines); the commands are `gpu_pricing.cli.estimate` and
`gpu_pricing.cli.breakeven`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from common.errors import InvalidInput
from gpu_pricing.cli._output import wrapped_lines

# models/ names its inputs; the user typed flags. Errors name the flag.
FLAG_FOR_INPUT = {
    "params": "--params",
    "tokens": "--tokens",
    "requests": "--requests",
    "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens",
    "batch": "--batch",
    "context_tokens": "--context-tokens",
    "kv_bytes_per_token": "--kv-bytes-per-token",
    "bandwidth_share": "--bandwidth-share",
    "compute_share": "--compute-share",
    "mfu": "--mfu",
    "gpus": "--gpus",
    "utilization": "--utilization",
    "rate_usd_per_gpu_hour": "--rate",
    "capex_usd": "--capex",
    "residual_value_usd": "--residual-value",
    "power_kw": "--power-kw",
    "usd_per_kwh": "--usd-per-kwh",
    "spot_rate_usd_per_hour": "--spot-rate",
    "on_demand_rate_usd_per_hour": "--on-demand-rate",
    "checkpoint_overhead": "--checkpoint-overhead",
    "checkpoint_interval_hours": "--checkpoint-interval-hours",
    "preemption_rate_per_hour": "--preemption-rate",
    "restart_hours": "--restart-hours",
}

GpuOpt = Annotated[
    str,
    typer.Option(
        "--gpu",
        help="GPU as in dim_gpus, any case; memory and form factor may ride along: "
        "H100, 'H100 SXM', 'h100 pcie', A100-80GB",
    ),
]
MemoryOpt = Annotated[
    float | None, typer.Option("--memory", help="GPU memory in GiB, e.g. 80 (default: any)")
]
PricingOpt = Annotated[
    str,
    typer.Option(
        "--pricing",
        help="on_demand | spot | reserved_1y | reserved_3y | capacity_block | flex | "
        "savings_plan_1y | savings_plan_3y",
    ),
]
RateOpt = Annotated[
    float | None,
    typer.Option("--rate", help="USD per GPU-hour (default: the cheapest current offer)"),
]
IncludeIllustrativeOpt = Annotated[
    bool,
    typer.Option(
        "--include-illustrative",
        help="also use illustrative or unverified prices (see `provenance`), marked as such",
    ),
]
PrecisionOpt = Annotated[
    str,
    typer.Option(
        "--precision",
        help="peak FLOPs column of dim_gpus: fp32|tf32|bf16|fp8; fp16 = the bf16 peak",
    ),
]

# the serving inputs `estimate infer` and `plan serve` share (one roofline: models/serving.py)
PromptTokensOpt = Annotated[
    float, typer.Option("--prompt-tokens", min=0, help="input tokens per request (prefill)")
]
OutputTokensOpt = Annotated[
    float, typer.Option("--output-tokens", min=1, help="generated tokens per request")
]
ContextTokensOpt = Annotated[
    float | None,
    typer.Option(
        "--context-tokens",
        min=0,
        help="KV cache length read per decode step (default: prompt + half the output)",
    ),
]
KvBytesOpt = Annotated[
    float | None,
    typer.Option(
        "--kv-bytes-per-token",
        help="KV cache bytes per token (default: full attention of the model's shape; "
        "Llama 3 70B with grouped-query attention: 327680)",
    ),
]
BandwidthShareOpt = Annotated[
    float,
    typer.Option(
        "--bandwidth-share",
        help="share of peak memory bandwidth a decode step reaches (the default was "
        "measured on an H100 with plain PyTorch; serving engines reach more)",
    ),
]
ComputeShareOpt = Annotated[
    float,
    typer.Option(
        "--compute-share",
        help="share of peak FLOPs a compute-bound step or prefill reaches (the default "
        "was measured on the same H100)",
    ),
]


def checked(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a models/ formula; a ValueError naming one of its inputs names the flag too."""
    try:
        return fn(*args, **kwargs)
    except ValueError as exc:
        message = str(exc)
        name = message.split(" ", 1)[0]
        flag = FLAG_FOR_INPUT.get(name)
        raise InvalidInput(f"{flag}: {message}" if flag else message) from None


def describe_offer(offer: dict[str, Any]) -> str:
    where = " ".join(str(offer[c]) for c in ("provider", "region", "zone") if offer[c])
    # the price's own date (what its source states), then when we first saw it
    seen = offer["first_seen_at"].strftime("%Y-%m-%d %H:%M UTC")
    stated = offer["source_effective_at"]
    as_of = (
        f"{stated:%Y-%m-%d} per its source, first seen {seen}"
        if stated is not None
        else f"{seen} (first seen; the source states no date)"
    )
    detail = f" ({offer['pricing_detail']})" if offer["pricing_detail"] else ""
    # is_verified: the provenance rule of int_provenances, as the offer's own column
    mark = f" [{offer['provenance'].upper()} price]" if offer["is_verified"] is False else ""
    return (
        f"{where} {offer['instance_type']}, {offer['pricing_model']}{detail}, "
        f"as of {as_of}{mark}"
    )


def print_lines(pairs: list[tuple[str, str]]) -> None:
    print(wrapped_lines(pairs))


def usd(value: float) -> str:
    return f"{value:,.2f} USD" if value >= 100 else f"{value:.4g} USD"


def rate_line(doc: dict[str, Any]) -> str:
    rate = f"{doc['rate_usd_per_gpu_hour']:.4f} USD/GPU-hour"
    return f"{rate} (--rate)" if doc["offer"] is None else f"{rate}: {describe_offer(doc['offer'])}"


