"""Publishing to a local path: layout, the SQLite catalog, schema evolution (a new column
in a later publish), the command line with --json, and [publish] in gpu-pricing.toml."""

from __future__ import annotations

import json
import os
import sqlite3

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app
from tests.app.publish.test_publish_s3 import NAMES, duck, same_rows
from warehouse import publish as pub


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_local_path_gets_the_standard_layout_and_a_sql_catalog(warehouse, tmp_path):
    out = tmp_path / "published"
    result = pub.publish(warehouse, str(out))
    for name in NAMES:
        metadata = list((out / "gpu_pricing" / name / "metadata").glob("*.metadata.json"))
        assert len(metadata) == 1
        assert list((out / "gpu_pricing" / name / "data").rglob("*.parquet"))
    # the SQL catalog is a plain SQLite file in the Iceberg JDBC catalog's schema
    with sqlite3.connect(out / "catalog.db") as con:
        rows = con.execute(
            "SELECT catalog_name, table_namespace, table_name, metadata_location FROM iceberg_tables"
        ).fetchall()
    assert {r[2] for r in rows} == set(NAMES)
    assert {(r[0], r[1]) for r in rows} == {("gpu_pricing", "gpu_pricing")}
    assert {r[3] for r in rows} == {t.metadata_location for t in result.tables}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tables"]["dim_gpus"]["rows"] == duck(warehouse, "dim_gpus").height
    # the DuckDB file beside the tables opens read-only with the same marts
    con = duckdb.connect(str(out / "gpu_pricing.duckdb"), read_only=True)
    assert (
        con.execute("SELECT count(*) FROM mart_gpu_offers_current").fetchall()[0][0]
        == (manifest["tables"]["mart_gpu_offers_current"]["rows"])
    )
    con.close()
    # nothing of the pinned copy is left beside the warehouse
    beside = {warehouse.name, warehouse.name + ".raw", warehouse.name + ".lock"}
    assert {p.name for p in warehouse.parent.iterdir()} <= beside


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_new_column_in_a_later_publish_evolves_the_schema(warehouse, tmp_path):
    out = str(tmp_path / "published")
    first = {t.name: t for t in pub.publish(warehouse, out).tables}
    con = duckdb.connect(str(warehouse))
    # a base table gains a column and a row; a mart (a table a refresh materialises)
    # gains a column
    con.execute("ALTER TABLE _loads ADD COLUMN collector VARCHAR")
    con.execute(
        "INSERT INTO _loads BY NAME SELECT * REPLACE ('load-new' AS load_id, 'night-2' AS collector)"
        " FROM _loads ORDER BY load_id LIMIT 1"
    )
    con.execute("ALTER TABLE mart_cheapest_gpu_hour ADD COLUMN price_usd_per_gpu_day DOUBLE")
    con.execute("UPDATE mart_cheapest_gpu_hour SET price_usd_per_gpu_day = price_usd_per_gpu_hour * 24")
    # and a mart loses one
    view = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'dim_gpus'").fetchall()
    body = view[0][0].split(" AS ", 1)[1].rstrip().rstrip(";")
    con.execute(f"CREATE OR REPLACE VIEW dim_gpus AS SELECT * EXCLUDE (spec_source) FROM ({body})")
    con.close()

    second = {t.name: t for t in pub.publish(warehouse, out).tables}
    assert second["_loads"].schema_added == ["collector"]
    assert second["_loads"].rows_written == 1
    assert second["mart_cheapest_gpu_hour"].schema_added == ["price_usd_per_gpu_day"]
    assert second["dim_gpus"].schema_added == []

    cat = pub.open_catalog(out, workdir=tmp_path)
    loads = cat.load_table(("gpu_pricing", "_loads"))
    assert loads.schema().find_field("collector").optional
    now = pl.from_arrow(loads.scan().to_arrow())
    # rows published before the column existed read as null; the new row carries it
    assert now.filter(pl.col("load_id") == "load-new")["collector"].to_list() == ["night-2"]
    assert now.filter(pl.col("load_id") != "load-new")["collector"].null_count() == now.height - 1
    cheapest = cat.load_table(("gpu_pricing", "mart_cheapest_gpu_hour"))
    same_rows(pl.from_arrow(cheapest.scan().to_arrow()), duck(warehouse, "mart_cheapest_gpu_hour"))
    # a dropped column stays in the table and reads as null from then on
    gpus = pl.from_arrow(cat.load_table(("gpu_pricing", "dim_gpus")).scan().to_arrow())
    assert gpus.height == second["dim_gpus"].rows
    assert gpus["spec_source"].null_count() == gpus.height
    # the first night still reads, with the rows it had
    then = pl.from_arrow(
        cheapest.scan(snapshot_id=first["mart_cheapest_gpu_hour"].snapshot_id).to_arrow()
    )
    assert then.height == first["mart_cheapest_gpu_hour"].rows
    assert "price_usd_per_gpu_day" not in then.columns  # read with that night's schema


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_an_incompatible_type_change_is_one_error_naming_the_table(warehouse, tmp_path):
    out = str(tmp_path / "published")
    pub.publish(warehouse, out)
    con = duckdb.connect(str(warehouse))
    con.execute("ALTER TABLE _loads ALTER COLUMN pages TYPE VARCHAR")
    con.close()
    with pytest.raises(pub.PublishError, match=r"table _loads: .*pages"):
        pub.publish(warehouse, out)


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_cli_publish_json_twice(warehouse, tmp_path):
    out = tmp_path / "cli-out"
    args = ["publish", "--to", str(out), "--warehouse", str(warehouse), "--json"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert [t["name"] for t in doc["tables"]] == NAMES
    assert all(isinstance(t["snapshot_id"], int) for t in doc["tables"])
    rows = {t["name"]: t["rows"] for t in doc["tables"]}
    assert rows == {n: duck(warehouse, n).height for n in NAMES}
    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0, second.output
    again = json.loads(second.stdout)
    assert {t["name"]: t["rows_written"] for t in again["tables"] if t["mode"] == "append"} == {
        "fct_spot_prices": 0,
        "_loads": 0,
    }
    assert all(
        a["snapshot_id"] != b["snapshot_id"]
        for a, b in zip(doc["tables"], again["tables"], strict=True)
    )


def test_cli_publish_reads_the_destination_from_the_config(warehouse, tmp_path):
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text('[publish]\nto = "shared/prices"\nnamespace = "prices"\nduckdb = false\n')
    result = CliRunner().invoke(
        app, ["publish", "--config", str(cfg), "--warehouse", str(warehouse)]
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "shared" / "prices"  # relative to the config file
    assert (out / "prices" / "dim_gpus" / "metadata").is_dir()
    assert not (out / "gpu_pricing.duckdb").exists()
    assert "prices.fct_gpu_prices" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "ftp://host/x"], "--to ftp://...: unsupported scheme"),
        (["--to", "s3://key:secret@bucket/x"], "credentials do not belong in the URL"),
        ([], "--to is required"),
    ],
)
def test_cli_publish_usage_errors_are_one_line_exit_2(warehouse, args, message):
    result = CliRunner().invoke(app, ["publish", "--warehouse", str(warehouse), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "secret@" not in result.stderr


def test_cli_publish_without_a_warehouse_is_exit_2(tmp_path):
    result = CliRunner().invoke(
        app, ["publish", "--to", str(tmp_path / "o"), "--warehouse", str(tmp_path / "none.duckdb")]
    )
    assert result.exit_code == 2
    assert "run `gpu-pricing refresh` first" in result.stderr


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_catalog_changed_by_another_publisher_is_not_overwritten(
    warehouse, tmp_path, monkeypatch
):
    out = tmp_path / "published"
    pub.publish(warehouse, str(out), include_duckdb=False)
    real_write = pub._write_table
    interloper = b"SQLite format 3\x00 written by someone else"

    def another_publisher_meanwhile(catalog, ident, *args, **kwargs):
        (out / "catalog.db").write_bytes(interloper)
        return real_write(catalog, ident, *args, **kwargs)

    monkeypatch.setattr(pub, "_write_table", another_publisher_meanwhile)
    with pytest.raises(pub.PublishError, match=r"catalog\.db changed while this publish ran"):
        pub.publish(warehouse, str(out), include_duckdb=False)
    assert (out / "catalog.db").read_bytes() == interloper


def test_without_a_hard_link_the_warehouse_is_copied_and_nothing_is_left_behind(
    warehouse, tmp_path, monkeypatch
):
    def no_links(src, dst):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_links)
    result = pub.publish(warehouse, str(tmp_path / "out"), include_duckdb=False)
    assert result.tables[0].rows == duck(warehouse, result.tables[0].name).height
    assert not list(warehouse.parent.glob(".*publish-*"))


def test_a_warehouse_without_the_marts_is_exit_2_with_a_hint(tmp_path):
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    result = CliRunner().invoke(
        app, ["publish", "--to", str(tmp_path / "o"), "--warehouse", str(empty)]
    )
    assert result.exit_code == 2
    assert "run `gpu-pricing refresh` to build the marts first" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
