"""The demo's AWS spot price history is invented (a seeded random walk: the demo README),
and its pages say so: every point stages `illustrative`, and no spot statistic, band,
history or break-even shows one. The spot points that remain are real offer prices."""

from __future__ import annotations

import duckdb

from tests._cli import cli, cli_json


def rows(path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_demo_spot_history_is_staged_illustrative(demo_warehouse):
    assert rows(
        demo_warehouse, "SELECT provenance, count(*) > 1000 FROM stg_aws__spot_prices GROUP BY ALL"
    ) == [("illustrative", True)]


def test_no_invented_spot_point_is_a_statistic_a_band_or_a_history(demo_warehouse):
    # every point left is a verified price, and none of the invented AWS series
    assert rows(demo_warehouse, "SELECT DISTINCT provenance FROM fct_spot_prices ORDER BY 1") == [
        ("api",), ("published_sheet",)
    ]
    assert rows(demo_warehouse, "SELECT count(*) FROM fct_spot_prices WHERE provider = 'aws'") == [
        (0,)
    ]
    assert rows(
        demo_warehouse, "SELECT count(*) FROM mart_spot_price_stats WHERE provider = 'aws'"
    ) == [(0,)]
    assert rows(demo_warehouse, "SELECT count(*) FROM mart_spot_price_stats")[0][0] > 0
    assert rows(
        demo_warehouse, "SELECT count(*) FROM mart_spot_breakeven WHERE provider = 'aws'"
    ) == [(0,)]
    # the command line: AWS's A100 spot history is empty, another provider's is there
    doc = cli_json(demo_warehouse, "history", "--gpu", "A100", "--pricing", "spot")
    assert {r["provider"] for r in doc["history"]} - {"aws"} == {r["provider"] for r in doc["history"]}
    result = cli("history", "--gpu", "A100", "--pricing", "spot", "--provider", "aws",
                 "--warehouse", demo_warehouse)
    assert result.exit_code == 0
    assert "(no rows)" in result.stdout
    assert "illustrative or unverified" in " ".join(result.stdout.split())
