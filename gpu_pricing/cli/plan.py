"""`gpu-pricing plan train|serve`: the cheapest way to train or serve a model from current
rates. A thin layer over `gpu_pricing.api.plan_train` / `plan_serve` (the arithmetic is in
`gpu_pricing.plan`): parse the flags, print the plans. Nothing meets the constraints: one
line naming the closest miss and the cheapest plan's cost, exit 2.

Added to the root app by `gpu_pricing.cli`.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from common.errors import InvalidInput
from connectors.kit.page import utc_now
from gpu_pricing import api
from gpu_pricing import plan as planner
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, run, warehouse_path
from gpu_pricing.cli._output import emit_json, print_wrapped, table, wrapped_lines
from gpu_pricing.cli.costs import (
    BandwidthShareOpt,
    ComputeShareOpt,
    ContextTokensOpt,
    KvBytesOpt,
    OutputTokensOpt,
    PrecisionOpt,
    PromptTokensOpt,
    checked,
)
from gpu_pricing.plan import amount_label
from models import scaling, serving

plan_app = typer.Typer(
    no_args_is_help=True,
    help="The cheapest way to train or serve a model by a deadline, from current rates.",
)

_NUMBER = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\s*([kKmMbBtT])?\s*$")
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def parse_amount(flag: str, text: str | None) -> float | None:
    """'70e9', '70B', '2T', '1.5M', '500k' -> a positive number; anything else is exit 2."""
    if text is None:
        return None
    match = _NUMBER.match(text)
    if not match:
        raise InvalidInput(f"{flag} {text!r}: expected a number such as 70e9, 70B, 2T or 1.5M")
    mantissa, exponent, suffix = match.groups()
    try:
        value = float(f"{mantissa}e{exponent or 0}") * _SUFFIX.get((suffix or "").lower(), 1)
    except OverflowError:
        value = math.inf
    if not (value > 0 and math.isfinite(value)):
        raise InvalidInput(f"{flag} {text!r}: must be a finite number > 0")
    return value


def deadline_in_hours(hours: float | None, date_text: str | None) -> float | None:
    """--deadline-hours, or --deadline YYYY-MM-DD[THH:MM] (UTC; a date means its midnight)
    as hours from now."""
    if hours is not None and date_text is not None:
        raise InvalidInput("--deadline and --deadline-hours: give one, not both")
    if date_text is None:
        if hours is not None and not hours > 0:
            raise InvalidInput(f"--deadline-hours {hours!r}: must be > 0")
        return hours
    try:
        when = datetime.fromisoformat(date_text.strip())
    except ValueError:
        raise InvalidInput(
            f"--deadline {date_text!r}: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    now = utc_now()
    left = (when - now).total_seconds() / 3600
    if left <= 0:
        raise InvalidInput(f"--deadline {date_text}: is in the past (now {now:%Y-%m-%d %H:%M} UTC)")
    return left


ProvidersOpt = Annotated[
    str | None,
    typer.Option("--providers", help="comma-separated providers, any case (default: all)"),
]
RegionsOpt = Annotated[
    str | None, typer.Option("--regions", help="comma-separated regions (default: all)")
]
PricingListOpt = Annotated[
    str | None,
    typer.Option(
        "--pricing",
        help="comma-separated pricing models, any case or alias: on_demand, spot, "
        "reserved_1y, reserved_3y, capacity_block, flex, savings_plan_1y, savings_plan_3y "
        "(default: all)",
    ),
]
GpuNamesOpt = Annotated[
    str | None,
    typer.Option(
        "--gpu", help="comma-separated GPU names, any case or alias, e.g. 'H100 SXM,b200' (default: all)"
    ),
]


def _plan_lines(plan: dict[str, Any]) -> list[tuple[str, str]]:
    where = " ".join(str(plan[c]) for c in ("provider", "region", "zone") if plan[c])
    detail = f" ({plan['pricing_detail']})" if plan["pricing_detail"] else ""
    lines = [
        ("offer", f"{where} {plan['instance_type']}, {plan['pricing_model']}{detail}"),
        (
            "GPUs",
            f"{plan['gpus']:g} x {plan['gpu_name']} {plan['gpu_memory_gib']:g} GiB "
            f"({plan['instances']:g} instance(s)), MFU {plan['mfu']:.3f}",
        ),
        (
            "capacity",
            f"at most {plan['max_instances']:g} instance(s) in one cluster "
            f"({plan['capacity_note']})",
        ),
        ("rate", f"{plan['rate_usd_per_gpu_hour']:.4f} USD/GPU-hour"),
        ("GPU-hours", f"{plan['gpu_hours']:,.0f} (billed {plan['billed_gpu_hours']:,.0f})"),
        (
            "wall clock",
            f"{plan['wall_clock_hours']:,.1f} h ({plan['wall_clock_hours'] / 24:,.1f} days)",
        ),
        ("cost", f"{plan['cost_usd']:,.0f} USD"),
    ]
    if plan["pricing_model"] == "spot":
        lines.append(
            (
                "spot overhead",
                f"+{plan['expected_overhead_hours']:,.1f} h (x{plan['time_multiplier']:.4f}), "
                f"{plan['expected_preemptions']:,.1f} expected preemptions at "
                f"{plan['preemption_rate_per_hour']:.4g}/h for the job "
                f"({plan['preemption_rate_source']})",
            )
        )
    if plan["min_term_hours"] is not None:
        lines.append(("commitment", f"{plan['min_term_hours']:,.0f} h minimum term per GPU"))
    return lines


def _print_lines(pairs: list[tuple[str, str]]) -> None:
    print(wrapped_lines(pairs))


def _frontier_table(frontier: pl.DataFrame) -> str:
    return table(
        frontier.select(
            "provider",
            "region",
            "instance_type",
            pl.col("gpu_name").alias("gpu"),
            pl.col("gpus").cast(pl.Int64),
            pl.col("max_instances").cast(pl.Int64).alias("max_inst"),
            pl.col("capacity_source").alias("capacity"),
            pl.col("pricing_model").alias("pricing"),
            pl.col("rate_usd_per_gpu_hour").round(4).alias("usd/gpu-h"),
            pl.col("mfu").round(3).cast(pl.String),
            pl.col("wall_clock_hours").round(1).cast(pl.String).alias("hours"),
            pl.col("cost_usd").round(0).cast(pl.Int64),
        )
    )


def _capacity_limits(flag: int | None) -> dict[str, int] | None:
    """The configured instance limits: gpu-pricing.toml's [plan] max_instances and
    [plan.capacity], with --max-instances for every offer over both."""
    from services.config import load

    limits = load().plan.limits
    if flag is not None:
        limits = {"*": flag}
    return limits or None


@plan_app.command("train")
def plan_train(
    params: Annotated[str | None, typer.Option("--params", help="parameters: 70e9 or 70B")] = None,
    tokens: Annotated[str | None, typer.Option("--tokens", help="tokens: 2e12 or 2T")] = None,
    compute_flops: Annotated[
        str | None,
        typer.Option("--compute-flops", help="a compute budget in FLOPs, split by --allocation"),
    ] = None,
    compute_usd: Annotated[
        str | None,
        typer.Option(
            "--compute-usd",
            help="a compute budget in USD: the FLOPs it buys on the cheapest plan per FLOP",
        ),
    ] = None,
    allocation: Annotated[
        str,
        typer.Option(
            "--allocation",
            help="20-tokens-per-param (C = 6ND, D = 20N) | power-law-fit (its 6ND is 2.65C)",
        ),
    ] = scaling.DEFAULT_ALLOCATION,
    deadline_hours: Annotated[
        float | None, typer.Option("--deadline-hours", help="finish within this many hours")
    ] = None,
    deadline: Annotated[
        str | None, typer.Option("--deadline", help="finish by YYYY-MM-DD[THH:MM] UTC")
    ] = None,
    budget_usd: Annotated[
        str | None, typer.Option("--budget-usd", help="spend at most this, e.g. 1.5M")
    ] = None,
    min_gpus: Annotated[
        int, typer.Option("--min-gpus", min=1, help="fewest GPUs a plan may use")
    ] = 1,
    max_gpus: Annotated[
        int, typer.Option("--max-gpus", min=1, help="most GPUs a plan may use")
    ] = planner.DEFAULT_MAX_GPUS,
    providers: ProvidersOpt = None,
    regions: RegionsOpt = None,
    pricing: PricingListOpt = None,
    gpu: GpuNamesOpt = None,
    efficiency_curve: Annotated[
        Path | None,
        typer.Option(
            "--efficiency-curve",
            help="CSV gpus,mfu[,gpu_name] (default: a curve per GPU family, see docs/costs.md)",
        ),
    ] = None,
    precision: PrecisionOpt = "bf16",
    checkpoint_interval_hours: Annotated[
        float, typer.Option("--checkpoint-interval-hours", help="spot: hours between checkpoints")
    ] = 1.0,
    checkpoint_overhead: Annotated[
        float, typer.Option("--checkpoint-overhead", help="spot: extra time share for checkpoints")
    ] = 0.05,
    restart_hours: Annotated[
        float, typer.Option("--restart-hours", help="spot: hours lost per preemption besides c/2")
    ] = 0.0,
    preemption_rate: Annotated[
        float | None,
        typer.Option(
            "--preemption-rate",
            help="spot: preemptions per instance-hour for every spot offer "
            "(default: the published bucket, else the worst published one)",
        ),
    ] = None,
    reserved_billing: Annotated[
        str,
        typer.Option(
            "--reserved-billing",
            help="term: a reservation bills its whole term (default) | used: only hours used",
        ),
    ] = "term",
    bytes_per_param: Annotated[
        float, typer.Option("--bytes-per-param", help="memory per parameter for model states")
    ] = planner.DEFAULT_BYTES_PER_PARAM,
    max_instances: Annotated[
        int | None,
        typer.Option(
            "--max-instances",
            min=1,
            help="instances of one offer a plan may use, for every offer (default: the "
            "source's published capacity, [plan.capacity] in gpu-pricing.toml, else an "
            "assumption per provider class; see docs/costs.md)",
        ),
    ] = None,
    warehouse: WarehouseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The cheapest plan to train a model (6 * params * tokens FLOPs) meeting a deadline and
    budget across every current offer and GPU count, the fastest within budget, and the
    cost vs time frontier."""

    def body() -> None:
        if allocation not in scaling.ALLOCATIONS:
            raise InvalidInput(
                f"--allocation {allocation!r}: expected one of {', '.join(scaling.ALLOCATIONS)}"
            )
        result = checked(
            api.plan_train,
            params=parse_amount("--params", params),
            tokens=parse_amount("--tokens", tokens),
            compute_flops=parse_amount("--compute-flops", compute_flops),
            compute_usd=parse_amount("--compute-usd", compute_usd),
            allocation=allocation,
            deadline_hours=deadline_in_hours(deadline_hours, deadline),
            budget_usd=parse_amount("--budget-usd", budget_usd),
            min_gpus=min_gpus,
            max_gpus=max_gpus,
            providers=providers,
            regions=regions,
            pricing=pricing,
            gpu_names=gpu,
            efficiency_curve=efficiency_curve,
            precision=precision,
            checkpoint_interval_hours=checkpoint_interval_hours,
            checkpoint_overhead=checkpoint_overhead,
            restart_hours=restart_hours,
            preemption_rate=preemption_rate,
            reserved_billing=reserved_billing,
            bytes_per_param=bytes_per_param,
            max_instances=_capacity_limits(max_instances),
            warehouse=warehouse_path(warehouse),
        )
        doc = result.to_dict()
        doc["inputs"]["deadline"] = deadline
        if json_out:
            emit_json(doc)
            return
        inputs = doc["inputs"]
        limits = [
            f"deadline {inputs['deadline_hours']:,.1f} h" if inputs["deadline_hours"] else "",
            f"budget {inputs['budget_usd']:,.0f} USD" if inputs["budget_usd"] else "",
        ]
        print_wrapped(
            f"Training {amount_label(inputs['params'])} parameters on {amount_label(inputs['tokens'])} tokens "
            f"({inputs['flops']:.4g} FLOPs); {doc['feasible']:,} of {doc['candidates']:,} "
            f"candidate plans meet the constraints{': ' if any(limits) else ''}"
            f"{', '.join(x for x in limits if x)}"
        )
        print("\nChosen (cheapest meeting the constraints):")
        _print_lines(_plan_lines(doc["chosen"]))
        print("\nFastest within budget:")
        _print_lines(_plan_lines(doc["fastest_within_budget"]))
        print(f"\nFrontier (cost vs wall clock, {result.frontier.height} plans):\n")
        print(_frontier_table(result.frontier))

    run(body)


@plan_app.command("serve")
def plan_serve(
    params: Annotated[str, typer.Option("--params", help="parameters: 70e9 or 70B")],
    tokens_per_month: Annotated[
        str | None, typer.Option("--tokens-per-month", help="tokens served per month, e.g. 50B")
    ] = None,
    requests_per_month: Annotated[
        str | None,
        typer.Option(
            "--requests-per-month", help="requests per month, e.g. 10M (of prompt + output tokens)"
        ),
    ] = None,
    prompt_tokens: PromptTokensOpt = 1024.0,
    output_tokens: OutputTokensOpt = 256.0,
    context_tokens: ContextTokensOpt = None,
    batch: Annotated[
        int | None,
        typer.Option(
            "--batch",
            min=1,
            help="sequences decoded together per replica (default: the cheapest meeting "
            "--user-tokens-per-second)",
        ),
    ] = None,
    user_tokens_per_second: Annotated[
        float,
        typer.Option(
            "--user-tokens-per-second",
            help="latency bound: tokens per second each user gets at least",
        ),
    ] = planner.DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER,
    kv_bytes_per_token: KvBytesOpt = None,
    bandwidth_share: BandwidthShareOpt = serving.DECODE_BANDWIDTH_SHARE,
    compute_share: ComputeShareOpt = serving.DECODE_COMPUTE_SHARE,
    peak_to_average: Annotated[
        float, typer.Option("--peak-to-average", help="peak load / average load, >= 1")
    ] = 2.0,
    allow_spot: Annotated[
        bool,
        typer.Option("--allow-spot", help="consider spot capacity (preemptions drop requests)"),
    ] = False,
    budget_usd: Annotated[
        str | None, typer.Option("--budget-usd", help="at most this per month")
    ] = None,
    providers: ProvidersOpt = None,
    regions: RegionsOpt = None,
    pricing: PricingListOpt = None,
    gpu: GpuNamesOpt = None,
    precision: PrecisionOpt = "bf16",
    limit: Annotated[int, typer.Option("--limit", min=1, help="plans listed")] = 10,
    warehouse: WarehouseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The cheapest GPU, provider and pricing mix (reserved base + on-demand peak, ...) to
    serve a monthly token volume, with the cost per 1M tokens."""

    def body() -> None:
        result = checked(
            api.plan_serve,
            params=parse_amount("--params", params),
            tokens_per_month=parse_amount("--tokens-per-month", tokens_per_month),
            requests_per_month=parse_amount("--requests-per-month", requests_per_month),
            prompt_tokens=prompt_tokens,
            output_tokens=output_tokens,
            context_tokens=context_tokens,
            batch=batch,
            min_tokens_per_second_per_user=user_tokens_per_second,
            kv_bytes_per_token=kv_bytes_per_token,
            bandwidth_share=bandwidth_share,
            compute_share=compute_share,
            peak_to_average=peak_to_average,
            allow_spot=allow_spot,
            budget_usd=parse_amount("--budget-usd", budget_usd),
            providers=providers,
            regions=regions,
            pricing=pricing,
            gpu_names=gpu,
            precision=precision,
            warehouse=warehouse_path(warehouse),
        )
        doc = result.to_dict(limit)
        if json_out:
            emit_json(doc)
            return
        inputs, best = doc["inputs"], doc["chosen"]
        print_wrapped(
            f"Serving {amount_label(inputs['tokens_per_month'])} tokens per month with "
            f"{amount_label(inputs['params'])} parameters ({inputs['prompt_tokens']:g} prompt + "
            f"{inputs['output_tokens']:g} output tokens per request, context "
            f"{inputs['context_tokens']:g}): at least {inputs['min_tokens_per_second_per_user']:g} "
            f"tokens/s per user, peak/average {inputs['peak_to_average']:g}, "
            f"{inputs['bandwidth_share']:g} of peak bandwidth and {inputs['compute_share']:g} of "
            "peak FLOPs reached"
        )
        burst = (
            f" + {best['burst_gpu_hours_per_month']:,.0f} GPU-hours/month "
            f"{best['burst_pricing_model']} ({best['burst_region']} {best['burst_instance_type']}, "
            f"{best['burst_rate_usd_per_gpu_hour']:.4f} USD/GPU-hour)"
            if best["burst_pricing_model"]
            else ""
        )
        print("\nChosen (cheapest):")
        _print_lines(
            [
                ("strategy", best["strategy"]),
                ("GPU", f"{best['gpu_name']} {best['gpu_memory_gib']:g} GiB on {best['provider']}"),
                (
                    "fleet",
                    f"{best['base_gpus']:g} {best['base_pricing_model']} "
                    f"({best['base_region']} {best['base_instance_type']}, "
                    f"{best['base_rate_usd_per_gpu_hour']:.4f} USD/GPU-hour){burst}",
                ),
                ("peak fleet", f"{best['peak_gpus']:g} GPUs"),
                (
                    "replica",
                    f"{best['gpus_per_replica']:g} GPU(s) (tensor parallel, efficiency "
                    f"{best['tp_efficiency']:.3g}), batch {best['batch']:g}",
                ),
                (
                    "decode step",
                    f"{best['step_seconds'] * 1e3:,.2f} ms, {best['bound']}-bound "
                    f"({best['memory_bandwidth_gbps'] / 1e3:g} TB/s per GPU): "
                    f"{best['tokens_per_second_per_user']:,.1f} tokens/s per user",
                ),
                (
                    "throughput",
                    f"{best['output_tokens_per_second_per_gpu']:,.0f} output and "
                    f"{best['input_tokens_per_second_per_gpu']:,.0f} input tokens/s per GPU; "
                    f"{best['tokens_per_second_per_gpu']:,.0f} tokens/s per GPU for this mix",
                ),
                (
                    "token cost",
                    f"{best['usd_per_1m_input_tokens']:.4f} USD per 1M input, "
                    f"{best['usd_per_1m_output_tokens']:.4f} USD per 1M output tokens",
                ),
                ("monthly cost", f"{best['monthly_cost_usd']:,.2f} USD"),
                ("per 1M tokens", f"{best['cost_per_1m_tokens_usd']:.4f} USD"),
            ]
            + (
                [("commitment", f"{best['commitment_usd']:,.0f} USD over the term")]
                if best["commitment_usd"] is not None
                else []
            )
        )
        print(f"\nCheapest {min(limit, result.plans.height)} plans:\n")
        print(
            table(
                result.plans.head(limit).select(
                    "strategy",
                    "gpu_name",
                    "provider",
                    pl.col("batch").cast(pl.Int64),
                    pl.col("gpus_per_replica").cast(pl.Int64).alias("tp"),
                    "bound",
                    pl.col("tokens_per_second_per_user").round(1).cast(pl.String).alias(
                        "user_tok_s"
                    ),
                    pl.col("peak_gpus").cast(pl.Int64),
                    pl.col("base_gpus").cast(pl.Int64),
                    pl.col("burst_gpu_hours_per_month").round(0).cast(pl.Int64).alias(
                        "burst_gpu_h/mo"
                    ),
                    pl.col("monthly_cost_usd").round(2).cast(pl.String).alias("usd/month"),
                    pl.col("cost_per_1m_tokens_usd").round(4).cast(pl.String).alias(
                        "usd/1M_tok"
                    ),
                )
            )
        )

    run(body)
