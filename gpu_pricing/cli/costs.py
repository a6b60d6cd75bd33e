"""`gpu-pricing estimate train|infer` and `gpu-pricing breakeven onprem|spot`: options,
rendering and exit codes over the engine (`gpu_pricing.api`: estimate_train,
estimate_infer, breakeven_onprem, breakeven_spot), which finds the inputs (rates from the
warehouse's current offers, never a made-up rate; peaks and reference capex from
`dim_gpus`) and runs the formulas of models/. `--json` prints what the API returns.

Invalid inputs (MFU outside (0, 1], negative tokens, an unknown GPU, a preemption rate at
which the run never finishes, ...) raise `InvalidInput` naming the flag: exit 2 through
`gpu_pricing.cli._common.run`. Added to the root app by `gpu_pricing.cli`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import polars as pl
import typer

from common.errors import InvalidInput
from gpu_pricing import api
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, run, warehouse_path
from gpu_pricing.cli._output import emit_json, print_wrapped, table, wrapped_lines
from models import breakeven
from models.conventions import (
    DEFAULT_MFU,
    HOST_CAPEX_SHARE,
    HOST_WATTS_PER_GPU,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
    PUE,
    SERVING_UTILIZATION,
)
from services import names

estimate_app = typer.Typer(
    no_args_is_help=True, help="Training and inference cost from current rates or --rate."
)
breakeven_app = typer.Typer(
    no_args_is_help=True, help="Buy vs rent, and spot vs on-demand with checkpointing."
)

ALTERNATIVES = 5
# what each alternative offer carries besides the offer itself
ALTERNATIVE_TOTALS = (
    "peak_tflops",
    "rate_usd_per_gpu_hour",
    "gpu_hours",
    "cost_usd",
    "cost_per_request_usd",
    "cost_per_1m_tokens_usd",
)

# models/ names its inputs; the user typed flags. Errors name the flag.
FLAG_FOR_INPUT = {
    "params": "--params",
    "tokens": "--tokens",
    "tokens_per_request": "--tokens-per-request",
    "requests": "--requests",
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


def _count(value: float) -> str:
    """70e9 -> '70B', 2e12 -> '2T', 2048 -> '2048'."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def _usd(value: float) -> str:
    return f"{value:,.2f} USD" if value >= 100 else f"{value:.4g} USD"


def _alternatives_table(alternatives: list[dict[str, Any]], total_key: str) -> str:
    def number(value: float | None, spec: str) -> str:
        return "" if value is None else format(value, spec)

    return table(
        pl.DataFrame(
            [
                {
                    "provider": a["provider"],
                    "region": a["region"],
                    "zone": a["zone"] or "",
                    "instance_type": a["instance_type"],
                    "gib": number(a["gpu_memory_gib"], "g"),
                    "gpus": number(a["gpu_count"], "g"),
                    "usd/gpu-h": number(a["price_usd_per_gpu_hour"], ".4f"),
                    total_key: number(a[total_key], ",.2f"),
                    "fits": {True: "yes", False: "NO"}.get(a.get("fits_memory"), ""),
                    "detail": a["pricing_detail"] or "",
                }
                for a in alternatives
            ]
        )
    )


def estimate_document(frame: pl.DataFrame, typed_precision: str | None) -> dict[str, Any]:
    """The --json document of an estimate: the API's first row (the cheapest total cost
    among offers that hold the model) as the headline, with its offer and memory check,
    and the next rows as alternatives."""
    rows = frame.head(1 + ALTERNATIVES).to_dicts()
    best = rows[0]
    offer = api._offer(best)
    memory = {
        "workload": "training" if "tokens_per_request" not in best else "serving",
        "required_gib": best["required_gib"],
        "gpu_memory_gib": best["gpu_memory_gib"],
        "min_gpus": best["min_gpus"],
        "gpus": best["gpus"],
        "fits": best["fits_memory"],
    }
    skip = {*api.OFFER_COLUMNS, "cheapest_order", "required_gib", "min_gpus", "fits_memory"}
    return {
        "gpu": best["gpu_name"],
        "gpu_memory_gib": best["gpu_memory_gib"] if offer is None else None,
        "gpu_variant": best["gpu_variant"] if offer is None else None,
        "pricing_model": best["pricing_model"],
        "precision_note": names.PRECISION_NOTE if typed_precision else None,
        **{k: v for k, v in best.items() if k not in skip},
        "offer": offer,
        "memory_fit": memory | {"rule": _fit_rule(memory["workload"])},
        "alternatives": [
            {
                **api._offer(r),
                **{k: r[k] for k in ALTERNATIVE_TOTALS if k in r},
                "fits_memory": r["fits_memory"],
                "min_gpus": r["min_gpus"],
            }
            for r in rows[1:]
        ],
    }


def _fit_rule(workload: str) -> str:
    from models import memory_fit

    return memory_fit.RULES[workload][2]


@estimate_app.command("train")
def estimate_train(
    params: Annotated[str, typer.Option("--params", help="model parameters: 70e9 or 70B")],
    tokens: Annotated[str, typer.Option("--tokens", help="training tokens: 2e12 or 2T")],
    gpu: GpuOpt,
    warehouse: WarehouseOpt = None,
    memory: MemoryOpt = None,
    mfu: Annotated[
        float, typer.Option("--mfu", help="model FLOPs utilisation, (0, 1]")
    ] = DEFAULT_MFU,
    gpus: Annotated[
        int | None,
        typer.Option(
            "--gpus",
            help="GPUs sharing the run (default: the fewest whose memory holds the model)",
        ),
    ] = None,
    pricing: PricingOpt = "on_demand",
    rate: RateOpt = None,
    precision: PrecisionOpt = "bf16",
    include_illustrative: IncludeIllustrativeOpt = False,
    full_recompute: Annotated[
        bool, typer.Option("--full-recompute", help="report HFU under full recomputation")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Training cost: 6 * params * tokens FLOPs at --mfu of each offer's peak. The answer
    is the cheapest total cost among offers whose GPUs hold the model (plus the next
    alternatives), or the cost at --rate."""

    def body() -> None:
        choice = names.gpu_and_memory(gpu, memory)
        typed_precision = names.precision(precision)[1]
        frame = checked(
            api.estimate_train,
            params,
            tokens,
            choice,
            mfu=mfu,
            gpus=gpus,
            pricing=pricing,
            rate=rate,
            precision=precision,
            include_illustrative=include_illustrative,
            full_recompute=full_recompute,
            warehouse=warehouse_path(warehouse),
        )
        doc = estimate_document(frame, typed_precision)
        if json_out:
            emit_json(doc)
            return
        counted = (
            f"{doc['gpus']} GPU(s)"
            if doc["gpus_source"] == "--gpus"
            else f"{doc['gpus']} GPU(s), the fewest that hold the model (pass --gpus to choose)"
        )
        print_wrapped(
            f"Training {_count(doc['params'])} parameters on {_count(doc['tokens'])} tokens: "
            f"{_gpu_label(choice)} {names.precision(precision)[0]}, MFU {doc['mfu']:g}, {counted}"
        )
        if doc["precision_note"]:
            print(f"  ({doc['precision_note']})")
        print_lines(
            [
                ("FLOPs (6ND)", f"{doc['flops']:.4g}"),
                ("peak per GPU", f"{doc['peak_tflops']:g} TFLOPS"),
                ("GPU-hours", f"{doc['gpu_hours']:,.0f}"),
                (
                    "wall clock",
                    f"{doc['wall_clock_hours']:,.1f} h ({doc['wall_clock_days']:,.1f} days)",
                ),
                ("rate", _rate_line(doc)),
                ("memory", _memory_line(doc)),
                ("cost", _usd(doc["cost_usd"])),
                ("cost per 1M tokens", _usd(doc["cost_per_1m_tokens_usd"])),
            ]
        )
        _print_alternatives(doc, "cost_usd")

    run(body)


def _gpu_label(choice: names.Gpu) -> str:
    return f"{choice.name}{' ' + choice.variant if choice.variant else ''}"


@estimate_app.command("infer")
def estimate_infer(
    params: Annotated[str, typer.Option("--params", help="model parameters: 175e9 or 175B")],
    tokens_per_request: Annotated[
        str, typer.Option("--tokens-per-request", help="prompt + generated tokens: 2048 or 2K")
    ],
    requests: Annotated[str, typer.Option("--requests", help="requests served: 1e6 or 1M")],
    gpu: GpuOpt,
    warehouse: WarehouseOpt = None,
    memory: MemoryOpt = None,
    utilization: Annotated[
        float, typer.Option("--utilization", help="share of peak FLOPs reached serving, (0, 1]")
    ] = SERVING_UTILIZATION,
    pricing: PricingOpt = "on_demand",
    rate: RateOpt = None,
    precision: PrecisionOpt = "bf16",
    include_illustrative: IncludeIllustrativeOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Inference cost: 2 * params FLOPs per token at --utilization of each offer's peak;
    the answer is the cheapest total cost among instances whose GPUs hold the model."""

    def body() -> None:
        choice = names.gpu_and_memory(gpu, memory)
        typed_precision = names.precision(precision)[1]
        frame = checked(
            api.estimate_infer,
            params,
            tokens_per_request,
            requests,
            choice,
            utilization=utilization,
            pricing=pricing,
            rate=rate,
            precision=precision,
            include_illustrative=include_illustrative,
            warehouse=warehouse_path(warehouse),
        )
        doc = estimate_document(frame, typed_precision)
        if json_out:
            emit_json(doc)
            return
        print_wrapped(
            f"Serving {_count(doc['requests'])} requests of {_count(doc['tokens_per_request'])} "
            f"tokens with {_count(doc['params'])} parameters: "
            f"{_gpu_label(choice)} {names.precision(precision)[0]}, "
            f"utilisation {doc['utilization']:g}"
        )
        if doc["precision_note"]:
            print(f"  ({doc['precision_note']})")
        print_lines(
            [
                ("FLOPs (2N per token)", f"{doc['flops']:.4g}"),
                ("peak per GPU", f"{doc['peak_tflops']:g} TFLOPS"),
                ("GPU-seconds", f"{doc['gpu_seconds']:,.0f} ({doc['gpu_hours']:,.1f} GPU-hours)"),
                ("rate", _rate_line(doc)),
                ("memory", _memory_line(doc)),
                ("cost", _usd(doc["cost_usd"])),
                ("cost per request", _usd(doc["cost_per_request_usd"])),
                ("cost per 1K tokens", _usd(doc["cost_per_1k_tokens_usd"])),
                ("cost per 1M tokens", _usd(doc["cost_per_1m_tokens_usd"])),
            ]
        )
        _print_alternatives(doc, "cost_usd")

    run(body)


def _memory_line(doc: dict[str, Any]) -> str:
    """'1,043 GiB to train (16 bytes/parameter ...): needs >= 14 GPUs of 80 GiB; ...'."""
    fit = doc.get("memory_fit")
    if not fit:
        return "not checked"
    need = (
        f"{fit['required_gib']:,.0f} GiB ({fit['rule']}): needs >= {fit['min_gpus']} "
        f"GPU(s) of {fit['gpu_memory_gib']:g} GiB"
    )
    if fit["fits"] is None:
        return need
    where = "--gpus" if fit["workload"] == "training" else "the instance's GPUs"
    verdict = "fits" if fit["fits"] else "DOES NOT FIT"
    return f"{need}; {where} = {fit['gpus']:g}: {verdict}"


def _rate_line(doc: dict[str, Any]) -> str:
    rate = f"{doc['rate_usd_per_gpu_hour']:.4f} USD/GPU-hour"
    return f"{rate} (--rate)" if doc["offer"] is None else f"{rate}: {describe_offer(doc['offer'])}"


def _print_alternatives(doc: dict[str, Any], total_key: str) -> None:
    if doc["alternatives"]:
        print(f"\nNext {len(doc['alternatives'])} alternatives:\n")
        print(_alternatives_table(doc["alternatives"], total_key))


@breakeven_app.command("onprem")
def breakeven_onprem(
    gpu: GpuOpt,
    warehouse: WarehouseOpt = None,
    memory: MemoryOpt = None,
    capex: Annotated[
        float | None,
        typer.Option("--capex", help="purchase price USD (default: dim_gpus reference capex)"),
    ] = None,
    rate: RateOpt = None,
    pricing: Annotated[
        str, typer.Option("--pricing", help="pricing model of the rented rate")
    ] = "on_demand",
    utilization: Annotated[
        float, typer.Option("--utilization", help="share of hours the GPU is busy, (0, 1]")
    ] = 1.0,
    power_kw: Annotated[
        float | None,
        typer.Option("--power-kw", help="kW drawn per GPU (default: its TDP in dim_gpus)"),
    ] = None,
    usd_per_kwh: Annotated[
        float,
        typer.Option("--usd-per-kwh", help="electricity price (default: seed_conventions)"),
    ] = POWER_USD_PER_KWH,
    pue: Annotated[
        float | None,
        typer.Option("--pue", help=f"facility power per IT power, >= 1 (default: {PUE:g})"),
    ] = None,
    host_kw: Annotated[
        float | None,
        typer.Option(
            "--host-kw",
            help=f"kW of the server around each GPU (default: {HOST_WATTS_PER_GPU / 1000:g})",
        ),
    ] = None,
    host_usd: Annotated[
        float | None,
        typer.Option(
            "--host-usd",
            help="purchase price of the server's share per GPU (default: "
            f"{HOST_CAPEX_SHARE:.0%} of the GPU's)",
        ),
    ] = None,
    ops_usd_per_year: Annotated[
        float | None,
        typer.Option(
            "--ops-usd-per-year",
            help=f"operations per GPU-year (default: {OPS_SHARE_OF_CAPEX_PER_YEAR:.0%} of the GPU "
            "and host price)",
        ),
    ] = None,
    residual_value: Annotated[
        float, typer.Option("--residual-value", help="USD the GPU resells for at the end")
    ] = 0.0,
    include_illustrative: IncludeIllustrativeOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Hours and months of use until buying a GPU beats renting it: the whole cost of owning
    (GPU and host price, power at the facility's PUE, operations) against the cheapest
    verified whole-machine on-demand offer of the same form factor."""

    def body() -> None:
        choice = names.gpu_and_memory(gpu, memory)
        doc = checked(
            api.breakeven_onprem,
            choice,
            capex=capex,
            rate=rate,
            pricing=pricing,
            utilization=utilization,
            power_kw=power_kw,
            usd_per_kwh=usd_per_kwh,
            residual_value=residual_value,
            pue=pue,
            host_kw=host_kw,
            host_usd=host_usd,
            ops_usd_per_year=ops_usd_per_year,
            include_illustrative=include_illustrative,
            warehouse=warehouse_path(warehouse),
        )
        if json_out:
            emit_json(doc)
            return
        print(f"Buy vs rent one {doc['gpu']}:")
        print_lines(
            [
                ("capex", f"{_usd(doc['capex_usd'])} ({doc['capex_source'].split(':')[0]})"),
                ("rent", _rate_line(doc)),
                *([("compared", doc["compared_with"])] if doc["compared_with"] else []),
                (
                    "host",
                    f"{_usd(doc['host_capex_usd'])} per GPU (CPUs, memory, network; "
                    f"{doc['owning_source']['host_capex_usd']})",
                ),
                (
                    "power",
                    f"({doc['power_kw']:g} kW GPU + {doc['host_kw']:g} kW host) x PUE "
                    f"{doc['pue']:g} x {doc['usd_per_kwh']:g} USD/kWh"
                    f" = {doc['power_usd_per_hour']:.4f} USD/h",
                ),
                (
                    "operations",
                    f"{_usd(doc['ops_usd_per_year'])} per GPU-year = "
                    f"{doc['ops_usd_per_hour']:.4f} USD per hour of use "
                    f"({doc['owning_source']['ops_usd_per_year']})",
                ),
                ("break-even", f"{doc['break_even_gpu_hours']:,.0f} GPU-hours"),
                (
                    "",
                    f"{doc['break_even_months']:,.1f} months at {doc['utilization']:.0%} use "
                    f"({doc['hours_per_month']:g} h/month)",
                ),
            ]
        )

    run(body)


@breakeven_app.command("spot")
def breakeven_spot(
    warehouse: WarehouseOpt = None,
    gpu: Annotated[
        str | None, typer.Option("--gpu", help="GPU whose cheapest spot/on-demand rates to use")
    ] = None,
    memory: MemoryOpt = None,
    spot_rate: Annotated[
        float | None, typer.Option("--spot-rate", help="spot USD per GPU-hour")
    ] = None,
    on_demand_rate: Annotated[
        float | None, typer.Option("--on-demand-rate", help="on-demand USD per GPU-hour")
    ] = None,
    checkpoint_overhead: Annotated[
        float, typer.Option("--checkpoint-overhead", help="extra time share for checkpoints")
    ] = 0.05,
    checkpoint_interval_hours: Annotated[
        float, typer.Option("--checkpoint-interval-hours", help="hours between checkpoints")
    ] = 1.0,
    preemption_rate: Annotated[
        float | None, typer.Option("--preemption-rate", help="preemptions per hour")
    ] = None,
    restart_hours: Annotated[
        float, typer.Option("--restart-hours", help="hours lost per preemption besides c/2")
    ] = 0.0,
    include_illustrative: IncludeIllustrativeOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Break-even preemption rate of spot vs on-demand; with --preemption-rate, the time
    multiplier and the effective spot cost per useful hour."""

    def body() -> None:
        doc = checked(
            api.breakeven_spot,
            gpu,
            memory=memory,
            spot_rate=spot_rate,
            on_demand_rate=on_demand_rate,
            checkpoint_overhead=checkpoint_overhead,
            checkpoint_interval_hours=checkpoint_interval_hours,
            preemption_rate=preemption_rate,
            restart_hours=restart_hours,
            include_illustrative=include_illustrative,
            warehouse=warehouse_path(warehouse),
        )
        if json_out:
            emit_json(doc)
            return
        _print_spot(doc)

    run(body)


def _break_even_text(doc: dict[str, Any]) -> str:
    # models.breakeven's verdict: a break-even of 0 means spot costs more even with no
    # preemption, at its cost per useful hour then (checkpoint overhead only)
    if doc["break_even_preemption_rate_per_hour"] == 0:
        spot_with_overhead = doc["spot_rate_usd_per_gpu_hour"] * breakeven.spot_time_multiplier(
            doc["checkpoint_overhead"],
            doc["checkpoint_interval_hours"],
            0.0,
            restart_hours=doc["restart_hours"],
        )
        return (
            f"none: spot is not cheaper than on-demand at any preemption rate "
            f"({spot_with_overhead:.4f} USD/GPU-hour with checkpoint overhead, even with "
            "no preemptions)"
        )
    return (
        f"{doc['break_even_preemption_rate_per_hour']:.4f} preemptions per hour "
        "(spot is cheaper below)"
    )


def _print_spot(doc: dict[str, Any]) -> None:
    def source(key: str) -> str:
        offer = doc[f"{key}_offer"]
        return "given" if offer is None else describe_offer(offer)

    print(f"Spot vs on-demand{' for ' + doc['gpu'] if doc['gpu'] else ''}:")
    if doc["spot_offer"] and doc["on_demand_offer"] and not doc["rates_paired"]:
        print(
            "  (no instance has both prices: the cheapest of each, which may come from "
            "different providers or regions)"
        )
    lines = [
        ("spot", f"{doc['spot_rate_usd_per_gpu_hour']:.4f} USD/GPU-hour ({source('spot')})"),
        (
            "on-demand",
            f"{doc['on_demand_rate_usd_per_gpu_hour']:.4f} USD/GPU-hour ({source('on_demand')})",
        ),
        ("discount", f"{doc['spot_discount']:.1%}"),
        (
            "checkpointing",
            f"{doc['checkpoint_overhead']:.0%} overhead, every "
            f"{doc['checkpoint_interval_hours']:g} h",
        ),
        ("break-even", _break_even_text(doc)),
    ]
    if doc["preemption_rate_per_hour"] is not None:
        lines += [
            ("at preemption rate", f"{doc['preemption_rate_per_hour']:g} per hour"),
            ("T_eff / T", f"{doc['time_multiplier']:.4f}"),
            (
                "effective spot",
                f"{doc['spot_usd_per_useful_hour']:.4f} USD per useful GPU-hour "
                f"({'cheaper' if doc['spot_is_cheaper'] else 'not cheaper'} than on-demand)",
            ),
        ]
    print_lines(lines)
    if doc["same_instance_pairs"]:
        print("\nSame-instance spot/on-demand pairs (interruption rate where published):\n")
        print(
            table(
                pl.DataFrame(doc["same_instance_pairs"]).select(
                    "provider",
                    "region",
                    "zone",
                    "instance_type",
                    pl.col("spot_usd_per_gpu_hour").alias("spot/gpu-h"),
                    pl.col("on_demand_usd_per_gpu_hour").alias("on-demand/gpu-h"),
                    pl.col("break_even_preemption_rate_per_hour").alias("break-even/h"),
                    pl.col("interruption_bucket").alias("interruptions"),
                    pl.col("effective_spot_usd_per_gpu_hour").alias("eff spot/gpu-h"),
                )
            )
        )
