"""`gpu-pricing estimate train|infer` and `gpu-pricing breakeven onprem|spot`.

The formulas are models/ (training, inference, breakeven); this module only finds their
inputs and prints their results. Rates come from the warehouse when not given: the cheapest
current matching offer of `mart_gpu_offers_current` by `price_usd_per_gpu_hour`, named with
its provider, region, instance type, pricing model and as-of time, never a made-up rate.
Peak FLOPs and reference capex come from `dim_gpus`.

Invalid inputs (MFU outside (0, 1], negative tokens, an unknown GPU, a preemption rate at
which the run never finishes, ...) raise `InvalidInput` naming the flag: exit 2 through
`gpu_pricing.cli._common.run`. Added to the root app by `gpu_pricing.cli`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import duckdb
import polars as pl
import typer

from connectors.errors import InvalidInput
from gpu_pricing import names, queries
from gpu_pricing.api import seed_gpu_specs
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, open_readonly, run, warehouse_path
from gpu_pricing.cli._output import emit_json, table
from gpu_pricing.config import gpu_specs
from models import breakeven, capacity, inference, memory_fit, training
from models.conventions import (
    HOST_WATTS_PER_GPU,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
    PUE,
)
from warehouse import db

estimate_app = typer.Typer(
    no_args_is_help=True, help="Training and inference cost from current rates or --rate."
)
breakeven_app = typer.Typer(
    no_args_is_help=True, help="Buy vs rent, and spot vs on-demand with checkpointing."
)

ALTERNATIVES = 5
# offers read before the memory-fit ordering (the cheapest few may all be too small)
FIT_CANDIDATES = 200
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

# an offer as --json shows it: the offer columns of the queries estimate_offers and
# offer_by_key (gpu_pricing/queries/)
OFFER_COLUMNS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "gpu_memory_gib",
    "gpu_count",
    "gpu_variant",
    "pricing_model",
    "pricing_detail",
    "price_usd_per_hour",
    "price_usd_per_gpu_hour",
    "price_flag",
    "provenance",
    "is_verified",
    "source_effective_at",
    "first_seen_at",
    "effective_at",
    "fetched_at",
    "load_id",
]

# the columns of the query gpu_variant_specs, taken from the bundled seed without a warehouse
SPEC_COLUMNS = [
    "gpu_name",
    "gpu_memory_gib",
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "tdp_watts",
    "capex_usd",
    "capex_as_of",
    "capex_source",
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


class Warehouse:
    """The read-only warehouse connection of one command, opened on first use."""

    def __init__(self, path: Path | None, rate_flags: str = "--rate") -> None:
        self.path = warehouse_path(path)
        self.rate_flags = rate_flags  # what to pass instead of looking rates up
        self._con: duckdb.DuckDBPyConnection | None = None

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def query(self, name: str, params: dict[str, Any]) -> pl.DataFrame:
        """The rows of query `name` (gpu_pricing/queries/<name>.sql)."""
        if self._con is None:
            if not self.exists:
                raise InvalidInput(
                    f"warehouse {self.path} does not exist: run `gpu-pricing refresh` first, "
                    f"or pass {self.rate_flags}"
                )
            self._con = open_readonly(self.path)
        try:
            return db.query(self._con, queries.sql(name), params)
        except duckdb.CatalogException as exc:
            raise InvalidInput(
                f"warehouse {self.path} has no cost marts ({str(exc).splitlines()[0]}): "
                "run `gpu-pricing refresh` first"
            ) from None

    def close(self) -> None:
        if self._con is not None:
            self._con.close()

    def specs(self, gpu: str, memory: float | None, variant: str | None = None) -> pl.DataFrame:
        """dim_gpus rows for --gpu (and --memory), with the peaks of the named form factor;
        from the bundled seed dim_gpus is built from when there is no warehouse (default
        variants only); unknown names are an input error."""
        if self.exists:
            rows = self.query("gpu_variant_specs", {"gpu": gpu, "variant": variant})
        else:
            seed = seed_gpu_specs().filter(pl.col("gpu_name") == gpu)
            rows = seed.select(SPEC_COLUMNS).sort("gpu_memory_gib")
        if rows.is_empty():
            raise InvalidInput(f"--gpu {gpu!r}: unknown GPU, not in dim_gpus")
        if memory is not None:
            sizes = rows["gpu_memory_gib"].to_list()
            rows = rows.filter(pl.col("gpu_memory_gib") == memory)
            if rows.is_empty():
                raise InvalidInput(
                    f"--memory {memory:g}: no {gpu} with that memory in dim_gpus "
                    f"(known: {', '.join(f'{s:g}' for s in sizes)} GiB)"
                )
        return rows

    def offers(
        self,
        gpu: str,
        memory: float | None,
        pricing: str,
        *,
        precision: str = "bf16",
        need_peak: bool = False,
        limit: int = 1 + ALTERNATIVES,
        include_illustrative: bool = False,
        variant: str | None = None,
    ) -> pl.DataFrame:
        return self.query(
            "estimate_offers",
            {
                "variant": variant,
                "include_illustrative": include_illustrative,
                "gpu": gpu,
                "memory": memory,
                "pricing": pricing,
                "precision": precision,
                "need_peak": need_peak,
                "limit": limit,
            },
        )

    def no_offer(self, gpu: str, memory: float | None, pricing: str, why: str = "") -> InvalidInput:
        size = f" {memory:g} GiB" if memory is not None else ""
        return InvalidInput(
            f"no current {pricing} offer for {gpu}{size}{why} in warehouse {self.path}: "
            "refresh it, try another --pricing, or pass the rate"
        )


def peak_for(specs: pl.DataFrame, gpu: str, precision: str) -> float:
    """The one peak TFLOPS of --gpu at --precision (for a --rate estimate, no offer)."""
    peaks = specs.filter(pl.col(f"{precision}_tflops").is_not_null())
    distinct = sorted(set(peaks[f"{precision}_tflops"].to_list()))
    if not distinct:
        raise InvalidInput(
            f"--precision {precision}: dim_gpus has no dense {precision} peak for {gpu}"
        )
    if len(distinct) > 1:
        sizes = ", ".join(f"{m:g}" for m in peaks["gpu_memory_gib"].to_list())
        raise InvalidInput(
            f"--gpu {gpu}: its memory sizes ({sizes} GiB) differ in {precision} peak; pass --memory"
        )
    return float(distinct[0])


def offer_dict(row: dict[str, Any]) -> dict[str, Any]:
    return {c: row[c] for c in OFFER_COLUMNS}


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
    width = max(len(k) for k, _ in pairs)
    for key, value in pairs:
        print(f"  {key.ljust(width)}  {value}")


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
                    "gpu_memory_gib": number(a["gpu_memory_gib"], "g"),
                    "gpus": number(a["gpu_count"], "g"),
                    "usd_per_gpu_hour": number(a["price_usd_per_gpu_hour"], ".4f"),
                    total_key: number(a[total_key], ",.2f"),
                    "fits_memory": {True: "yes", False: "NO"}.get(a.get("fits_memory"), ""),
                    "pricing_detail": a["pricing_detail"] or "",
                }
                for a in alternatives
            ]
        )
    )


def estimate_document(
    warehouse: Path | None,
    gpu: str,
    memory: float | None,
    pricing: str,
    precision: str,
    rate: float | None,
    compute: Callable[[float, float], dict[str, Any]],
    include_illustrative: bool = False,
    fit: Callable[[float, float | None], dict[str, Any]] | None = None,
    *,
    variant: str | None = None,
    typed_precision: str | None = None,
) -> dict[str, Any]:
    """The --json document of an estimate: every input checked first (a dry `compute`),
    then priced from --rate or the warehouse's cheapest offers."""
    compute(1.0, 0.0 if rate is None else rate)  # every input checked before any lookup
    wh = Warehouse(warehouse)
    try:
        result = estimate_with_offers(
            wh, gpu, memory, pricing, precision, rate, compute, include_illustrative, fit, variant
        )
    finally:
        wh.close()
    return {
        "gpu": gpu,
        "gpu_memory_gib": memory,
        "gpu_variant": variant,
        "pricing_model": pricing,
        "precision": precision,
        "precision_note": names.PRECISION_NOTE if typed_precision else None,
        **result,
    }


def estimate_with_offers(
    wh: Warehouse,
    gpu: str,
    memory: float | None,
    pricing: str,
    precision: str,
    rate: float | None,
    compute: Callable[[float, float], dict[str, Any]],
    include_illustrative: bool = False,
    fit: Callable[[float, float | None], dict[str, Any]] | None = None,
    variant: str | None = None,
) -> dict[str, Any]:
    """Run `compute(peak_tflops, rate)` on --rate, or on the cheapest matching offer and
    the next alternatives; returns the estimate with the offer and alternatives.
    `fit(gpu_memory_gib, instance_gpus)` is the memory check (models/memory_fit): offers
    whose GPUs hold the model rank first, each offer says whether it does."""
    specs = wh.specs(gpu, memory, variant)
    if rate is not None:
        result = compute(peak_for(specs, gpu, precision), rate)
        sizes = specs["gpu_memory_gib"].to_list()
        check = fit(memory if memory is not None else max(sizes), None) if fit else None
        return {
            **result,
            "rate_source": "--rate",
            "offer": None,
            "alternatives": [],
            "memory_fit": check,
        }
    peak_for_any = specs.filter(pl.col(f"{precision}_tflops").is_not_null())
    if peak_for_any.is_empty():
        raise InvalidInput(
            f"--precision {precision}: dim_gpus has no dense {precision} peak for {gpu}"
        )
    offers = wh.offers(
        gpu,
        memory,
        pricing,
        precision=precision,
        need_peak=True,
        include_illustrative=include_illustrative,
        limit=FIT_CANDIDATES,
        variant=variant,
    )
    if offers.is_empty():
        raise wh.no_offer(gpu, memory, pricing)
    rows = offers.to_dicts()
    priced = [
        {
            **compute(r["peak_tflops"], r["price_usd_per_gpu_hour"]),
            "offer": offer_dict(r),
            "memory_fit": fit(r["gpu_memory_gib"], r["gpu_count"]) if fit else None,
        }
        for r in rows
    ]
    # offers that hold the model first (a stable sort keeps the price order within each)
    priced.sort(key=lambda p: p["memory_fit"] is not None and p["memory_fit"]["fits"] is False)
    priced = priced[: 1 + ALTERNATIVES]
    best = priced[0]
    alternatives = [
        {
            **p["offer"],
            **{k: p[k] for k in ALTERNATIVE_TOTALS if k in p},
            "fits_memory": p["memory_fit"]["fits"] if p["memory_fit"] else None,
            "min_gpus": p["memory_fit"]["min_gpus"] if p["memory_fit"] else None,
        }
        for p in priced[1:]
    ]
    return {**best, "rate_source": "warehouse", "alternatives": alternatives}


@estimate_app.command("train")
def estimate_train(
    params: Annotated[str, typer.Option("--params", help="model parameters: 70e9 or 70B")],
    tokens: Annotated[str, typer.Option("--tokens", help="training tokens: 2e12 or 2T")],
    gpu: GpuOpt,
    warehouse: WarehouseOpt = None,
    memory: MemoryOpt = None,
    mfu: Annotated[float, typer.Option("--mfu", help="model FLOPs utilisation, (0, 1]")] = 0.45,
    gpus: Annotated[float, typer.Option("--gpus", help="GPUs sharing the run")] = 1,
    pricing: PricingOpt = "on_demand",
    rate: RateOpt = None,
    precision: PrecisionOpt = "bf16",
    include_illustrative: IncludeIllustrativeOpt = False,
    full_recompute: Annotated[
        bool, typer.Option("--full-recompute", help="report HFU under full recomputation")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Training cost: 6 * params * tokens FLOPs at --mfu of the GPU's peak, priced at the
    cheapest current offer (plus the next alternatives) or at --rate."""

    def body() -> None:
        nonlocal pricing, precision, memory, params, tokens
        params, tokens = names.count(params, "--params"), names.count(tokens, "--tokens")
        pricing = names.pricing_model(pricing)
        precision, typed_precision = names.precision(precision)
        choice = names.gpu_and_memory(gpu, memory)
        name, memory = choice.name, choice.memory_gib

        def compute(peak_tflops: float, rate_usd: float) -> dict[str, Any]:
            return checked(
                training.estimate_training,
                params,
                tokens,
                peak_tflops,
                mfu,
                gpus,
                rate_usd,
                full_recompute=full_recompute,
            )

        doc = estimate_document(
            warehouse,
            name,
            memory,
            pricing,
            precision,
            rate,
            compute,
            include_illustrative,
            # the job's GPUs share the training state (ZeRO-3 / FSDP sharding)
            lambda gib, _instance_gpus: memory_fit.check("training", params, gib, gpus),
            variant=choice.variant,
            typed_precision=typed_precision,
        )
        if json_out:
            emit_json(doc)
            return
        print(
            f"Training {_count(doc['params'])} parameters on {_count(doc['tokens'])} tokens: "
            f"{name}{' ' + choice.variant if choice.variant else ''} {precision}, "
            f"MFU {doc['mfu']:g}, {doc['gpus']} GPU(s)"
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
    ] = 0.3,
    pricing: PricingOpt = "on_demand",
    rate: RateOpt = None,
    precision: PrecisionOpt = "bf16",
    include_illustrative: IncludeIllustrativeOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Inference cost: 2 * params FLOPs per token at --utilization of the GPU's peak."""

    def body() -> None:
        nonlocal pricing, precision, memory, params, tokens_per_request, requests
        params = names.count(params, "--params")
        tokens_per_request = names.count(tokens_per_request, "--tokens-per-request")
        requests = names.count(requests, "--requests")
        pricing = names.pricing_model(pricing)
        precision, typed_precision = names.precision(precision)
        choice = names.gpu_and_memory(gpu, memory)
        name, memory = choice.name, choice.memory_gib

        def compute(peak_tflops: float, rate_usd: float) -> dict[str, Any]:
            return checked(
                inference.estimate_inference,
                params,
                tokens_per_request,
                requests,
                peak_tflops,
                utilization,
                rate_usd,
            )

        doc = estimate_document(
            warehouse,
            name,
            memory,
            pricing,
            precision,
            rate,
            compute,
            include_illustrative,
            # one serving replica on one instance: its GPUs hold the weights and KV cache
            lambda gib, instance_gpus: memory_fit.check("serving", params, gib, instance_gpus),
            variant=choice.variant,
            typed_precision=typed_precision,
        )
        if json_out:
            emit_json(doc)
            return
        print(
            f"Serving {_count(doc['requests'])} requests of {_count(doc['tokens_per_request'])} "
            f"tokens with {_count(doc['params'])} parameters: "
            f"{name}{' ' + choice.variant if choice.variant else ''} {precision}, "
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
        float, typer.Option("--pue", help="facility power per IT power, >= 1")
    ] = PUE,
    host_kw: Annotated[
        float, typer.Option("--host-kw", help="kW of the server around each GPU")
    ] = HOST_WATTS_PER_GPU / 1000,
    host_usd: Annotated[
        float | None,
        typer.Option(
            "--host-usd",
            help="purchase price of the server's share per GPU (default: 25% of the GPU's)",
        ),
    ] = None,
    ops_usd_per_year: Annotated[
        float | None,
        typer.Option(
            "--ops-usd-per-year",
            help="operations per GPU-year (default: 10% of the GPU and host price)",
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
        nonlocal pricing, memory
        pricing = names.pricing_model(pricing)
        choice = names.gpu_and_memory(gpu, memory)
        name, memory = choice.name, choice.memory_gib
        wh = Warehouse(warehouse)
        try:
            doc = _onprem(
                wh,
                name,
                memory,
                capex,
                rate,
                pricing,
                utilization,
                power_kw,
                usd_per_kwh,
                residual_value,
                include_illustrative,
                owning={"pue": pue, "host_kw": host_kw, "host_capex_usd": host_usd,
                        "ops_usd_per_year": ops_usd_per_year},
                variant=choice.variant,
            )
        finally:
            wh.close()
        if json_out:
            emit_json(doc)
            return
        print(f"Buy vs rent one {name}:")
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


def _onprem(
    wh: Warehouse,
    gpu: str,
    memory: float | None,
    capex: float | None,
    rate: float | None,
    pricing: str,
    utilization: float,
    power_kw: float | None,
    usd_per_kwh: float,
    residual_value: float,
    include_illustrative: bool = False,
    *,
    owning: dict[str, float | None] | None = None,
    variant: str | None = None,
) -> dict[str, Any]:
    """Buy vs rent (models.breakeven.onprem) with the whole cost of owning: the stated
    defaults (models.breakeven.owning_defaults) for what `owning` does not give."""
    given = {k: v for k, v in (owning or {}).items() if v is not None}
    power_given = power_kw is not None

    def assumptions(capex_usd: float, kw: float) -> dict[str, float]:
        defaults = breakeven.owning_defaults(capex_usd, kw * 1000)
        host = given.get("host_capex_usd", defaults["host_capex_usd"])
        ops = given.get(
            "ops_usd_per_year", OPS_SHARE_OF_CAPEX_PER_YEAR * (capex_usd + host)
        )
        return {
            "pue": given.get("pue", defaults["pue"]),
            "host_kw": given.get("host_kw", defaults["host_kw"]),
            "host_capex_usd": host,
            "ops_usd_per_year": ops,
        }

    def compute(capex_usd: float, rate_usd: float, kw: float) -> dict[str, Any]:
        return checked(
            breakeven.onprem,
            capex_usd,
            rate_usd,
            utilization=utilization,
            power_kw=kw,
            usd_per_kwh=usd_per_kwh,
            residual_value_usd=residual_value,
            **assumptions(capex_usd, kw),
        )

    # every given input checked before any lookup, with valid placeholders for the rest:
    # a placeholder rate high enough that only the given inputs can fail
    kw_given = power_kw if power_kw is not None else 0.0
    compute(
        capex if capex is not None else max(residual_value, 0.0) + 1.0,
        rate if rate is not None else 1e9,
        kw_given,
    )
    capex_source = "--capex"
    # an unknown --gpu is an input error even when --capex and --rate make the warehouse
    # unnecessary: checked against the seed dim_gpus is built from
    if gpu not in {name for name, _ in gpu_specs()}:
        raise InvalidInput(f"--gpu {gpu!r}: unknown GPU, not in dim_gpus")
    specs = wh.specs(gpu, memory, variant)
    if capex is None:
        with_capex = specs.filter(pl.col("capex_usd").is_not_null())
        if with_capex.is_empty():
            raise InvalidInput(f"--capex: dim_gpus has no reference capex for {gpu}; pass --capex")
        if with_capex.height > 1:
            sizes = ", ".join(f"{m:g}" for m in with_capex["gpu_memory_gib"].to_list())
            raise InvalidInput(f"--gpu {gpu}: capex known for {sizes} GiB; pass --memory")
        row = with_capex.row(0, named=True)
        capex, memory = row["capex_usd"], row["gpu_memory_gib"]
        capex_source = f"dim_gpus reference as of {row['capex_as_of']}: {row['capex_source']}"
    if memory is not None:
        specs = specs.filter(pl.col("gpu_memory_gib") == memory)
    tdps = specs.filter(pl.col("tdp_watts").is_not_null())["tdp_watts"].unique().to_list()
    if power_kw is None:
        if len(tdps) != 1:
            raise InvalidInput(f"--power-kw: no single TDP for {gpu} in dim_gpus; pass --power-kw")
        power_kw = tdps[0] / 1000
    # the form factor compared: the one asked for, else the GPU's default (H100: SXM)
    form = variant or (_default_variant(wh, gpu, memory) if wh.exists else None)
    offer = None
    if rate is None:
        offers = wh.offers(
            gpu,
            memory,
            pricing,
            limit=FIT_CANDIDATES,
            include_illustrative=include_illustrative,
            variant=form,
        ).with_columns(capacity.provider_class(pl.col("provider")).alias("_class"))
        # a marketplace listing is one host's asking price, not a machine one can rent again
        offers = offers.filter(pl.col("_class") != "marketplace")
        if offers.is_empty():
            why = f" ({form} form factor, no marketplace listing; pass --rate)"
            raise wh.no_offer(gpu, memory, pricing, why)
        offer = offer_dict(offers.row(0, named=True))
        rate = offer["price_usd_per_gpu_hour"]
    result = compute(capex, rate, power_kw)
    stated = {
        "power_kw": "--power-kw" if power_given else "the GPU's TDP (dim_gpus)",
        "usd_per_kwh": "seed_conventions power_usd_per_kwh (EIA 2023 US industrial and "
        "commercial averages)" if usd_per_kwh == POWER_USD_PER_KWH else "--usd-per-kwh",
        "pue": "--pue" if "pue" in given else "seed_conventions pue (Uptime Institute 2024)",
        "host_kw": "--host-kw" if "host_kw" in given else "seed_conventions host_watts_per_gpu "
        "(DGX H100 datasheet)",
        "host_capex_usd": "--host-usd" if "host_capex_usd" in given else
        "seed_conventions host_capex_share, 25% of the GPU's price, assumed",
        "ops_usd_per_year": "--ops-usd-per-year" if "ops_usd_per_year" in given else
        "seed_conventions ops_share_of_capex_per_year, 10% of the purchase a year, assumed",
    }
    return {
        "gpu": gpu,
        "gpu_memory_gib": memory,
        "gpu_variant": form,
        "pricing_model": pricing,
        **result,
        "capex_source": capex_source,
        "owning_source": stated,
        "rate_source": "--rate" if offer is None else "warehouse",
        "compared_with": None
        if offer is None
        else f"the cheapest verified whole-machine {pricing} offer of the {form} form factor "
        "(marketplace listings left out)",
        "offer": offer,
    }


def _default_variant(wh: Warehouse, gpu: str, memory: float | None) -> str | None:
    variants = wh.query("gpu_variant_peaks", {}).filter(
        (pl.col("gpu_name") == gpu) & pl.col("is_default_variant")
    )
    if memory is not None:
        variants = variants.filter(pl.col("gpu_memory_gib") == memory)
    names = variants["gpu_variant"].unique().to_list()
    return names[0] if len(names) == 1 else None


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
        def compute(spot_usd: float, on_demand_usd: float) -> dict[str, Any]:
            return checked(
                breakeven.spot,
                spot_usd,
                on_demand_usd,
                checkpoint_overhead,
                checkpoint_interval_hours,
                preemption_rate,
                restart_hours,
            )

        # every given input checked before any lookup, with valid placeholders for the rest
        compute(
            spot_rate if spot_rate is not None else 1.0,
            on_demand_rate if on_demand_rate is not None else 2.0,
        )
        nonlocal memory
        choice = names.gpu_and_memory(gpu, memory) if gpu else None
        name = choice.name if choice else None
        memory = choice.memory_gib if choice else memory
        if name is None and (spot_rate is None or on_demand_rate is None):
            raise InvalidInput(
                "--gpu: needed to look up the cheapest current rates; "
                "or pass both --spot-rate and --on-demand-rate"
            )
        offers: dict[str, dict[str, Any] | None] = {"spot": None, "on_demand": None}
        paired = False
        pairs: list[dict[str, Any]] = []
        rates = {"spot": spot_rate, "on_demand": on_demand_rate}
        if name is not None:
            wh = Warehouse(warehouse, "--spot-rate and --on-demand-rate")
            try:
                wh.specs(name, memory)
                # same-instance pairs only where there is a warehouse to list them from
                pairs = [] if not wh.exists else wh.query(
                    "spot_pairs",
                    {
                        "overhead": checkpoint_overhead,
                        "interval": checkpoint_interval_hours,
                        "restart": restart_hours,
                        "gpu": name,
                        "memory": memory,
                        "limit": ALTERNATIVES,
                        "include_illustrative": include_illustrative,
                    },
                ).to_dicts()
                if spot_rate is None and on_demand_rate is None and pairs:
                    # like for like: the cheapest spot offer and the on-demand price of
                    # the same provider, region and instance type (int_offer_pairs)
                    best, paired = pairs[0], True
                    for pricing, zone in (("spot", best["zone"]), ("on_demand", best["on_demand_zone"])):
                        found = wh.query(
                            "offer_by_key",
                            {
                                "provider": best["provider"],
                                "region": best["region"],
                                "zone": zone,
                                "instance_type": best["instance_type"],
                                "pricing": pricing,
                            },
                        )
                        offers[pricing] = offer_dict(found.row(0, named=True))
                        rates[pricing] = offers[pricing]["price_usd_per_gpu_hour"]
                for pricing in ("spot", "on_demand"):
                    if rates[pricing] is None:
                        found = wh.offers(
                            name,
                            memory,
                            pricing,
                            limit=1,
                            include_illustrative=include_illustrative,
                        )
                        if found.is_empty():
                            raise wh.no_offer(
                                name, memory, pricing, f" (pass --{pricing.replace('_', '-')}-rate)"
                            )
                        offers[pricing] = offer_dict(found.row(0, named=True))
                        rates[pricing] = offers[pricing]["price_usd_per_gpu_hour"]
            finally:
                wh.close()
        result = compute(rates["spot"], rates["on_demand"])
        doc = {
            "gpu": name,
            "gpu_memory_gib": memory,
            # both rates are per GPU-hour; the *_usd_per_hour keys are the former names,
            # kept as aliases for one release
            "spot_rate_usd_per_gpu_hour": result["spot_rate_usd_per_hour"],
            "on_demand_rate_usd_per_gpu_hour": result["on_demand_rate_usd_per_hour"],
            **result,
            # true: both rates from one same-provider, same-region instance (like for like)
            "rates_paired": paired,
            "spot_offer": offers["spot"],
            "on_demand_offer": offers["on_demand"],
            "same_instance_pairs": pairs,
        }
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
                    "spot_usd_per_gpu_hour",
                    "on_demand_usd_per_gpu_hour",
                    "break_even_preemption_rate_per_hour",
                    "interruption_bucket",
                    "effective_spot_usd_per_gpu_hour",
                )
            )
        )
