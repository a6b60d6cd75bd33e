"""The refresh's markdown artifact (the cheapest offers now and the alert outcome), and the
cell formatting it shares with the HTML report (`gpu_pricing.report`)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse import db

# columns shown as whole numbers when they are (80, not 80.0000)
WHOLE_COLUMNS = {"gpu_memory_gib", "gpu_count", "providers", "points", "offers"}


def fmt(value: Any, column: str | None = None) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and column in WHOLE_COLUMNS and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:,.4f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def _markdown_table(df: pl.DataFrame) -> str:
    if df.is_empty():
        return "(no rows)"
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    body = [
        "| " + " | ".join(fmt(v, c) for v, c in zip(row, df.columns, strict=True)) + " |"
        for row in df.iter_rows()
    ]
    return "\n".join([head, rule, *body])


def refresh_markdown(path: Path, checked: Any = None) -> str:
    """The cheapest table and the alert outcome, for the refresh's markdown artifact."""
    lines = ["## Cheapest per-GPU-hour offers now", ""]
    try:
        con = db.connect_readonly(Path(path))
    except Exception as exc:
        return "\n".join([*lines, f"(warehouse unavailable: {exc})"])
    try:
        lines.append(
            _markdown_table(
                db.query(
                    con,
                    """SELECT gpu_name, gpu_memory_gib, pricing_model, price_usd_per_gpu_hour,
                              provider, region, instance_type
                       FROM mart_cheapest_gpu_hour
                       ORDER BY gpu_name, gpu_memory_gib, pricing_model""",
                )
            )
        )
    except duckdb.Error as exc:
        lines.append(f"(no data: {str(exc).splitlines()[0]})")
    finally:
        con.close()
    lines += ["", "## Alerts", ""]
    if checked is None:
        lines.append("Alerts were not checked (see the run log).")
    else:
        active = [e for e in checked.evaluations if e.state == "ALARM"]
        lines.append(
            f"{len(checked.fired)} change(s) of state; {len(active)} rule(s) in ALARM; "
            f"{len(checked.failed_deliveries)} failed delivery(ies)."
        )
        lines += [f"- **{t.state}** {t.message}" for t in checked.fired]
    return "\n".join(lines)
