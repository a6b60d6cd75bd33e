"""Seeweb end to end from the demo snapshot: euro plan prices reach `rates` in USD at the
recorded EUR rate, and nothing lands in quarantine."""

from __future__ import annotations

import json

import duckdb
from typer.testing import CliRunner

from connectors.kit import snapshot as kit_snapshot
from flows import pipeline
from gpu_pricing.cli import app


def test_seeweb_demo_refreshes_and_shows_usd_rates(tmp_path):
    path = tmp_path / "w.duckdb"
    pages = {"seeweb": list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "seeweb"))}
    summary = pipeline.load_and_publish(path, pages, source="demo")
    assert summary.exit_code == 0 and [p.status for p in summary.providers] == ["ok"]
    result = CliRunner().invoke(
        app,
        ["rates", "--provider", "seeweb", "--gpu", "H100", "--json", "--include-illustrative",
         "--warehouse", str(path)],
    )  # the demo's Seeweb H100 price is illustrative (fmt: skip)
    assert result.exit_code == 0, result.output
    (h100,) = json.loads(result.stdout)["rates"]
    # 2.43 EUR per hour x 1.1463 USD per EUR (ECB reference rate of 2026-09-22)
    assert (h100["instance_type"], h100["price_usd_per_gpu_hour"]) == ("ECS1GPU10", 2.785509)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("select count(*) from quarantine").fetchone() == (0,)
        (unit,) = con.execute(
            "select source_unit from stg_seeweb__offers where instance_type = 'ECS1GPU10'"
        ).fetchone()
    assert unit.endswith("converted to USD at 1.1463 USD per EUR, reference rate of 2026-09-22 "
                         "(ECB euro foreign exchange reference rates)")  # fmt: skip
