"""A build's marts: the models declared `config: {materialized: table}` stored as tables,
and the views held once per build while they and the checks are computed.

A model whose schema file says `config: {materialized: table}` (dbt's key) is built as a
view like the others (warehouse.sql_runner.build_views); `materialise` (run by a refresh
once history is merged) replaces it by a table of the same name and columns, `CREATE
TABLE ... AS` its own SQL, so an analyst's query reads stored rows instead of recomputing
the view stack. `computed_once` holds the other views of a build while the marts and the
checks read them: their rows stored once in a scratch database beside the warehouse
(compressed, on disk: DuckDB reads them back through its buffer cache, and evicts them
without writing them anywhere), each reached by a temporary view of the view's name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import duckdb

from common.errors import WarehouseError
from warehouse import lineage
from warehouse.db import HELD_SUFFIX, drop_to_rewrite, run, text_literal
from warehouse.sql_runner import (
    SQL_DIR,
    apply_comments,
    build_order,
    lineage_graph,
    relation_kinds,
    relations,
    view_files,
)


def materialized(sql_dir: Path = SQL_DIR) -> list[str]:
    """The models declared `config: {materialized: table}`, in build order."""
    declared = {r.name for r in relations(sql_dir).values() if r.materialized}
    return [name for name in build_order(sql_dir) if name in declared]


def materialise(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> list[str]:
    """Replace each view declared `materialized: table` by a table of the same name built
    from its SQL (`CREATE TABLE ... AS` keeps the view's column names and types), with its
    descriptions. Views that read it read the table from then on. Run after `build_views`,
    once the tables the views read are final."""
    files = view_files(sql_dir)
    names = materialized(sql_dir)
    kinds = relation_kinds(con)
    declared = relations(sql_dir)
    for name in names:
        _materialise_one(con, name, files[name], kinds, declared[name].cluster_by)
    if names:
        apply_comments(con, sql_dir, set(names))
    return names


def _materialise_one(
    con: duckdb.DuckDBPyConnection,
    name: str,
    path: Path,
    kinds: dict[str, str],
    cluster_by: tuple[str, ...] = (),
) -> None:
    """`name` stored as a table of its SQL's rows; with `cluster_by` (its schema file's
    `config: {cluster_by: [...]}`), written in that order, so that rows alike lie together
    and compress (the build's insert is otherwise in no order: preserve_insertion_order
    is off)."""
    body = lineage.select_of(path)
    if cluster_by:
        body = f"SELECT * FROM (\n{body}\n) ORDER BY {', '.join(cluster_by)}"
    try:
        if kinds.get(name) == "VIEW":
            run(con, f"DROP VIEW {name}")
        run(con, f"CREATE OR REPLACE TABLE {name} AS\n{body}")
    except duckdb.Error as exc:
        raise WarehouseError(f"table {name} ({path}) failed to build: {exc}") from exc


def make_room(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> list[str]:
    """Drop the stored marts a build is about to rebuild and checkpoint
    (`db.drop_to_rewrite`), before the build's other changes are written: a checkpoint
    writes a changed table's new segments before it frees the old ones, so the history's
    (its closed periods' `valid_to`, its last row group) written at the checkpoint that
    also freed the marts needed blocks of their own, appended to the file every night
    (at a million Azure items ~6 blocks a night, kept free afterwards). Freed first, the
    marts' blocks take the history's new segments, and the history's old ones the marts
    `computed_once` builds after its own checkpoint. Returns the marts dropped."""
    return drop_to_rewrite(con, materialized(sql_dir))


# the layers whose views are computed once per build (`computed_once`); the alert inputs
# read alert_events, which the alerts check writes inside the same build
COMPUTED_ONCE_LAYERS = ("intermediate", "marts")


def _asserted(sql_dir: Path) -> list[set[str]]:
    """The relations each assertion file (`sql/tests/assert_*.sql`) reads."""
    return [
        lineage.references(lineage.select_of(p), str(p))
        for p in sorted((sql_dir / "tests").glob("assert_*.sql"))
    ]


HELD = "_held"  # the scratch database the held views' rows are stored in, while held


@contextmanager
def _scratch(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Attach the scratch database `HELD` for the block: a file beside the warehouse's
    (`<file>` + HELD_SUFFIX; a stale one, left by a killed refresh, is replaced), in memory
    for a warehouse in memory, in DuckDB's newest storage format. Detached and deleted at
    the end."""
    ((where,),) = run(
        con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    )
    scratch = Path(where + HELD_SUFFIX) if where else None
    files = [scratch, scratch.with_name(scratch.name + ".wal")] if scratch else []
    for f in files:
        f.unlink(missing_ok=True)
    # DuckDB's own newest storage format: the file is read by this build alone (the
    # published file keeps STORAGE_COMPATIBILITY for older tools), and its string
    # compression writes the held rows for ~2/3 of the CPU and in ~2/3 of the blocks
    run(con, f"ATTACH {text_literal(scratch or ':memory:')} AS {HELD} (STORAGE_VERSION 'latest')")
    try:
        yield
    finally:
        with contextlib.suppress(duckdb.Error):  # a connection DuckDB already invalidated
            run(con, f"DETACH {HELD}")
        for f in files:
            f.unlink(missing_ok=True)


@contextmanager
def computed_once(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, materialise_marts: bool = False,
    checks: Building | None = None,
) -> Iterator[list[str]]:  # fmt: skip
    """Inside the block, each view of the intermediate and mart layers (but the marts
    `materialise` builds as tables, the time series, `appended_by`, the views declared
    `meta: {held: false}` and the views nothing else reads) is held: computed once in
    dependency order (each from those before it), its rows stored in the scratch database
    (`_scratch`), and a temporary view of the same name reads them. DuckDB looks a name up
    in the temporary schema first, also from inside a view, so the marts materialised and
    the data tests run in the block read those rows instead of recomputing the view stack
    once per reader (at a million offers, ~20 readers of the same few views). Stored, not
    kept as temporary tables: those are held in memory uncompressed (~830 MB at a million
    offers, spilled past DuckDB's memory limit), the stored rows take ~60 MB compressed
    and are evicted for free. The rows are the view's own: no view reads a clock, and
    nothing in the block writes the tables they read. Dropped at the end; the published
    warehouse has the views as before. `materialise_marts`: the marts declared tables are
    built too (as `materialise` does), each at its place in that order, so a view held
    after one reads its stored rows instead of computing it again. `checks` (the
    warehouse's checks, warehouse.checks.Checking) is told what the block makes before it
    starts and each relation as it is made, so the checks that read none of those still to
    make run beside it; stopped if the block fails."""
    files = view_files(sql_dir)
    kinds = relation_kinds(con)
    declared = relations(sql_dir)
    tables = set(materialized(sql_dir))  # built as tables by `materialise`, never held
    # nor the time series (`appended_by`): holding one copies all its history every night;
    # nor a view declared `meta: {held: false}`: a filter or a scan of one relation, which
    # each reader computes again for less than a copy of its rows costs
    unheld = {r.name for r in declared.values() if r.appended_by or not r.held}
    # nor a view no other relation reads (a leaf mart): only its data tests read it, the
    # row-level ones in one pass, and computing it for them costs less than a held copy
    read = set().union(*lineage_graph(sql_dir).values(), *_asserted(sql_dir))
    steps = [  # (name, built as a table: else held)
        (name, materialise_marts and name in tables)
        for name in build_order(sql_dir)
        if (materialise_marts and name in tables)
        or (
            name in files
            and files[name].parent.name in COMPUTED_ONCE_LAYERS
            and kinds.get(name) == "VIEW"
            and name not in tables | unheld
            and name in read
        )
    ]
    held: list[str] = []
    if materialise_marts:
        # their blocks, and those of what the build changed before (its history: the
        # refresh drops the marts before that, `make_room`), reused for the tables
        # built now (db.drop_to_rewrite)
        drop_to_rewrite(con, sorted(tables))
    with _scratch(con):
        try:
            if checks is not None:
                checks.building(name for name, _ in steps)
            for name, table in steps:
                if table:
                    _materialise_one(con, name, files[name], kinds, declared[name].cluster_by)
                    view = None
                else:
                    run(con, f"CREATE TABLE {HELD}.{name} AS SELECT * FROM main.{name}")
                    view = f"CREATE TEMPORARY VIEW {name} AS SELECT * FROM {HELD}.{name}"
                    run(con, view)
                    held.append(name)
                if checks is not None:
                    checks.built(name, view)
            if materialise_marts and tables:
                apply_comments(con, sql_dir, tables)
            yield held
        finally:
            if checks is not None:
                checks.stop()  # what still runs (the block failed) stops before the drops
            for name in reversed(held):
                run(con, f"DROP VIEW IF EXISTS temp.{name}")
                # dropped before the scratch database is detached: detaching it with its
                # tables checkpoints them (~0.4 s at a million offers), for a file deleted
                run(con, f"DROP TABLE IF EXISTS {HELD}.{name}")


class Building(Protocol):
    """What `computed_once` tells a reader of the build (warehouse.checks.Checking)."""

    def building(self, names: Iterable[str]) -> None: ...
    def built(self, name: str, view: str | None = None) -> None: ...
    def stop(self) -> None: ...
