"""`gpu-pricing breakeven onprem|spot`: buy vs rent, and spot vs on-demand with checkpointing
(`gpu_pricing.api.breakeven_onprem`, `breakeven_spot`), printed or as --json."""

from __future__ import annotations

from typing import Annotated, Any

import polars as pl
import typer

from common import names
from gpu_pricing import api
from gpu_pricing.cli._common import JsonOpt, WarehouseOpt, run, warehouse_path
from gpu_pricing.cli._output import emit_json, table
from gpu_pricing.cli.costs import (
    GpuOpt,
    IncludeIllustrativeOpt,
    MemoryOpt,
    RateOpt,
    checked,
    describe_offer,
    print_lines,
    rate_line,
    usd,
)
from models import breakeven
from models.conventions import (
    HOST_CAPEX_SHARE,
    HOST_WATTS_PER_GPU,
    OPS_SHARE_OF_CAPEX_PER_YEAR,
    POWER_USD_PER_KWH,
    PUE,
)

breakeven_app = typer.Typer(
    no_args_is_help=True, help="Buy vs rent, and spot vs on-demand with checkpointing."
)


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
                ("capex", f"{usd(doc['capex_usd'])} ({doc['capex_source'].split(':')[0]})"),
                ("rent", rate_line(doc)),
                *([("compared", doc["compared_with"])] if doc["compared_with"] else []),
                (
                    "host",
                    f"{usd(doc['host_capex_usd'])} per GPU (CPUs, memory, network; "
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
                    f"{usd(doc['ops_usd_per_year'])} per GPU-year = "
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
