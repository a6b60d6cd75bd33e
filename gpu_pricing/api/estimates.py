"""Estimates: what `gpu-pricing estimate` prints, the offers (or a given rate) a training or
inference run is priced at, and its cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from common import names
from common.errors import InvalidInput
from gpu_pricing.api.reads import _gpu, _maybe_connect, _need, _precision, _where, seed_gpu_specs
from models import _validate, memory_fit, serving, training
from models.conventions import (
    DECODE_BANDWIDTH_SHARE,
    DECODE_COMPUTE_SHARE,
    DEFAULT_MFU,
)
from models.costs import SECONDS_PER_HOUR
from warehouse import queries

# -- estimates and break-evens: what `gpu-pricing estimate` and `breakeven` print ----------

# an offer as the estimates and break-evens show it (the offer columns of estimate_offers)
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
def offer_fields(row: dict[str, Any]) -> dict[str, Any] | None:
    """A row's offer in OFFER_COLUMNS (None when the row has no offer: a --rate row)."""
    return None if row.get("provider") is None else {c: row[c] for c in OFFER_COLUMNS}


# the columns of the query gpu_variant_specs, taken from the bundled seed without a warehouse
SPEC_COLUMNS = [
    "gpu_name",
    "gpu_memory_gib",
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "memory_bandwidth_gbps",
    "interconnect_gbps",
    "tdp_watts",
    "capex_usd",
    "capex_as_of",
    "capex_source",
]



def read_gpu_rows(
    con: duckdb.DuckDBPyConnection | None, choice: names.Gpu
) -> pl.DataFrame:
    """The dim_gpus rows of a GPU (one per memory size; --memory keeps one), with the peaks
    and TDP of its named form factor; the bundled seed when there is no warehouse."""
    if con is not None:
        rows = queries.read(con, "gpu_variant_specs", {"gpu": choice.name, "variant": choice.variant})
    else:
        seed = seed_gpu_specs().filter(pl.col("gpu_name") == choice.name)
        rows = seed.select(SPEC_COLUMNS).sort("gpu_memory_gib")
    if rows.is_empty():
        raise InvalidInput(f"--gpu {choice.name!r}: unknown GPU, not in dim_gpus")
    if choice.memory_gib is not None:
        sizes = rows["gpu_memory_gib"].to_list()
        rows = rows.filter(pl.col("gpu_memory_gib") == choice.memory_gib)
        if rows.is_empty():
            raise InvalidInput(
                f"--memory {choice.memory_gib:g}: no {choice.name} with that memory in dim_gpus "
                f"(known: {', '.join(f'{s:g}' for s in sizes)} GiB)"
            )
    return rows


def read_priced_offers(
    con: duckdb.DuckDBPyConnection,
    choice: names.Gpu,
    pricing: str,
    *,
    precision: str = "bf16",
    need_peak: bool = False,
    include_illustrative: bool = False,
    limit: int | None = None,
) -> pl.DataFrame:
    """The current offers of a GPU and pricing model an estimate or break-even prices with
    (estimate_offers: rankable, verified unless `include_illustrative`), cheapest first by
    cheapest_order, each with `peak_tflops` at its own form factor."""
    return queries.read(
        con,
        "estimate_offers",
        {
            "variant": choice.variant,
            "include_illustrative": include_illustrative,
            "gpu": choice.name,
            "memory": choice.memory_gib,
            "pricing": pricing,
            "precision": precision,
            "need_peak": need_peak,
            "limit": limit,
        },
    )


def _no_offer(
    warehouse: str | Path | None, choice: names.Gpu, pricing: str, why: str = ""
) -> InvalidInput:
    size = f" {choice.memory_gib:g} GiB" if choice.memory_gib is not None else ""
    return InvalidInput(
        f"no current {pricing} offer for {choice.name}{size}{why} in "
        f"{_where(warehouse)}: refresh it, try another --pricing, or pass the rate"
    )


def _single_peak(specs: pl.DataFrame, gpu: str, precision: str) -> float:
    """The one peak TFLOPS of a GPU at a precision (a --rate estimate has no offer)."""
    peaks = specs.filter(pl.col(f"{precision}_tflops").is_not_null())
    if peaks.is_empty():
        raise InvalidInput(
            f"--precision {precision}: dim_gpus has no dense {precision} peak for {gpu}"
        )
    return _single(peaks, f"{precision}_tflops", gpu, f"{precision} peak")


def _single(specs: pl.DataFrame, column: str, gpu: str, what: str) -> float | None:
    """The one value of a spec column over a GPU's memory sizes (None when unknown)."""
    distinct = sorted(set(specs[column].drop_nulls().to_list()))
    if len(distinct) > 1:
        sizes = ", ".join(f"{m:g}" for m in specs["gpu_memory_gib"].to_list())
        raise InvalidInput(
            f"--gpu {gpu}: its memory sizes ({sizes} GiB) differ in {what}; pass --memory"
        )
    return float(distinct[0]) if distinct else None


def priced_rows(
    gpu: str | names.Gpu,
    *,
    memory: float | None = None,
    pricing: str = "on_demand",
    precision: str = "bf16",
    rate: float | None = None,
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """What an estimate is priced at: every matching current offer (OFFER_COLUMNS plus
    `peak_tflops` of its own form factor, `rate_usd_per_gpu_hour`, `rate_source` and
    `cheapest_order`), or with `rate` one row at that rate and the GPU's peak (offer
    columns null; no warehouse needed). Unknown names, a missing peak, no offer: InvalidInput."""
    choice = _gpu(gpu, memory)
    pricing = names.pricing_model(pricing)
    precision = _precision(precision)
    if rate is not None:
        _validate.non_negative("rate_usd_per_gpu_hour", rate)
    with _maybe_connect(warehouse) as con:
        specs = read_gpu_rows(con, choice)
        if rate is not None:
            peak = _single_peak(specs, choice.name, precision)
            bandwidth = _single(specs, "memory_bandwidth_gbps", choice.name, "memory bandwidth")
            link = _single(specs, "interconnect_gbps", choice.name, "GPU-to-GPU link")
            sizes = specs["gpu_memory_gib"].to_list()
            mem = choice.memory_gib if choice.memory_gib is not None else max(sizes)
            row = {c: None for c in OFFER_COLUMNS} | {
                "gpu_name": choice.name,
                "gpu_memory_gib": float(mem),
                "gpu_variant": choice.variant,
                "pricing_model": pricing,
            }
            return pl.DataFrame([row]).with_columns(
                pl.lit(float(peak)).alias("peak_tflops"),
                pl.lit(bandwidth, dtype=pl.Float64).alias("memory_bandwidth_gbps"),
                pl.lit(link, dtype=pl.Float64).alias("interconnect_gbps"),
                pl.lit(float(rate)).alias("rate_usd_per_gpu_hour"),
                pl.lit("--rate").alias("rate_source"),
                pl.lit(None, dtype=pl.Int64).alias("cheapest_order"),
                pl.lit(precision).alias("precision"),
            )
        if specs.filter(pl.col(f"{precision}_tflops").is_not_null()).is_empty():
            raise InvalidInput(
                f"--precision {precision}: dim_gpus has no dense {precision} peak for {choice.name}"
            )
        found = read_priced_offers(
            _need(con, warehouse, "--rate"),
            choice,
            pricing,
            precision=precision,
            need_peak=True,
            include_illustrative=include_illustrative,
        )
    if found.is_empty():
        raise _no_offer(warehouse, choice, pricing)
    return found.with_columns(
        pl.col("price_usd_per_gpu_hour").alias("rate_usd_per_gpu_hour"),
        pl.lit("warehouse").alias("rate_source"),
        pl.lit(precision).alias("precision"),
    )


# the order every estimate answers in: offers that hold the model first, then the
# cheapest total cost, then the one cheapest-first order of the offers
ESTIMATE_ORDER = ("fits_memory", "cost_usd", "cheapest_order")


def _estimate_sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(
        list(ESTIMATE_ORDER), descending=[True, False, False], nulls_last=True, maintain_order=True
    )


def estimate_train(
    params: float | str,
    tokens: float | str,
    gpu: str,
    *,
    mfu: float = DEFAULT_MFU,
    gpus: int | None = None,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    include_illustrative: bool = False,
    full_recompute: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Training cost (models.training: 6ND FLOPs at `mfu` of each offer's own peak) at
    every matching current offer, or at `rate`. One row per offer, in the order the
    command line answers: offers whose GPUs hold the model's training state first
    (models.memory_fit: `fits_memory`, `min_gpus`), then the cheapest total cost. Without
    `gpus`, each offer uses the fewest of its GPUs that hold the model
    (`gpus_source` = 'memory fit')."""
    params, tokens = names.count(params, "--params"), names.count(tokens, "--tokens")
    # every input checked by the formula before any lookup
    training.estimate_training(params, tokens, 1.0, mfu, 1 if gpus is None else gpus, 0.0)
    priced = priced_rows(
        gpu,
        memory=memory,
        pricing=pricing,
        precision=precision,
        rate=rate,
        include_illustrative=include_illustrative,
        warehouse=warehouse,
    )
    flops = training.training_flops(params, tokens)
    min_gpus = memory_fit.min_gpus_expr("training", params, pl.col("gpu_memory_gib"))
    chosen = pl.lit(gpus, dtype=pl.Int64) if gpus is not None else min_gpus
    gpu_hours = training.gpu_hours_for_flops_expr(
        pl.lit(flops), pl.col("peak_tflops"), pl.lit(float(mfu))
    )
    frame = (
        priced.with_columns(
            pl.lit(float(params)).alias("params"),
            pl.lit(float(tokens)).alias("tokens"),
            pl.lit(float(mfu)).alias("mfu"),
            pl.lit(training.hfu_from_mfu(mfu, full_recompute=full_recompute)).alias("hfu"),
            chosen.alias("gpus"),
            pl.lit("--gpus" if gpus is not None else "memory fit").alias("gpus_source"),
            pl.lit(flops).alias("flops"),
            pl.lit(training.hardware_flops(params, tokens, full_recompute=full_recompute)).alias(
                "hardware_flops"
            ),
            gpu_hours.alias("gpu_hours"),
            pl.lit(memory_fit.required_gib("training", params)).alias("required_gib"),
            min_gpus.alias("min_gpus"),
        )
        .with_columns(
            (pl.col("gpu_hours") / pl.col("gpus")).alias("wall_clock_hours"),
            (pl.col("gpu_hours") * pl.col("rate_usd_per_gpu_hour")).alias("cost_usd"),
            (pl.col("min_gpus") <= pl.col("gpus")).alias("fits_memory"),
        )
        .with_columns(
            (pl.col("wall_clock_hours") / 24).alias("wall_clock_days"),
            (pl.col("cost_usd") / tokens).alias("cost_per_token_usd"),
            (pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"),
        )
    )
    return _estimate_sorted(frame)


def estimate_infer(
    params: float | str,
    requests: float | str,
    gpu: str,
    *,
    prompt_tokens: float = 1024.0,
    output_tokens: float = 256.0,
    batch: int = 1,
    context_tokens: float | None = None,
    kv_bytes_per_token: float | None = None,
    bandwidth_share: float = DECODE_BANDWIDTH_SHARE,
    compute_share: float = DECODE_COMPUTE_SHARE,
    pricing: str = "on_demand",
    memory: float | None = None,
    rate: float | None = None,
    precision: str = "bf16",
    include_illustrative: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Serving cost of `requests` requests of `prompt_tokens` + `output_tokens` on the
    serving roofline (models.serving, the table macro serving_roofline: decode steps of
    `batch` sequences bound by memory bandwidth or compute, the KV cache read at
    `context_tokens`, default prompt + half the output; compute-bound prefill; one replica
    on the fewest power-of-two GPUs that hold weights and KV cache, `gpus_per_replica`) at
    `bandwidth_share` / `compute_share` of each offer's own peaks, at every matching
    current offer, or at `rate`. One row per offer: offers whose instance holds a replica
    (`fits_memory`) first, then the cheapest total cost."""
    params = names.count(params, "--params")
    requests = names.count(requests, "--requests")
    context = prompt_tokens + output_tokens / 2 if context_tokens is None else context_tokens
    # every input checked by the roofline itself before any lookup
    serving.decode(
        params, peak_tflops=1.0, memory_bandwidth_gbps=1.0, batch=batch,
        context_tokens=context, precision=precision, kv_bytes_per_token=kv_bytes_per_token,
        longest_tokens=_validate.non_negative("prompt_tokens", prompt_tokens)
        + _validate.positive("output_tokens", output_tokens),
        bandwidth_share=bandwidth_share, compute_share=compute_share,
    )
    priced = priced_rows(
        gpu,
        memory=memory,
        pricing=pricing,
        precision=precision,
        rate=rate,
        include_illustrative=include_illustrative,
        warehouse=warehouse,
    )
    tokens_per_request = prompt_tokens + output_tokens
    cases = priced.with_columns(
        pl.lit(float(params)).alias("params"),
        pl.lit(None, dtype=pl.Float64).alias("weight_bytes_per_param"),
        pl.lit(kv_bytes_per_token, dtype=pl.Float64).alias("kv_bytes_per_token"),
        pl.lit(float(batch)).alias("batch"),
        pl.lit(float(context)).alias("context_tokens"),
        pl.lit(float(tokens_per_request)).alias("longest_tokens"),
        pl.lit(None, dtype=pl.Float64).alias("tp"),
        pl.col("interconnect_gbps").is_not_null().alias("has_link"),
        pl.lit(float(bandwidth_share)).alias("bandwidth_share"),
        pl.lit(float(compute_share)).alias("compute_share"),
        pl.lit(float(prompt_tokens)).alias("prompt_tokens"),
        pl.lit(float(output_tokens)).alias("output_tokens"),
    )
    tokens = tokens_per_request * requests
    frame = (
        serving.roofline(cases)
        .with_columns(
            pl.lit(float(requests)).alias("requests"),
            pl.lit(tokens).alias("tokens"),
            pl.col("tp").alias("gpus_per_replica"),
            pl.col("tp").alias("gpus"),
            pl.col("min_tp").cast(pl.Int64).alias("min_gpus"),
            pl.col("memory_needed_gib").alias("required_gib"),
            (pl.col("gpu_seconds_per_request") * requests).alias("gpu_seconds"),
            (pl.col("usd_per_request") * requests).alias("cost_usd"),
            (pl.col("tp") <= pl.col("gpu_count").fill_null(pl.col("tp"))).alias("fits_memory"),
        )
        .with_columns(
            (pl.col("gpu_seconds") / SECONDS_PER_HOUR).alias("gpu_hours"),
            pl.col("usd_per_request").alias("cost_per_request_usd"),
            (pl.col("cost_usd") / tokens * 1e6).alias("cost_per_1m_tokens_usd"),
        )
    )
    return _estimate_sorted(frame)
