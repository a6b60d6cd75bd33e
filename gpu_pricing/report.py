"""`gpu-pricing report`: one self-contained HTML file (plotly.js inlined once, no network
needed to open it) built from the marts. (The markdown summary each refresh leaves as a
Prefect artifact is `flows.artifacts`.)

Sections: cheapest per-GPU-hour by GPU and pricing model (one row per GPU); price history
of one GPU per pricing model and the on-demand history of every GPU with a long record
(every verified price period from the date its source states, historical sheet rows
included, a survey's unverified dated rows drawn apart); spot price bands (p5-p95) per
region of that GPU; cost per 1M training tokens per GPU; buy-vs-rent break-even; the
training plan frontier of the workload in gpu-pricing.toml's `[plan]`
(gpu_pricing.report_plan); active alerts. A section is a `gpu_pricing.report_section.Section`.
Each section reads its relation on its own, through the engine (`gpu_pricing.api`: the
functions the command line calls, and `gpu_pricing.api.charts` for what only the report
draws; the report imports no query of `warehouse/queries/` itself): a
mart that is missing or empty makes that section say "no data" (a missing one: run
`gpu-pricing refresh`) and the others go on. The report computes no figure itself: cost per
token and break-evens are `mart_cost_per_token`'s and `mart_breakeven_onprem`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import plotly.graph_objects as go
import polars as pl
from jinja2 import Environment, FileSystemLoader, select_autoescape

from common.errors import WarehouseError
from common.schemas import PRICING_MODELS
from connectors.kit.page import utc_now
from flows.artifacts import fmt as _fmt
from gpu_pricing import api
from gpu_pricing.report_plan import plan_section, serve_section
from gpu_pricing.report_section import Section
from gpu_pricing.report_section import chart as _chart

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


def _dots_by_pricing(df: pl.DataFrame, value: str, key: str, x_title: str) -> str:
    """One row per GPU (name and memory), one dot per pricing model at its cheapest value,
    on a log axis (rates span 0.1 to 10 USD and more): readable at a glance for every GPU
    and pricing model. Each dot's provider and region are in its hover text (the cheapest
    may come from a different provider per pricing model), never as text that can clip."""
    df = df.with_columns(_gpu_label().alias("gpu"))
    if "region" not in df.columns:
        df = df.with_columns(region=pl.lit(None, dtype=pl.String))
    df = df.with_columns(_source_label().alias("source"))
    # the first GPU alphabetically at the top
    order = df.sort("gpu_name", "gpu_memory_gib")["gpu"].unique(maintain_order=True).to_list()
    fig = go.Figure()
    for model in PRICING_ORDER:
        part = df.filter(pl.col("pricing_model") == model)
        if part.height:
            fig.add_trace(
                go.Scatter(
                    name=model,
                    y=part["gpu"].to_list(),
                    x=part[value].to_list(),
                    customdata=part["source"].to_list(),
                    mode="markers",
                    marker={"color": COLORS[model], "size": 9, "opacity": 0.85},
                    hovertemplate=(
                        f"%{{y}} {model}<br>%{{x:.4f}} {x_title}<br>"
                        "from %{customdata}<extra></extra>"
                    ),
                )
            )
    fig.update_layout(xaxis={"title": x_title, "type": "log"})
    fig.update_yaxes(
        categoryorder="array", categoryarray=order[::-1], automargin=True, showgrid=True
    )
    return _chart(fig, key, height=max(360, 22 * len(order) + 160))


# -- sections ----------------------------------------------------------------------------


def cheapest_section(con, gpu: str) -> Section:
    s = Section(
        "cheapest",
        "Cheapest per-GPU-hour rate by GPU and pricing model",
        "The cheapest current offer across every provider, per GPU (name and memory) and "
        "pricing model (one row per GPU, one dot per pricing model, log scale), and in the "
        "table the median of each provider's cheapest. Hover a dot for the provider and "
        "region it comes from: the dots of one GPU may come from different providers, so "
        "reserved or spot can sit above on-demand.",
    )
    df = api.read_cheapest_summary(con)
    if df.is_empty():
        s.note = "no data: mart_cheapest_gpu_hour is empty (run `gpu-pricing refresh`)"
        return s
    s.chart = _dots_by_pricing(df, "price_usd_per_gpu_hour", s.key, "USD per GPU-hour")
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def _step_traces(
    fig: go.Figure, df: pl.DataFrame, by: str, now: Any, colors: dict[str, str] | None = None
) -> None:
    """One step line per value of `by` (pricing model or GPU), carried to the newest fetch;
    a null price (no period covers that time) breaks the line instead of bridging it."""
    for name in df[by].unique(maintain_order=True).to_list():
        part = df.filter(pl.col(by) == name)
        x, y = part["at"].to_list(), part["price_usd_per_gpu_hour"].to_list()
        if now is not None and x[-1] < now and y[-1] is not None:  # the current rate, to now
            x, y = [*x, now], [*y, y[-1]]
        line = {"shape": "hv"} | ({"color": colors[name]} if colors else {})
        fig.add_trace(go.Scatter(name=name, x=x, y=y, mode="lines+markers", line=line))


def _dated_points(fig: go.Figure, con, gpu: str | None, pricing: str | None = None) -> int:
    """The dated unverified prices (a survey's rows) as their own marker trace."""
    pts = api.read_dated_points(con, gpu)
    if pricing:
        pts = pts.filter(pl.col("pricing_model") == pricing)
    if pts.height:
        label = pts.with_columns(
            (_gpu_label() + pl.lit(" ") + pl.col("pricing_model") + pl.lit(", ") + pl.col("provider"))
            .alias("label")
        )["label"]
        fig.add_trace(
            go.Scatter(
                name="dated survey rows (unverified)",
                x=pts["at"].to_list(),
                y=pts["price_usd_per_gpu_hour"].to_list(),
                customdata=label.to_list(),
                mode="markers",
                marker={"symbol": "diamond-open", "size": 9, "color": "#555"},
                hovertemplate="%{x|%Y-%m-%d} %{customdata}<br>%{y:.2f} USD per GPU-hour"
                "<extra></extra>",
            )
        )
    return pts.height


HISTORY_INTRO = (
    "From every verified whole-machine price period in fct_gpu_prices (historical "
    "price-sheet rows included): the rate steps at each change. A period starts at the date "
    "its source states (a price list's effective date, a sheet's as-of date, a spot price's "
    "time) when the source gives one, else the night the warehouse first saw it, so a line "
    "is the cheapest price known to hold at each time: a price with no date of its own (a "
    "marketplace offer) joins it the night it was first seen, which can show as a drop. A "
    "gap is a time no verified price covers. Dated survey rows that are not verified (the 2023-04-07 "
    "A100/A10 survey) are drawn apart, as open diamonds."
)


def history_section(con, gpu: str) -> Section:
    s = Section(
        "history",
        f"Price history: {gpu}",
        f"Cheapest {gpu} per-GPU-hour rate over time per pricing model. " + HISTORY_INTRO,
    )
    df = api.read_price_steps(con, gpu).sort("pricing_model", "at")
    if df.is_empty():
        s.note = f"no data: no {gpu} prices in fct_gpu_prices"
        return s
    now = api.read_latest_fetch(con)
    fig = go.Figure()
    ordered = pl.DataFrame({"pricing_model": PRICING_ORDER}).with_row_index("_order")
    df = df.join(ordered, on="pricing_model").sort("_order", "at").drop("_order")
    _step_traces(fig, df, "pricing_model", now, COLORS)
    _dated_points(fig, con, gpu)
    fig.update_layout(yaxis_title="USD per GPU-hour (cheapest)")
    s.chart = _chart(fig, s.key)
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


LONG_HISTORY_DAYS = 365  # the on-demand history chart: GPUs priced at least this long ago


def history_all_section(con, gpu: str) -> Section:
    s = Section(
        "history_all",
        "On-demand price history: GPUs with a long record",
        f"Cheapest on-demand per-GPU-hour rate over time of each GPU with a price dated at "
        f"least {LONG_HISTORY_DAYS} days before the newest fetch. " + HISTORY_INTRO,
    )
    now = api.read_latest_fetch(con)
    df = api.read_price_steps(con, None).filter(
        pl.col("pricing_model") == "on_demand"
    )
    if now is not None:
        since = now - timedelta(days=LONG_HISTORY_DAYS)
        df = df.filter((pl.col("at").min() <= since).over("gpu_name"))
    if df.is_empty():
        s.note = f"no data: no on-demand price dated {LONG_HISTORY_DAYS} days before the newest"
        return s
    fig = go.Figure()
    _step_traces(fig, df.sort("gpu_name", "at"), "gpu_name", now)
    _dated_points(fig, con, None, "on_demand")
    fig.update_layout(yaxis={"title": "USD per GPU-hour (cheapest on-demand)", "type": "log"})
    s.chart = _chart(fig, s.key, height=460)
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def spot_section(con, gpu: str) -> Section:
    s = Section(
        "spot",
        f"Spot price bands per region: {gpu}",
        f"Every {gpu} spot price point seen (fct_spot_prices), per provider and region: the "
        "bar spans the 5th to the 95th percentile, the dot is the median.",
    )
    df = api.read_spot_bands(con, gpu)
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
    df = api.read_cost_per_token_best(con)
    if df.is_empty():
        s.note = "no data: no priced GPU with a BF16 peak"
        return s
    df = df.filter(pl.col("pricing_model").is_in(["on_demand", "spot"]))
    s.chart = _dots_by_pricing(
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
    df = api.read_breakeven_table(con)
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
    df = api.read_active_alerts(con)
    if df.is_empty():
        s.note = "no active alerts"
        return s
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


SECTIONS: list[Callable[..., Section]] = [
    cheapest_section,
    history_section,
    history_all_section,
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
        meta = api.read_report_meta(con)
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
