"""The report's plan section: the cost vs wall-clock frontier of the training run in
gpu-pricing.toml's `[plan]` table (default 70B parameters on 2T tokens), planned from the
current offers exactly as `gpu-pricing plan train` plans it."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import polars as pl

from gpu_pricing import api
from gpu_pricing.plan import NoFeasiblePlan, amount_label
from gpu_pricing.report_section import Section
from gpu_pricing.report_section import chart as _chart

COLORS = {
    "on_demand": "#1f77b4",
    "spot": "#ff7f0e",
    "reserved_1y": "#2ca02c",
    "reserved_3y": "#9467bd",
}
TABLE_COLUMNS = [
    "provider",
    "region",
    "instance_type",
    "gpu_name",
    "gpus",
    "instances",
    "max_instances",
    "capacity_source",
    "max_hours",
    "pricing_model",
    "rate_usd_per_gpu_hour",
    "mfu",
    "wall_clock_hours",
    "cost_usd",
]


def plan_section(con, gpu: str, workload: Any = None) -> Any:
    from services.config import PlanWorkload

    w = workload or PlanWorkload()
    limits = [
        f"deadline {w.deadline_hours:,.0f} h" if w.deadline_hours else "",
        f"budget {w.budget_usd:,.0f} USD" if w.budget_usd else "",
    ]
    limits_text = ", ".join(x for x in limits if x) or "no deadline or budget"
    s = Section(
        "plan",
        f"Training plan: {amount_label(w.params)} parameters on {amount_label(w.tokens)} tokens",
        "Every current offer and GPU count for this run ([plan] in gpu-pricing.toml; "
        f"{limits_text}): each dot a plan, the line the cost vs wall-clock frontier (no plan "
        "is both cheaper and faster than one on it). MFU from the default efficiency curves, "
        "spot slowed by checkpoints and expected preemptions, reservations billed their "
        "whole term. Each plan is one offer in one region, within its instance limit "
        "(max_instances: published by the provider or the source, such as an AWS Capacity "
        "Block's 64 instances, assumed per provider class, or configured in [plan.capacity]; "
        "max_hours: the longest run the product allows, 182 days for a Capacity Block; "
        "sql/seeds/seed_capacity_limits.csv gives each limit's source; `gpu-pricing plan "
        "train` explains each plan).",
    )
    try:
        result = api.plan_train(
            params=w.params,
            tokens=w.tokens,
            deadline_hours=w.deadline_hours,
            budget_usd=w.budget_usd,
            max_gpus=w.max_gpus,
            providers=w.providers,
            pricing=w.pricing_models,
            gpu_names=w.gpu_names,
            max_instances=w.limits or None,
            offers_frame=api.read_offers(con),
            specs_frame=api.read_gpu_specs(con),
            default_preemption_rate=api.read_default_preemption_rate(con),
        )
    except NoFeasiblePlan as exc:
        s.note = f"no plan: {exc}"
        return s
    ok = pl.lit(True)
    if w.deadline_hours:
        ok = ok & (pl.col("wall_clock_hours") <= w.deadline_hours)
    if w.budget_usd:
        ok = ok & (pl.col("cost_usd") <= w.budget_usd)
    feasible = result.candidates.filter(ok)
    fig = go.Figure()
    for model, color in COLORS.items():
        part = feasible.filter(pl.col("pricing_model") == model)
        if part.height:
            fig.add_trace(
                go.Scatter(
                    name=model,
                    x=part["wall_clock_hours"].to_list(),
                    y=part["cost_usd"].to_list(),
                    mode="markers",
                    marker={"color": color, "size": 5, "opacity": 0.35},
                    text=(
                        part["provider"]
                        + " "
                        + part["instance_type"]
                        + " x"
                        + part["gpus"].cast(pl.Int64).cast(pl.String)
                    ).to_list(),
                )
            )
    front = result.frontier
    fig.add_trace(
        go.Scatter(
            name="frontier",
            x=front["wall_clock_hours"].to_list(),
            y=front["cost_usd"].to_list(),
            mode="lines+markers",
            line={"color": "#d62728", "shape": "hv"},
            text=(
                front["provider"]
                + " "
                + front["instance_type"]
                + " x"
                + front["gpus"].cast(pl.Int64).cast(pl.String)
                + " "
                + front["pricing_model"]
            ).to_list(),
        )
    )
    fig.update_layout(
        xaxis={"title": "wall-clock hours", "type": "log"},
        yaxis={"title": "total cost (USD)", "type": "log"},
    )
    s.chart = _chart(fig, s.key, height=460)
    table = front.select(TABLE_COLUMNS)
    s.columns, s.rows = table.columns, table.to_dicts()
    return s


SERVE_COLUMNS = [
    "gpu_name",
    "gpu_memory_gib",
    "provider",
    "memory_bandwidth_gbps",
    "gpus_per_replica",
    "batch",
    "bound",
    "tokens_per_second_per_user",
    "output_tokens_per_second_per_gpu",
    "usd_per_1m_input_tokens",
    "usd_per_1m_output_tokens",
]


def serve_section(con, gpu: str, workload: Any = None) -> Any:
    """Serving the configured model on a roofline: per GPU type, its cheapest on-demand
    offer at the replica size and batch that serve a token cheapest while each user gets
    the default latency bound (gpu_pricing.plan.serve_candidates, models.serving)."""
    from gpu_pricing import plan as planner
    from models import serving
    from services.config import PlanWorkload

    w = workload or PlanWorkload()
    s = Section(
        "serve",
        f"Serving {amount_label(w.params)} parameters: the roofline per GPU",
        "Decoding reads every weight once per step, so small batches are bound by memory "
        "bandwidth and large ones by FLOPs (the serving roofline, sql/macros/"
        "serving_roofline.sql, the same rule as `estimate infer` and mart_cost_per_token, "
        "at the shares of peak measured on an H100 with plain PyTorch: "
        f"{serving.DECODE_BANDWIDTH_SHARE:g} of the bandwidth, "
        f"{serving.DECODE_COMPUTE_SHARE:g} of the FLOPs). Per GPU type, its cheapest "
        "on-demand offer at the replica size (tensor parallel) and batch that serve a token "
        "cheapest while each user gets at least "
        f"{planner.DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER:g} tokens/s, for 1,024 prompt and "
        "256 output tokens per request (`gpu-pricing plan serve` for a workload).",
    )
    try:
        result = api.plan_serve(
            params=w.params,
            tokens_per_month=1e9,  # the per-token figures do not depend on the volume
            pricing="on_demand",
            offers_frame=api.read_offers(con),
            specs_frame=api.read_variant_specs(con),
        )
    except NoFeasiblePlan as exc:
        s.note = f"no plan: {exc}"
        return s
    best = (
        result.plans.filter(pl.col("strategy") == "on_demand")
        .sort("usd_per_1m_output_tokens")
        .unique(subset=["gpu_name", "gpu_memory_gib"], keep="first", maintain_order=True)
    )
    fig = go.Figure(
        go.Bar(
            x=(best["gpu_name"] + " " + best["gpu_memory_gib"].cast(pl.Int64).cast(pl.String))
            .to_list(),
            y=best["usd_per_1m_output_tokens"].to_list(),
            text=best["bound"].to_list(),
        )
    )
    fig.update_layout(yaxis={"title": "USD per 1M output tokens", "type": "log"})
    s.chart = _chart(fig, s.key, height=380)
    table = best.select(SERVE_COLUMNS)
    s.columns, s.rows = table.columns, table.to_dicts()
    return s
