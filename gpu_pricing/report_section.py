"""One section of the HTML report (`gpu_pricing.report`, `gpu_pricing.report_plan`): its
title, intro, chart and table, or the reason it has no data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go


@dataclass
class Section:
    key: str
    title: str
    intro: str
    chart: str | None = None  # plotly <div> + <script>, no plotly.js
    columns: list[str] | None = None
    rows: list[dict[str, Any]] | None = None
    note: str | None = None  # "no data" and why

    @property
    def has_data(self) -> bool:
        return self.note is None


def chart(fig: go.Figure, key: str, height: int = 420) -> str:
    fig.update_layout(
        height=height,
        margin={"l": 60, "r": 20, "t": 30, "b": 60},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.2},
    )
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"chart-{key}",
        default_height=f"{height}px",
        config={"displaylogo": False, "responsive": True},
    )
