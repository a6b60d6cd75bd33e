"""`gpu-pricing report`: one self-contained HTML file (plotly.js inlined once, no network
needed to open it) built from the marts. (The markdown summary each refresh leaves as a
Prefect artifact is `flows.artifacts`.)

Sections: cheapest per-GPU-hour by GPU and pricing model; price history of one GPU
(every verified price period, historical sheet rows included); spot price bands (p5-p95) per
region of that GPU; cost per 1M training tokens per GPU; buy-vs-rent break-even; the
training plan frontier of the workload in gpu-pricing.toml's `[plan]`
(gpu_pricing.report_plan); active alerts. A section is a `gpu_pricing.report_section.Section`.
Each section reads its relation on its own, through a query of `gpu_pricing/queries/`: a
mart that is missing or empty makes that section say "no data" (a missing one: run
`gpu-pricing refresh`) and the others go on. The report computes no figure itself: cost per
token and break-evens are `mart_cost_per_token`'s and `mart_breakeven_onprem`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import plotly.graph_objects as go
import polars as pl
from jinja2 import Environment, FileSystemLoader, select_autoescape

from connectors.kit.page import utc_now
from flows.artifacts import fmt as _fmt
from gpu_pricing import api, queries
from gpu_pricing.report_plan import plan_section, serve_section
from gpu_pricing.report_section import Section
from gpu_pricing.report_section import chart as _chart
from warehouse.errors import WarehouseError
from warehouse.schemas import PRICING_MODELS

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
# every pricing model of the vocabulary gets a trace (charts used to drop the ones missing)
PRICING_ORDER = list(PRICING_MODELS)
COLORS = {
    "on_demand": "#1f77b4",
    "spot": "#ff7f0e",
    "reserved_1y": "#2ca02c",
    "reserved_3y": "#9467bd",
    "capacity_block": "#d62728",
    "flex": "#8c564b",
    "savings_plan_1y": "#17becf",
    "savings_plan_3y": "#bcbd22",
}


def _gpu_label() -> pl.Expr:
    """'H100 80G': GPU name and memory, for chart axes."""
    memory = pl.col("gpu_memory_gib").cast(pl.Int64).cast(pl.String)
    return pl.col("gpu_name") + pl.lit(" ") + memory + pl.lit("G")


def _source_label() -> pl.Expr:
    """'aws us-east-1': where a bar's price comes from (region where the row has one)."""
    return pl.concat_str(["provider", "region"], separator=" ", ignore_nulls=True)


def _bar_by_pricing(df: pl.DataFrame, value: str, key: str, y_title: str) -> str:
    """Grouped bars per GPU and pricing model. Each bar is one provider's price (the
    cheapest may come from a different provider per pricing model), so each bar is
    labelled with its provider and region, on the bar and in the hover text."""
    df = df.with_columns(_gpu_label().alias("gpu")).sort("gpu_name", "gpu_memory_gib")
    if "region" not in df.columns:
        df = df.with_columns(region=pl.lit(None, dtype=pl.String))
    df = df.with_columns(_source_label().alias("source"))
    fig = go.Figure()
    for model in PRICING_ORDER:
        part = df.filter(pl.col("pricing_model") == model)
        if part.height:
            fig.add_trace(
                go.Bar(
                    name=model,
                    x=part["gpu"].to_list(),
                    y=part[value].to_list(),
                    text=part["source"].to_list(),
                    textposition="inside",
                    textangle=-90,
                    hovertemplate=(
                        f"%{{x}} {model}<br>%{{y:.4f}} {y_title}<br>from %{{text}}<extra></extra>"
                    ),
                    marker_color=COLORS[model],
                )
            )
    fig.update_layout(barmode="group", yaxis_title=y_title)
    return _chart(fig, key)


# -- sections ----------------------------------------------------------------------------


def cheapest_section(con, gpu: str) -> Section:
    s = Section(
        "cheapest",
        "Cheapest per-GPU-hour rate by GPU and pricing model",
        "The cheapest current offer across every provider, per GPU (name and memory) and "
        "pricing model, and the median of each provider's cheapest. Each bar is labelled "
        "with the provider and region it comes from: bars of one GPU may come from "
        "different providers, so reserved or spot can sit above on-demand.",
    )
    df = api.read_cheapest_summary(con)
    if df.is_empty():
        s.note = "no data: mart_cheapest_gpu_hour is empty (run `gpu-pricing refresh`)"
        return s
    s.chart = _bar_by_pricing(df, "price_usd_per_gpu_hour", s.key, "USD per GPU-hour")
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def history_section(con, gpu: str) -> Section:
    s = Section(
        "history",
        f"Price history: {gpu}",
        f"Cheapest {gpu} per-GPU-hour rate over time per pricing model, from every verified "
        "whole-machine price period in fct_gpu_prices (historical price-sheet rows included; "
        "illustrative and unverified prices left out): the rate steps at each change. A "
        "period starts when its source stated the change, or when the warehouse first saw "
        "the offer, so a source's first appearance is not drawn as a price move.",
    )
    df = queries.read(con, "report_price_steps", {"gpu": gpu})
    if df.is_empty():
        s.note = f"no data: no {gpu} prices in fct_gpu_prices"
        return s
    now = queries.read(con, "latest_fetch")["t"][0]
    fig = go.Figure()
    for model in PRICING_ORDER:
        part = df.filter(pl.col("pricing_model") == model)
        if part.is_empty():
            continue
        x, y = part["at"].to_list(), part["price_usd_per_gpu_hour"].to_list()
        if now is not None and x[-1] < now:  # carry the current rate to the newest fetch
            x, y = [*x, now], [*y, y[-1]]
        fig.add_trace(
            go.Scatter(
                name=model,
                x=x,
                y=y,
                mode="lines+markers",
                line={"shape": "hv", "color": COLORS[model]},
            )
        )
    fig.update_layout(yaxis_title="USD per GPU-hour (cheapest)")
    s.chart = _chart(fig, s.key)
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def spot_section(con, gpu: str) -> Section:
    s = Section(
        "spot",
        f"Spot price bands per region: {gpu}",
        f"Every {gpu} spot price point seen (fct_spot_prices), per provider and region: the "
        "bar spans the 5th to the 95th percentile, the dot is the median.",
    )
    df = queries.read(con, "report_spot_bands", {"gpu": gpu})
    if df.is_empty():
        s.note = f"no data: no {gpu} spot prices in fct_spot_prices"
        return s
    fig = go.Figure(
        [
            go.Bar(
                name="p5-p95",
                y=df["region"].to_list(),
                x=(df["p95_usd_per_gpu_hour"] - df["p5_usd_per_gpu_hour"]).to_list(),
                base=df["p5_usd_per_gpu_hour"].to_list(),
                orientation="h",
                marker_color="rgba(255,127,14,0.45)",
            ),
            go.Scatter(
                name="median",
                y=df["region"].to_list(),
                x=df["p50_usd_per_gpu_hour"].to_list(),
                mode="markers",
                marker={"color": "#d62728", "size": 10},
            ),
        ]
    )
    fig.update_layout(xaxis_title="USD per GPU-hour (spot)")
    s.chart = _chart(fig, s.key, height=max(300, 40 * df.height + 120))
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def cost_per_token_section(con, gpu: str) -> Section:
    s = Section(
        "cost_per_token",
        "Cost per 1M training tokens (per 1B parameters)",
        "Training cost of 1M tokens for a 1B-parameter model (6ND FLOPs at the BF16 dense "
        "peak and the MFU shown), at each GPU's cheapest rate per pricing model; scale "
        "linearly with the parameter count in billions. GPUs without BF16 are left out.",
    )
    df = queries.read(con, "report_cost_per_token")
    if df.is_empty():
        s.note = "no data: no priced GPU with a BF16 peak"
        return s
    df = df.filter(pl.col("pricing_model").is_in(["on_demand", "spot"]))
    s.chart = _bar_by_pricing(
        df, "usd_per_1m_tokens_per_b_params", s.key, "USD per 1M tokens per 1B params"
    )
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def breakeven_section(con, gpu: str) -> Section:
    s = Section(
        "breakeven",
        "Buy vs rent: on-prem break-even",
        "Months of use after which buying the GPU beats renting it, counting the whole cost "
        "of owning (reference capex and the host's share, power for GPU and host at the "
        "facility's PUE, operations per year; the stated defaults of seed_conventions) "
        "against the cheapest verified whole-machine on-demand offer of its form factor, at "
        "100% and 50% utilisation (720-hour months). Only GPUs with a published reference "
        "price.",
    )
    df = queries.read(con, "report_breakeven")
    if df.is_empty():
        s.note = "no data: no GPU has both a reference capex and an on-demand offer"
        return s
    df = df.with_columns(_gpu_label().alias("gpu"))
    fig = go.Figure(
        [
            go.Bar(
                name="at 100% use",
                x=df["gpu"].to_list(),
                y=df["break_even_months_at_100pct"].to_list(),
            ),
            go.Bar(
                name="at 50% use",
                x=df["gpu"].to_list(),
                y=df["break_even_months_at_50pct"].to_list(),
            ),
        ]
    )
    fig.update_layout(barmode="group", yaxis_title="months to break even")
    s.chart = _chart(fig, s.key, height=360)
    df = df.drop("gpu")
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def alerts_section(con, gpu: str) -> Section:
    s = Section(
        "alerts",
        "Active alerts",
        "Budgets and rate rules currently in ALARM (`gpu-pricing alerts check`), newest first.",
    )
    df = queries.read(con, "active_alerts")
    if df.is_empty():
        s.note = "no active alerts"
        return s
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


SECTIONS: list[Callable[..., Section]] = [
    cheapest_section,
    history_section,
    spot_section,
    cost_per_token_section,
    breakeven_section,
    plan_section,
    serve_section,
    alerts_section,
]


def build_sections(con, gpu: str, workload: Any = None) -> list[Section]:
    out = []
    for build in SECTIONS:
        try:
            # the plan section plans the configured workload ([plan] in gpu-pricing.toml)
            planned = build in (plan_section, serve_section)
            out.append(build(con, gpu, workload) if planned else build(con, gpu))
        except (duckdb.Error, WarehouseError) as exc:
            key = build.__name__.removesuffix("_section")
            log.warning("report section %s: %s", key, exc)
            first_line = str(exc).splitlines()[0]
            out.append(
                Section(key, key.replace("_", " ").capitalize(), "", note=f"no data ({first_line})")
            )
    return out


def render(
    con, gpu: str = "H100", now: datetime | None = None, workload: Any = None
) -> tuple[str, dict[str, bool]]:
    """The report as one HTML string, and which sections had data."""
    import plotly.offline

    sections = build_sections(con, gpu, workload)
    try:
        meta = queries.read(con, "report_meta").row(0, named=True)
    except (duckdb.Error, WarehouseError):
        meta = {"prices_as_of": None, "offers": 0, "providers": None}
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = _fmt
    html = env.get_template("report.html.j2").render(
        sections=sections,
        gpu=gpu,
        meta=meta,
        generated_at=(now or utc_now()).strftime("%Y-%m-%d %H:%M UTC"),
        plotly_js=plotly.offline.get_plotlyjs(),
    )
    return html, {s.key: s.has_data for s in sections}
