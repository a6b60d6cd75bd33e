"""`rates`, its count of what the default leaves out, `estimate` and the planner's offers
read stored tables only (mart_gpu_offers_current, with is_usable stored from
int_offers_usable at build time; mart_spot_on_demand_pairs), not the offer view stack; what
`rates` lists by default is stated once (rates.sql), and the count is one DuckDB pass
returning counts only."""

from __future__ import annotations

import json
import re
import shutil

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from gpu_pricing import api
from gpu_pricing.cli import app
from warehouse import db, lineage, queries

runner = CliRunner()


def test_is_usable_is_membership_of_int_offers_usable(demo_counted_warehouse, demo_warehouse):
    for path in (demo_warehouse, demo_counted_warehouse):
        con = duckdb.connect(str(path), read_only=True)
        try:
            stored = con.sql(
                "SELECT cheapest_order FROM mart_gpu_offers_current WHERE is_usable"
            ).pl()
            usable = con.sql("SELECT cheapest_order FROM int_offers_usable").pl()
            unusable = con.execute(
                "SELECT count(*) FROM mart_gpu_offers_current WHERE NOT is_usable"
            ).fetchone()[0]
        finally:
            con.close()
        assert stored.sort("cheapest_order").equals(usable.sort("cheapest_order"))
        assert stored.height > 0 and unusable > 0  # both kinds are there to tell apart


@pytest.mark.parametrize("name", ["rates", "left_out", "estimate_offers", "offers_usable"])
def test_the_read_commands_read_stored_tables_not_the_offer_views(name, demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        kinds = dict(
            con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall()
        )
    finally:
        con.close()
    read = lineage.references(queries.sql(name), name)
    # dim_gpu_variants: a view over two seed tables (a few dozen rows)
    views = {r for r in read if kinds[r] != "BASE TABLE"} - {"dim_gpu_variants"}
    assert views == set(), f"{name} computes views on every call: {views}"


def test_what_rates_lists_by_default_is_stated_once():
    # rates.sql computes listed_by_default; left_out.sql reads rates.sql's rows, so the
    # rule and the filters are not written a second time
    homes = [p.stem for p in queries.QUERIES_DIR.glob("*.sql")
             if re.search(r"\bAS\s+listed_by_default\b", p.read_text(), re.I)]
    assert homes == ["rates"]
    text = (queries.QUERIES_DIR / "left_out.sql").read_text()
    assert "{{ rates }}" in text and "is_usable" not in text and "$" not in text.split("\n", 4)[-1]
    assert queries.sql("rates") in queries.sql("left_out")


def test_rates_rows_do_not_carry_the_count_column(demo_counted_warehouse):
    frame = api.rates(warehouse=demo_counted_warehouse, include_illustrative=True)
    assert "listed_by_default" not in frame.columns
    assert "note" in frame.columns


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"gpu": "H100"},
        {"gpu": "A100", "pricing": "spot"},
        {"provider": "gcp", "include_gpu_only": True},
        {"gpu": "L4", "include_gpu_only": True},
        {"provider": "sheets"},
    ],
    ids=repr,
)
def test_left_out_is_what_include_illustrative_adds(demo_counted_warehouse, demo_warehouse, filters):
    """The counts equal the rows --include-illustrative adds to the default answer (the
    difference of the two answers, keyed by offer), by provenance."""
    key = ["provider", "region", "zone", "instance_type", "pricing_model"]
    for path in (demo_warehouse, demo_counted_warehouse):
        with api.connect(path) as con:
            if filters.get("provider") and filters["provider"] not in api.read_providers(con):
                continue
            every = api.read_rates(con, include_illustrative=True, **filters)
            shown = api.read_rates(con, **filters)
            counts = api.read_left_out(con, **filters)
        added = every.join(shown, on=key, how="anti", nulls_equal=True)
        want = dict(added.group_by("provenance").len().sort("provenance").iter_rows())
        assert counts == want
        assert all(isinstance(n, int) for n in counts.values())
        assert shown.join(every, on=key, how="anti", nulls_equal=True).is_empty()


def test_demo_left_out_counts_illustrative_prices(demo_warehouse):
    with api.connect(demo_warehouse) as con:
        counts = api.read_left_out(con)
    assert set(counts) == {"illustrative"} and counts["illustrative"] > 0


def test_rates_on_a_warehouse_built_before_is_usable_asks_for_a_refresh(
    demo_warehouse, tmp_path
):
    """A warehouse an older version built has no is_usable: one line, exit 2, no
    traceback, and nothing in it changed."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:
        db.run(con, "ALTER TABLE mart_gpu_offers_current DROP COLUMN is_usable")
    before = path.read_bytes()
    result = runner.invoke(app, ["rates", "--warehouse", str(path), "--limit", "1"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "is_usable" in lines[0], result.stderr
    assert "run `gpu-pricing refresh` first" in lines[0]
    assert "Traceback" not in result.output + result.stderr
    assert path.read_bytes() == before


def test_rates_json_says_what_was_left_out(demo_warehouse):
    result = runner.invoke(
        app, ["rates", "--warehouse", str(demo_warehouse), "--gpu", "H100", "--json"]
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    with api.connect(demo_warehouse) as con:
        assert doc["left_out"] == api.read_left_out(con, "H100")
    assert doc["left_out"]["illustrative"] > 0
    assert pl.DataFrame(doc["rates"])["is_verified"].all()


def test_the_planners_offers_are_the_usable_offers_with_the_flag_rates_shows(
    demo_counted_warehouse,
):
    with api.connect(demo_counted_warehouse) as con:
        offers = api.read_offers(con)
        usable = con.execute(
            "SELECT cheapest_order FROM int_offers_usable ORDER BY cheapest_order"
        ).fetchall()
        every = api.read_rates(con, include_illustrative=True)
    assert offers["cheapest_order"].to_list() == [r[0] for r in usable]
    spot = offers.filter(pl.col("pricing_model") == "spot")
    assert spot.height > 0 and spot["preemption_rate_per_hour"].null_count() < spot.height
    flags = every.select("cheapest_order", "price_flag").join(
        offers.select("cheapest_order", "price_flag"), on="cheapest_order", suffix="_offers"
    )
    assert flags.height == offers.height
    assert flags["price_flag"].null_count() < flags.height  # some spot offer is flagged
    assert flags["price_flag"].equals(flags["price_flag_offers"], null_equal=True)


def test_a_read_connection_draws_no_progress_bar(demo_warehouse):
    """A read of over ~2 s would draw DuckDB's progress bar on stdout, ahead of a
    command's --json document."""
    with api.connect(demo_warehouse) as con:
        setting = con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0]
    assert setting is False
