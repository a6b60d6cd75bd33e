"""The published file stays readable by DuckDB 1.x tools (an analyst's `duckdb -readonly`
may well be one): it is written in the compatible storage format (db.STORAGE_COMPATIBILITY),
while the scratch database a build keeps its held views in uses DuckDB's newest format."""

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
