"""docs/report.png is current: scripts/report_screenshot.py records the digest of the demo
report it drew (docs/report.png.sha256), and the report rendered now from the demo has the
same digest; a change to the report's code, template or the demo data fails here until
the script is run again (`uv run python scripts/report_screenshot.py`). And the demo
report shows history: more than one dated night, and the 2023 survey."""

from __future__ import annotations

from datetime import datetime

import polars as pl

from gpu_pricing import report
from scripts import report_screenshot as shot
from warehouse import db


def test_the_readme_screenshot_was_drawn_from_the_report_the_demo_gives_now(demo_warehouse):
    html, sections = shot.render(demo_warehouse)
    recorded = shot.DIGEST.read_text().strip()
    assert shot.digest(html) == recorded, (
        "docs/report.png is stale: run `uv run python scripts/report_screenshot.py`"
    )
    assert shot.SCREENSHOT.stat().st_size > 100_000
    assert {k for k, has in sections.items() if not has} <= {"alerts"}


def test_the_demo_history_spans_dated_nights_and_shows_the_2023_survey(demo_warehouse):
    con = db.connect_readonly(demo_warehouse)
    try:
        h100 = report.history_section(con, "H100")
        long = report.history_all_section(con, "H100")
    finally:
        con.close()
    nights = pl.DataFrame(h100.rows)["at"].dt.date().unique()
    assert nights.len() >= 2
    on_demand = pl.DataFrame(h100.rows).filter(pl.col("pricing_model") == "on_demand")
    assert on_demand["price_usd_per_gpu_hour"].n_unique() >= 2  # a real step, not one instant
    assert "dated survey rows (unverified)" in long.chart
    assert "2023-04-07" in long.chart  # the survey's points, at their date
    a100 = pl.DataFrame(long.rows).filter(pl.col("gpu_name") == "A100")
    assert a100["at"].min() < datetime(2024, 1, 1)
