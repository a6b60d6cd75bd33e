"""The published file stays readable by DuckDB 1.x tools (an analyst's `duckdb -readonly`
may well be one): a new file is written in the compatible storage format
(db.STORAGE_COMPATIBILITY, opened by DuckDB 1.3 and later), a file made in an older format
keeps it, and the scratch database a build keeps its held views in uses DuckDB's newest
format."""

from __future__ import annotations

import shutil

import duckdb

from warehouse import db, materialise, sql_runner


def storage_version(path) -> str:
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {db.text_literal(str(path))} AS w (READ_ONLY)")
        ((tags,),) = con.execute(
            "SELECT tags FROM duckdb_databases() WHERE database_name = 'w'"
        ).fetchall()
        return tags["storage_version"]
    finally:
        con.close()


def test_a_new_warehouse_is_made_in_the_compatible_format(demo_warehouse):
    assert db.STORAGE_COMPATIBILITY == "v1.3.0"
    assert storage_version(demo_warehouse) == "v1.3.0+"


def test_a_warehouse_made_in_an_older_format_keeps_it(demo_warehouse, tmp_path):
    """A file made for DuckDB 1.1 tools (before the format was raised) is built and
    published in its own format: DuckDB writes a file as it was made, and the build never
    copies it into another (only a compaction would)."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path), config={"storage_compatibility_version": "v1.1.0"})
    try:
        con.execute(f"ATTACH {db.text_literal(str(demo_warehouse))} AS demo (READ_ONLY)")
        con.execute("COPY FROM DATABASE demo TO old")
    finally:
        con.close()
    before = storage_version(path)
    assert before == "v1.0.0+", before  # what DuckDB 2.0 names the 1.1 format
    with db.building(path) as con:
        sql_runner.build_views(con)
        with materialise.computed_once(con, materialise_marts=True):
            pass
    assert storage_version(path) == before
    read = duckdb.connect(str(path), read_only=True)
    try:
        assert read.execute("SELECT count(*) FROM mart_gpu_offers_current").fetchone()[0] > 0
    finally:
        read.close()


def test_the_published_file_is_in_the_compatible_format_after_a_build(demo_warehouse, tmp_path):
    assert storage_version(demo_warehouse).startswith("v1.")
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:  # a second build, its held views in the newest format
        sql_runner.build_views(con)
        with materialise.computed_once(con, materialise_marts=True) as held:
            assert held
            ((scratch,),) = db.run(
                con, "SELECT tags['storage_version'] FROM duckdb_databases() "
                f"WHERE database_name = '{materialise.HELD}'"
            )  # fmt: skip
    assert storage_version(path).startswith("v1."), storage_version(path)
    assert not scratch.startswith("v1."), scratch  # the scratch file is the build's alone
