"""`gpu-pricing estimate train|infer`: a training or inference run's cost at current rates or
--rate (`gpu_pricing.api.estimate_train`, `estimate_infer`), printed or as --json."""

from __future__ import annotations

from typing import Annotated, Any

import polars as pl
import typer

from common import names
from common.errors import InvalidInput
from gpu_pricing import api
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, run, warehouse_path
from gpu_pricing.cli._output import emit_json, err, left_out_line, print_wrapped, table
from gpu_pricing.cli.costs import (
    BandwidthShareOpt,
    ComputeShareOpt,
    ContextTokensOpt,
    GpuOpt,
    IncludeIllustrativeOpt,
    KvBytesOpt,
    MemoryOpt,
    OutputTokensOpt,
    PrecisionOpt,
    PricingOpt,
    PromptTokensOpt,
    RateOpt,
    checked,
    print_lines,
    rate_line,
    usd,
)
from models.conventions import (
    DECODE_BANDWIDTH_SHARE,
    DECODE_COMPUTE_SHARE,
    DEFAULT_MFU,
)

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
        "workload": "serving" if "gpus_per_replica" in best else "training",
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


SERVING_FIT_RULE = (
    "weights (bytes per parameter of the precision) + the KV cache of the batch at its "
    "longest, in 90% of each GPU's memory, on the fewest power-of-two GPUs (serving roofline)"
)


def _fit_rule(workload: str) -> str:
    from models import memory_fit

    return SERVING_FIT_RULE if workload == "serving" else memory_fit.RULES[workload][2]


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
        doc = _answer(frame, typed_precision, choice, pricing, warehouse,
                      asked=include_illustrative or rate is not None)  # fmt: skip
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
    requests: Annotated[str, typer.Option("--requests", help="requests served: 1e6 or 1M")],
    gpu: GpuOpt,
    warehouse: WarehouseOpt = None,
    memory: MemoryOpt = None,
    prompt_tokens: PromptTokensOpt = 1024.0,
    output_tokens: OutputTokensOpt = 256.0,
    tokens_per_request: Annotated[
        str | None,
        typer.Option(
            "--tokens-per-request",
            hidden=True,
            help="old name, kept for one release: prompt + output tokens (the prompt is "
            "this minus --output-tokens)",
        ),
    ] = None,
    utilization: Annotated[
        float | None,
        typer.Option(
            "--utilization",
            hidden=True,
            help="old name, kept for one release: --compute-share",
        ),
    ] = None,
    batch: Annotated[
        int,
        typer.Option(
            "--batch",
            min=1,
            help="sequences decoded together per replica (1: the memory-bound worst case; "
            "`plan serve` picks the cheapest batch meeting a latency bound)",
        ),
    ] = 1,
    context_tokens: ContextTokensOpt = None,
    kv_bytes_per_token: KvBytesOpt = None,
    bandwidth_share: BandwidthShareOpt = DECODE_BANDWIDTH_SHARE,
    compute_share: ComputeShareOpt = DECODE_COMPUTE_SHARE,
    pricing: PricingOpt = "on_demand",
    rate: RateOpt = None,
    precision: PrecisionOpt = "bf16",
    include_illustrative: IncludeIllustrativeOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Serving cost on the roofline: each decode step of --batch sequences takes the longer
    of reading the weights and KV cache at --bandwidth-share of the GPU's memory bandwidth
    and its FLOPs at --compute-share of the peak; the prompt is compute-bound prefill; a
    replica takes the fewest GPUs that hold weights and KV cache. The answer is the cheapest
    total cost among instances that hold a replica."""

    def body() -> None:
        nonlocal prompt_tokens, compute_share
        if tokens_per_request is not None:  # the old flag: the whole request
            total = names.count(tokens_per_request, "--tokens-per-request")
            if not total > output_tokens:
                raise InvalidInput(
                    f"--tokens-per-request: {tokens_per_request} must exceed --output-tokens "
                    f"({output_tokens:g}): it is prompt + output tokens"
                )
            prompt_tokens = total - output_tokens
            err("warning: --tokens-per-request is an old name: read as --prompt-tokens "
                f"{prompt_tokens:g} --output-tokens {output_tokens:g}")  # fmt: skip
        if utilization is not None:  # the old flag: the share of peak FLOPs reached
            compute_share = utilization
            err(f"warning: --utilization is an old name: read as --compute-share {utilization:g}")
        choice = names.gpu_and_memory(gpu, memory)
        typed_precision = names.precision(precision)[1]
        frame = checked(
            api.estimate_infer,
            params,
            requests,
            choice,
            prompt_tokens=prompt_tokens,
            output_tokens=output_tokens,
            batch=batch,
            context_tokens=context_tokens,
            kv_bytes_per_token=kv_bytes_per_token,
            bandwidth_share=bandwidth_share,
            compute_share=compute_share,
            pricing=pricing,
            rate=rate,
            precision=precision,
            include_illustrative=include_illustrative,
            warehouse=warehouse_path(warehouse),
        )
        doc = _answer(frame, typed_precision, choice, pricing, warehouse,
                      asked=include_illustrative or rate is not None)  # fmt: skip
        # the old key, kept for one release
        doc["cost_per_1k_tokens_usd"] = doc["cost_per_1m_tokens_usd"] / 1000
        if json_out:
            emit_json(doc)
            return
        print_wrapped(
            f"Serving {_count(doc['requests'])} requests of {doc['prompt_tokens']:g} prompt + "
            f"{doc['output_tokens']:g} output tokens with {_count(doc['params'])} parameters: "
            f"{_gpu_label(choice)} {names.precision(precision)[0]}, batch {doc['batch']:g}, "
            f"{doc['context_tokens']:g} tokens of context"
        )
        if doc["precision_note"]:
            print(f"  ({doc['precision_note']})")
        print_lines(
            [
                (
                    "decode step",
                    f"{doc['step_seconds'] * 1e3:,.2f} ms, {doc['bound']}-bound (memory "
                    f"{doc['decode_memory_seconds'] * 1e3:,.2f} ms at {doc['bandwidth_share']:g} of "
                    f"{doc['memory_bandwidth_gbps']:,.0f} GB/s; compute "
                    f"{doc['decode_compute_seconds'] * 1e3:,.2f} ms at {doc['compute_share']:g} of "
                    f"{doc['peak_tflops']:g} TFLOPS)",
                ),
                (
                    "GPUs per replica",
                    f"{doc['gpus_per_replica']:g} (tensor-parallel efficiency "
                    f"{doc['tp_efficiency']:.2f})",
                ),
                (
                    "tokens/s",
                    f"{doc['tokens_per_second_per_user']:,.1f} per user, "
                    f"{doc['output_tokens_per_second_per_gpu']:,.1f} output per GPU, "
                    f"{doc['input_tokens_per_second_per_gpu']:,.0f} prompt per GPU",
                ),
                ("GPU-seconds", f"{doc['gpu_seconds']:,.0f} ({doc['gpu_hours']:,.1f} GPU-hours)"),
                ("rate", rate_line(doc)),
                ("memory", _memory_line(doc)),
                ("cost", usd(doc["cost_usd"])),
                ("cost per request", usd(doc["cost_per_request_usd"])),
                ("cost per 1M output tokens", usd(doc["usd_per_1m_output_tokens"])),
                ("cost per 1M input tokens", usd(doc["usd_per_1m_input_tokens"])),
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
    if doc["left_out"]:  # the prices the default left out of the estimate, by provenance
        print()
        print_wrapped(left_out_line(doc["left_out"]))


def _answer(
    frame: pl.DataFrame,
    typed_precision: str,
    choice: names.Gpu,
    pricing: str | None,
    warehouse: Any,
    *,
    asked: bool,
) -> dict[str, Any]:
    """The estimate's document (what --json prints) with `left_out`: the current prices of
    this GPU (and pricing model) it left out by default (illustrative, unverified); nothing
    when they were `asked` for (--include-illustrative) or a --rate was given."""
    doc = estimate_document(frame, typed_precision)
    doc["left_out"] = {}
    if not asked:
        with api.connect(warehouse_path(warehouse)) as con:
            doc["left_out"] = api.read_left_out(con, choice, pricing=pricing)
    return doc


