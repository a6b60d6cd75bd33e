"""The warehouse's checks: the `sql/tests/assert_*.sql` files and the schema files' data
tests (declared in `sql/**/*.yml`, read by warehouse.sql_runner), run on a build before it
is published; a failing one publishes nothing.

What a check reads. A relation declared `meta: {appended_by: load_id}` is a time series:
its rows are only ever added, each naming the load that staged it. A refresh checks such a
relation on the rows of the loads it staged (`checked`, `scope(con, loads)`), so a night
costs what it added, not the year of history behind it: a row-level test (not_null,
accepted_values) and a relationship read those rows; a uniqueness test counts every stored
row that shares a key with one of them, so a new point repeating a stored one is still
found. An assertion file reads the same scope through the temporary macro
`checked_load(load_id)`. Everything else (the current marts, the offer history, the
ledger) is checked whole on every refresh. The full check (`checked` false: every row of
every relation) runs on demand (`gpu-pricing check --all`), on the schedule's weekly full
check, and on a refresh whose SQL changed since the last published one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from common.errors import AssertionsFailed, WarehouseError
from warehouse import lineage
from warehouse.db import query, run
from warehouse.sql_runner import CHECKED, SQL_DIR, DataTest, relation_kinds, relations

if TYPE_CHECKING:
    import polars as pl

CHECKED_LOADS = "_checked_loads"  # a temporary table: the loads a scoped check covers


def scope(con: duckdb.DuckDBPyConnection, loads: Iterable[str] = ()) -> None:
    """Add `loads` to the loads a scoped check of this connection covers (a refresh adds
    the loads whose pages it parsed)."""
    run(con, f"CREATE TEMPORARY TABLE IF NOT EXISTS {CHECKED_LOADS} (load_id VARCHAR)")
    ids = sorted({str(i) for i in loads})
    if ids:
        run(
            con,
            f"INSERT INTO temp.{CHECKED_LOADS} SELECT unnest($ids) EXCEPT "
            f"SELECT load_id FROM temp.{CHECKED_LOADS}",
            {"ids": ids},
        )


def checked_loads(con: duckdb.DuckDBPyConnection) -> list[str]:
    scope(con)
    return [r[0] for r in run(con, f"SELECT load_id FROM temp.{CHECKED_LOADS} ORDER BY 1")]


def use_scope(con: duckdb.DuckDBPyConnection, scoped: bool) -> None:
    """Define `checked_load(load_id)` for this connection: true for the loads `scope`
    named (`scoped`), for every load otherwise."""
    if scoped:
        scope(con)
        body = f"id IN (SELECT load_id FROM temp.{CHECKED_LOADS})"
    else:
        body = "true"
    run(con, f"CREATE OR REPLACE TEMPORARY MACRO {CHECKED}(id) AS {body}")


def data_tests(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> list[DataTest]:
    """The declared tests of every relation present in the warehouse."""
    kinds = relation_kinds(con)
    return [
        test
        for rel in relations(sql_dir).values()
        if rel.name in kinds or rel.kind != "source"
        for test in rel.tests
    ]


@dataclass(frozen=True)
class AssertionResult:
    name: str
    failures: int
    sample: pl.DataFrame


def _failure_counts(
    con: duckdb.DuckDBPyConnection, tests: list[DataTest], scoped: bool
) -> dict[str, int]:
    """How many rows fail each test. The tests of a relation that need no other relation
    run in one scan of it (of its checked rows, scoped): each row-level test as the count
    of its failing rows; each uniqueness test as the count of the rows that repeat a key
    (`duplicates`), and where that is not zero, its own query counts the keys repeated.
    A relationship (and a uniqueness test scoped to the checked loads) runs as its own
    query. A view read by several tests is computed once, not once per test."""
    counts: dict[str, int] = {}
    by_relation: dict[str, list[tuple[DataTest, str]]] = {}
    alone: list[DataTest] = []
    for test in tests:
        if test.condition:
            aggregate = f"count(*) FILTER (WHERE {test.condition})"
            by_relation.setdefault(test.rows(scoped), []).append((test, aggregate))
        elif test.duplicates and not (scoped and test.scoped_sql):
            by_relation.setdefault(test.rows(False), []).append((test, test.duplicates))
        else:
            alone.append(test)
    for rows, group in by_relation.items():
        aggregates = ", ".join(aggregate for _, aggregate in group)
        try:
            row = run(con, f"SELECT {aggregates} FROM {rows}")[0]
        except duckdb.Error as exc:
            raise WarehouseError(
                f"the data tests of {group[0][0].relation} could not run: {exc}"
            ) from exc
        for (test, _), n in zip(group, row, strict=True):
            if test.condition or not n:
                counts[test.name] = int(n)
            else:  # a key repeats: the failures as the test counts them (the keys)
                alone.append(test)
    for test in alone:
        try:
            counts[test.name] = int(
                run(con, f"SELECT count(*) FROM ({test.query(scoped)})")[0][0]
            )
        except duckdb.Error as exc:
            raise WarehouseError(f"data test {test.name} could not run: {exc}") from exc
    return counts


def run_assertions(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, scoped: bool = False
) -> list[AssertionResult]:
    """The `sql/tests/assert_*.sql` files, then the schema files' data tests; `scoped`:
    the appended relations on the loads `scope` named only (see the module's docstring)."""
    import polars as pl

    use_scope(con, scoped)
    results = []
    for path in sorted((sql_dir / "tests").glob("assert_*.sql")):
        body = lineage.select_of(path)
        try:
            # one evaluation: the failing rows (5 kept) and their total count
            sample = query(con, f"SELECT *, count(*) OVER () AS _failures FROM ({body}) LIMIT 5")
        except duckdb.Error as exc:
            raise WarehouseError(f"assertion {path.stem} could not run: {exc}") from exc
        count = int(sample["_failures"][0]) if sample.height else 0
        results.append(AssertionResult(path.stem, count, sample.drop("_failures")))
    tests = data_tests(con, sql_dir)
    counts = _failure_counts(con, tests, scoped)
    for test in tests:
        # a sample of the failing rows only where there are some
        sample = (
            query(con, f"SELECT * FROM ({test.query(scoped)}) LIMIT 5")
            if counts[test.name]
            else pl.DataFrame()
        )
        results.append(AssertionResult(test.name, counts[test.name], sample))
    return results


def assert_healthy(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, scoped: bool = False
) -> list[AssertionResult]:
    results = run_assertions(con, sql_dir, scoped=scoped)
    bad = [r for r in results if r.failures]
    if bad:
        detail = "; ".join(
            f"{r.name}: {r.failures} row(s), e.g. {r.sample.head(1).to_dicts()}" for r in bad
        )
        raise AssertionsFailed(f"warehouse assertions failed, nothing published: {detail}")
    return results


def check_published(path: Path, *, full: bool) -> tuple[list[AssertionResult], list[str]]:
    """The checks on a published warehouse, read-only: as its last refresh ran them (the
    time series on that refresh's loads), or every row (`full`), which also checks every
    raw store object the ledger names (`raw_store_objects`: each decompressed and hashed
    against its name, as `gpu-pricing raw verify`). Returns the results and the loads
    checked (empty for a full check)."""
    from warehouse.db import connect_readonly

    con = connect_readonly(path)
    try:
        loads: list[str] = []
        if not full:
            loads = [r[0] for r in run(con, """
                SELECT load_id FROM _loads WHERE run_id = (
                    SELECT run_id FROM _runs WHERE status = 'ok'
                    ORDER BY started_at DESC LIMIT 1)""")]  # fmt: skip
            scope(con, loads)
        results = run_assertions(con, scoped=not full)
        if full:
            results.append(_raw_store_objects(con, path))
        return results, loads
    finally:
        con.close()


def _raw_store_objects(con: duckdb.DuckDBPyConnection, path: Path) -> AssertionResult:
    """Every object of the raw store the ledger names, decompressed and hashed against its
    name (a landing trusts a stored page by its frame; the full check reads it whole). A
    warehouse whose payloads are still in `raw_*` tables (moved out on its next refresh)
    has no store to check."""
    import polars as pl

    from warehouse import raw
    from warehouse.rawstore import RawStore

    damaged = [] if raw.legacy_tables(con) else raw.verify(con, RawStore.beside(path))["damaged"]
    sample = pl.DataFrame({"damaged": damaged}, schema={"damaged": pl.String})
    return AssertionResult("raw_store_objects", len(damaged), sample)
