"""`gpu-pricing estimate train|infer`: a training or inference run's cost at current rates or
--rate (`gpu_pricing.api.estimate_train`, `estimate_infer`), printed or as --json."""

from __future__ import annotations

from typing import Annotated, Any

import polars as pl
import typer

from gpu_pricing import api
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, run, warehouse_path
from gpu_pricing.cli._output import emit_json, print_wrapped, table
from gpu_pricing.cli.costs import (
    GpuOpt,
    IncludeIllustrativeOpt,
    MemoryOpt,
    PrecisionOpt,
    PricingOpt,
    RateOpt,
    checked,
    print_lines,
    rate_line,
    usd,
)
from models.conventions import (
    DEFAULT_MFU,
    SERVING_UTILIZATION,
)
from services import names

estimate_app = typer.Typer(
    no_args_is_help=True, help="Training and inference cost from current rates or --rate."
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



def _count(value: float) -> str:
    """70e9 -> '70B', 2e12 -> '2T', 2048 -> '2048'."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


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
    offer = api.offer_fields(best)
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
                **api.offer_fields(r),
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
                ("rate", rate_line(doc)),
                ("memory", _memory_line(doc)),
                ("cost", usd(doc["cost_usd"])),
                ("cost per 1M tokens", usd(doc["cost_per_1m_tokens_usd"])),
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
                ("rate", rate_line(doc)),
                ("memory", _memory_line(doc)),
                ("cost", usd(doc["cost_usd"])),
                ("cost per request", usd(doc["cost_per_request_usd"])),
                ("cost per 1K tokens", usd(doc["cost_per_1k_tokens_usd"])),
                ("cost per 1M tokens", usd(doc["cost_per_1m_tokens_usd"])),
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


def _print_alternatives(doc: dict[str, Any], total_key: str) -> None:
    if doc["alternatives"]:
        print(f"\nNext {len(doc['alternatives'])} alternatives:\n")
        print(_alternatives_table(doc["alternatives"], total_key))


