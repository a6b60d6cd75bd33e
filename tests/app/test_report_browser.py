"""`gpu-pricing report`: a self-contained HTML file, opened in a real headless Chromium,
with no console errors and no network. The screenshot is saved to tmp (the README's
docs/report.png is drawn from the demo by scripts/report_screenshot.py).

The browser test finds Chromium on PATH (Debian's `chromium` package, which `.ci/run`
installs before the tests) or Playwright's own download (`uv run playwright install
chromium`); without either it is skipped, saying so. It installs nothing itself.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connectors.kit.snapshot import DEMO_DIR
from gpu_pricing.cli import app
from scripts.report_screenshot import NOW, find_chromium, render, screenshot
from services import alerts, config
from tests._warehouse import copy_warehouse, refresh_from
from warehouse import db


@pytest.fixture(scope="session")
def chromium() -> Path:
    found = find_chromium()
    if found is None:
        pytest.skip(
            "no headless Chromium here: install Debian's `chromium` package (as .ci/run "
            "does) or run `uv run playwright install chromium`"
        )
    return found


@pytest.fixture(scope="module")
def report_warehouse(tmp_path_factory, demo_warehouse) -> Path:
    """Every demo provider, then a day later Azure's H100 up 20% (a step in the history;
    the raised Azure pages say nothing of their provenance, so their prices count as
    Azure's own), and one budget and one rate rule in ALARM."""

    tmp = tmp_path_factory.mktemp("report")
    path = copy_warehouse(demo_warehouse, tmp / "w.duckdb")
    raised = tmp / "raised"
    shutil.copytree(DEMO_DIR / "azure", raised / "azure")
    for page in (raised / "azure" / "retail_prices").glob("*.json"):
        doc = json.loads(page.read_text())
        for item in doc["body"]["Items"]:
            if item["armSkuName"] == "Standard_ND96isr_H100_v5":
                item["retailPrice"] = item["unitPrice"] = round(item["retailPrice"] * 1.2, 4)
        doc["fetched_at"] = "2026-11-21T02:00:00Z"
        doc.pop("provenance", None)
        page.write_text(json.dumps(doc))
    refresh_from(path, raised, "azure", source="raised")
    cfg = config.parse(
        {
            "budgets": [
                {
                    "name": "fine-tune",
                    "gpu": "A100",
                    "memory_gib": 80,
                    "gpus": 64,
                    "pricing_model": "spot",
                    "hours_per_day": 12,
                    "budget_usd": 20000,
                }
            ],
            "rules": [
                {
                    "name": "h100-azure-above-13",
                    "kind": "price_above",
                    "gpu": "H100",
                    "memory_gib": 80,
                    "usd_per_gpu_hour": 13,
                    "providers": ["azure"],
                }
            ],
        }
    )
    alerts.check(path, cfg, now=NOW)
    return path


def test_the_report_command_writes_one_self_contained_file(tmp_path, report_warehouse):
    out = tmp_path / "sub" / "report.html"
    result = CliRunner().invoke(
        app, ["report", "--out", str(out), "--warehouse", str(report_warehouse), "--json"]
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["sections"] == {
        "cheapest": True,
        "history": True,
        "history_all": True,
        "spot": True,
        "cost_per_token": True,
        "breakeven": True,
        "plan": True,
        "serve": True,
        "alerts": True,
    }
    html = out.read_text()
    assert html.count("<script src=") == 0 and "<link " not in html  # nothing to fetch
    assert html.count("Plotly.newPlot") == 8  # eight charts, one inlined plotly.js
    assert "rate:h100-azure-above-13" in html


def test_the_report_opens_in_chromium_without_errors_or_network(
    tmp_path, report_warehouse, chromium
):
    html, _ = render(report_warehouse)
    png = tmp_path / "report.png"
    seen = screenshot(html, png, chromium)
    assert seen["errors"] == []
    assert seen["failed"] == [] and len(seen["requests"]) == 1  # the page's own file
    assert seen["requests"][0].startswith("file://")
    assert len(seen["charts"]) == html.count("Plotly.newPlot") >= 5
    assert seen["charts"]["chart-cheapest"] > 10  # its bars
    assert png.stat().st_size > 50_000


def test_sections_say_no_data_instead_of_failing_on_an_empty_warehouse(tmp_path):
    path = tmp_path / "empty.duckdb"
    with db.building(path):
        pass  # bookkeeping tables only: no marts, no views
    html, sections = render(path)
    assert sections == dict.fromkeys(sections, False) and len(sections) == 9
    assert html.count('class="nodata"') == 9


def test_without_the_cost_marts_the_report_says_no_data_and_computes_nothing(
    tmp_path, report_warehouse
):
    """The cost figures are the marts' own: a warehouse without them gets "no data" and a
    refresh hint in those two sections, not figures worked out another way."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(report_warehouse, path)
    with db.building(path) as con:
        db.run(con, "DROP VIEW mart_cost_per_token")
        db.run(con, "DROP VIEW mart_breakeven_onprem")
    html, sections = render(path)
    assert not sections["cost_per_token"] and not sections["breakeven"]
    assert sections["cheapest"] and sections["history"]
    assert "mart_cost_per_token" in html and "mart_breakeven_onprem" in html
    assert html.count("run `gpu-pricing refresh` first") == 2
