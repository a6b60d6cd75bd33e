"""`gpu-pricing report`: one self-contained HTML file (plotly.js inlined once, no network
needed to open it) built from the marts. (The markdown summary each refresh leaves as a
Prefect artifact is `flows.artifacts`.)

Sections: cheapest per-GPU-hour by GPU and pricing model; price history of one GPU
(every verified price period, historical sheet rows included); spot price bands (p5-p95) per
region of that GPU; cost per 1M training tokens per GPU; buy-vs-rent break-even; the
training plan frontier of the workload in gpu-pricing.toml's `[plan]`
(gpu_pricing.report_plan); active alerts. A section is a `gpu_pricing.report_section.Section`.
Each section reads its relation on its own: a mart that is missing or empty makes that
section say "no data" and the others go on.

The cost sections read `mart_cost_per_token` and `mart_breakeven_onprem`; on a warehouse
built before those marts existed they fall back to the same formulas in `models/`
(training.estimate_training at MFU 0.45 for 1B parameters, breakeven.onprem) over
`dim_gpus` and `mart_cheapest_gpu_hour`.
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

from connectors._page import utc_now
from flows.artifacts import fmt as _fmt
from gpu_pricing.report_plan import plan_section
from gpu_pricing.report_section import Section
from gpu_pricing.report_section import chart as _chart
from models import breakeven, training
from warehouse import db
from warehouse.errors import WarehouseError
from warehouse.schemas import PRICING_MODELS

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
# The fallback cost-per-token assumptions, the same as mart_cost_per_token's.
REFERENCE_MFU = 0.45
REFERENCE_PARAMS = 1e9
REFERENCE_TOKENS = 1e6
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


def _q(con, sql: str, params: dict | None = None) -> pl.DataFrame:
    return db.query(con, sql, params)


def _exists(con, name: str) -> bool:
    return (
        db.run(
            con,
            """SELECT count(*) FROM (SELECT view_name AS n FROM duckdb_views()
                                     UNION ALL SELECT table_name FROM duckdb_tables())
               WHERE n = ?""",
            [name],
        )[0][0]
        > 0
    )


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
    df = _q(
        con,
        """SELECT gpu_name, gpu_memory_gib, pricing_model, price_usd_per_gpu_hour, provider,
                  region, instance_type, median_provider_usd_per_gpu_hour, providers
           FROM mart_cheapest_gpu_hour ORDER BY gpu_name, gpu_memory_gib, pricing_model""",
    )
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
    df = _q(
        con,
        """
        WITH periods AS (
            SELECT pricing_model, provider, valid_from,
                   coalesce(valid_to, TIMESTAMP '9999-12-31') AS valid_until,
                   price_usd_per_gpu_hour AS price
            FROM fct_gpu_prices
            WHERE gpu_name = $gpu AND price_usd_per_gpu_hour IS NOT NULL
              AND is_verified AND coalesce(host_included, true)
        ),
        points AS (
            SELECT DISTINCT pricing_model, valid_from AS at FROM periods
            UNION
            SELECT DISTINCT pricing_model, valid_until FROM periods
            WHERE valid_until < TIMESTAMP '9999-12-31'
        )
        SELECT pt.pricing_model, pt.at, min(p.price) AS price_usd_per_gpu_hour,
               arg_min(p.provider, p.price) AS provider
        FROM points pt
        JOIN periods p ON p.pricing_model = pt.pricing_model
         AND p.valid_from <= pt.at AND pt.at < p.valid_until
        GROUP BY ALL
        ORDER BY pt.pricing_model, pt.at
        """,
        {"gpu": gpu},
    )
    if df.is_empty():
        s.note = f"no data: no {gpu} prices in fct_gpu_prices"
        return s
    now = _q(con, "SELECT max(fetched_at) AS t FROM fct_gpu_prices")["t"][0]
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
    df = _q(
        con,
        """SELECT provider || ' ' || region AS region, count(*) AS points,
                  quantile_cont(price_usd_per_gpu_hour, 0.05) AS p5_usd_per_gpu_hour,
                  median(price_usd_per_gpu_hour) AS p50_usd_per_gpu_hour,
                  quantile_cont(price_usd_per_gpu_hour, 0.95) AS p95_usd_per_gpu_hour,
                  min(observed_at) AS first_seen, max(observed_at) AS last_seen
           FROM fct_spot_prices
           WHERE gpu_name = $gpu AND price_usd_per_gpu_hour IS NOT NULL
           GROUP BY ALL ORDER BY p50_usd_per_gpu_hour, region""",
        {"gpu": gpu},
    )
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
    if _exists(con, "mart_cost_per_token"):
        df = _q(
            con,
            """SELECT gpu_name, gpu_memory_gib, pricing_model,
                      min(usd_per_1m_training_tokens_per_b_params) AS usd_per_1m_tokens_per_b_params,
                      arg_min(provider, usd_per_1m_training_tokens_per_b_params) AS provider,
                      arg_min(region, usd_per_1m_training_tokens_per_b_params) AS region,
                      any_value(mfu) AS mfu
               FROM mart_cost_per_token
               WHERE usd_per_1m_training_tokens_per_b_params IS NOT NULL
               GROUP BY ALL ORDER BY gpu_name, gpu_memory_gib, pricing_model""",
        )
    else:
        df = _fallback_cost_per_token(con)
    if df.is_empty():
        s.note = "no data: no priced GPU with a BF16 peak"
        return s
    df = df.filter(pl.col("pricing_model").is_in(["on_demand", "spot"]))
    s.chart = _bar_by_pricing(
        df, "usd_per_1m_tokens_per_b_params", s.key, "USD per 1M tokens per 1B params"
    )
    s.columns, s.rows = df.columns, df.to_dicts()
    return s


def _fallback_cost_per_token(con) -> pl.DataFrame:
    if _exists(con, "dim_gpu_variants") and _exists(con, "int_offers_usable"):
        # per GPU x pricing model, the offer with the least USD per peak FLOP at its own
        # form factor's peak (an H100 PCIe at 756 TFLOPS, SXM at 989), as the mart ranks
        sql = """SELECT o.gpu_name, o.gpu_memory_gib, o.pricing_model,
                        arg_min(o.price_usd_per_gpu_hour, o.price_usd_per_gpu_hour / g.bf16_tflops)
                            AS price_usd_per_gpu_hour,
                        arg_min(o.provider, o.price_usd_per_gpu_hour / g.bf16_tflops) AS provider,
                        arg_min(o.region, o.price_usd_per_gpu_hour / g.bf16_tflops) AS region,
                        arg_min(g.bf16_tflops, o.price_usd_per_gpu_hour / g.bf16_tflops)
                            AS bf16_tflops
                 FROM int_offers_usable o
                 JOIN dim_gpu_variants g USING (gpu_name, gpu_memory_gib, gpu_variant)
                 WHERE g.bf16_tflops IS NOT NULL
                 GROUP BY ALL ORDER BY gpu_name, gpu_memory_gib, pricing_model"""
    else:  # a warehouse from before GPU variants
        sql = """SELECT c.gpu_name, c.gpu_memory_gib, c.pricing_model, c.price_usd_per_gpu_hour,
                        c.provider, c.region, g.bf16_tflops
                 FROM mart_cheapest_gpu_hour c JOIN dim_gpus g USING (gpu_name, gpu_memory_gib)
                 WHERE g.bf16_tflops IS NOT NULL
                 ORDER BY c.gpu_name, c.gpu_memory_gib, c.pricing_model"""
    rates = _q(con, sql)
    # one models/ call per GPU x pricing model (tens of rows)
    costs = [
        training.estimate_training(
            REFERENCE_PARAMS, REFERENCE_TOKENS, peak, REFERENCE_MFU, 1, rate
        )["cost_usd"]
        for peak, rate in zip(rates["bf16_tflops"], rates["price_usd_per_gpu_hour"], strict=True)
    ]
    return rates.select(
        "gpu_name",
        "gpu_memory_gib",
        "pricing_model",
        pl.Series("usd_per_1m_tokens_per_b_params", costs, dtype=pl.Float64),
        "provider",
        "region",
        pl.lit(REFERENCE_MFU).alias("mfu"),
    )


def breakeven_section(con, gpu: str) -> Section:
    s = Section(
        "breakeven",
        "Buy vs rent: on-prem break-even",
        "Months of use after which buying the GPU (reference capex, no power or resale) "
        "beats renting it at the cheapest on-demand rate, at 100% and 50% utilisation "
        "(720-hour months). Only GPUs with a published reference price.",
    )
    if _exists(con, "mart_breakeven_onprem"):
        df = _q(
            con,
            """SELECT gpu_name, gpu_memory_gib, capex_usd, on_demand_usd_per_gpu_hour, provider,
                      break_even_gpu_hours, break_even_months_at_100pct,
                      break_even_months_at_50pct
               FROM mart_breakeven_onprem
               WHERE break_even_gpu_hours IS NOT NULL
               ORDER BY break_even_months_at_100pct""",
        )
    else:
        df = _fallback_breakeven(con)
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


def _fallback_breakeven(con) -> pl.DataFrame:
    rows = _q(
        con,
        """SELECT c.gpu_name, c.gpu_memory_gib, g.capex_usd,
                  c.price_usd_per_gpu_hour AS on_demand_usd_per_gpu_hour, c.provider
           FROM mart_cheapest_gpu_hour c JOIN dim_gpus g USING (gpu_name, gpu_memory_gib)
           WHERE c.pricing_model = 'on_demand' AND g.capex_usd IS NOT NULL""",
    ).to_dicts()
    out = []
    for r in rows:  # one models/ call per GPU (a handful)
        full = breakeven.onprem(r["capex_usd"], r["on_demand_usd_per_gpu_hour"], 1.0)
        half = breakeven.onprem(r["capex_usd"], r["on_demand_usd_per_gpu_hour"], 0.5)
        out.append(
            {
                **r,
                "break_even_gpu_hours": full["break_even_gpu_hours"],
                "break_even_months_at_100pct": full["break_even_months"],
                "break_even_months_at_50pct": half["break_even_months"],
            }
        )
    schema = {
        "gpu_name": pl.String,
        "gpu_memory_gib": pl.Float64,
        "capex_usd": pl.Float64,
        "on_demand_usd_per_gpu_hour": pl.Float64,
        "provider": pl.String,
        "break_even_gpu_hours": pl.Float64,
        "break_even_months_at_100pct": pl.Float64,
        "break_even_months_at_50pct": pl.Float64,
    }
    return pl.DataFrame(out, schema=schema).sort("break_even_months_at_100pct")


def alerts_section(con, gpu: str) -> Section:
    s = Section(
        "alerts",
        "Active alerts",
        "Budgets and rate rules currently in ALARM (`gpu-pricing alerts check`), newest first.",
    )
    df = _q(
        con,
        """SELECT rule, value, threshold, since, message, delivered
           FROM alert_rule_states WHERE state = 'ALARM' ORDER BY since DESC, rule""",
    )
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
    alerts_section,
]


def build_sections(con, gpu: str, workload: Any = None) -> list[Section]:
    out = []
    for build in SECTIONS:
        try:
            # the plan section plans the configured workload ([plan] in gpu-pricing.toml)
            out.append(build(con, gpu, workload) if build is plan_section else build(con, gpu))
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
        meta = _q(
            con,
            """SELECT (SELECT max(fetched_at) FROM mart_gpu_offers_current) AS prices_as_of,
                      (SELECT count(*) FROM mart_gpu_offers_current) AS offers,
                      (SELECT string_agg(DISTINCT provider, ', ' ORDER BY provider)
                       FROM mart_gpu_offers_current) AS providers""",
        ).row(0, named=True)
    except duckdb.Error:
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
