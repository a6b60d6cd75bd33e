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
`checked_load(load_id)` (and `every_load_checked()`, true in a full check). Everything
else (the current marts, the offer history, the ledger) is checked whole on every
refresh. The full check (`checked` false: every row of every relation) runs on demand
(`gpu-pricing check --all`), on the schedule's weekly full check, and on a refresh whose
SQL changed since the last published one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from common.errors import AssertionsFailed, WarehouseError
from warehouse import checking, lineage
from warehouse.db import query, run
from warehouse.sql_runner import (
    CHECKED,
    EVERY_LOAD_CHECKED,
    SQL_DIR,
    DataTest,
    lineage_graph,
    relation_kinds,
    relations,
)

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
    named (`scoped`), for every load otherwise; and `every_load_checked()`: false, or true
    (a constant: an assertion's branch for the other case is planned away)."""
    if scoped:
        scope(con)
        body = f"id IN (SELECT load_id FROM temp.{CHECKED_LOADS})"
    else:
        body = "true"
    run(con, f"CREATE OR REPLACE TEMPORARY MACRO {CHECKED}(id) AS {body}")
    run(con, f"CREATE OR REPLACE TEMPORARY MACRO {EVERY_LOAD_CHECKED}() AS {not scoped}")


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


def _count_group(rows: str, group: list[tuple[DataTest, str]]):
    def job(c: duckdb.DuckDBPyConnection) -> tuple:
        aggregates = ", ".join(aggregate for _, aggregate in group)
        try:
            return run(c, f"SELECT {aggregates} FROM {rows}")[0]
        except duckdb.Error as exc:
            raise WarehouseError(
                f"the data tests of {group[0][0].relation} could not run: {exc}"
            ) from exc

    return job


def _count_alone(test: DataTest, scoped: bool):
    def job(c: duckdb.DuckDBPyConnection) -> int:
        try:
            return int(run(c, f"SELECT count(*) FROM ({test.query(scoped)})")[0][0])
        except duckdb.Error as exc:
            raise WarehouseError(f"data test {test.name} could not run: {exc}") from exc

    return job


def _planned(
    tests: list[DataTest], scoped: bool
) -> tuple[list[tuple[str, list[tuple[DataTest, str]]]], list[DataTest]]:
    """The tests of a relation that need no other relation, by what they read, to run in
    one scan of it (of its checked rows, scoped): each row-level test as the count of its
    failing rows; each uniqueness test as the count of the rows that repeat a key
    (`duplicates`). Then the tests that run as their own query: a relationship, and a
    uniqueness test scoped to the checked loads."""
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
    return list(by_relation.items()), alone


def _assertion(path: Path):
    def job(c: duckdb.DuckDBPyConnection) -> AssertionResult:
        body = lineage.select_of(path)
        try:
            # one evaluation: the failing rows (5 kept) and their total count
            sample = query(c, f"SELECT *, count(*) OVER () AS _failures FROM ({body}) LIMIT 5")
        except duckdb.Error as exc:
            raise WarehouseError(f"assertion {path.stem} could not run: {exc}") from exc
        count = int(sample["_failures"][0]) if sample.height else 0
        return AssertionResult(path.stem, count, sample.drop("_failures"))

    return job


def _recounted(
    con: duckdb.DuckDBPyConnection, test: DataTest, n: int, scoped: bool
) -> int:  # fmt: skip
    """A test's failures from its count `n` in the one scan of its relation: a row-level
    test's failing rows; a uniqueness test's repeated rows, exact when zero, else (two
    keys may share a hash) its failures as the test states them, by its own query."""
    return n if test.condition or not n else _count_alone(test, scoped)(con)


class Checking:
    """The checks of a build, planned once (`data_tests`, the assertion files, `_planned`)
    and run as warehouse.checking.Queries: two at a time, and beside the build when it
    reports what it makes (warehouse.materialise.computed_once, `checks=`). `results`
    collects them: a uniqueness test whose count of repeated rows is not zero then counts
    its failures as the test states them (the keys repeated), and a failing test gets a
    sample of its failing rows."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, scoped: bool = False
    ) -> None:
        use_scope(con, scoped)
        self._con, self._scoped = con, scoped
        self._tests = data_tests(con, sql_dir)
        self._files = sorted((sql_dir / "tests").glob("assert_*.sql"))
        self._groups, self._alone = _planned(self._tests, scoped)
        graph = lineage_graph(sql_dir)

        def reads(names: Iterable[str]) -> frozenset[str]:
            return checking.upstream((n.removesuffix("()") for n in names), graph)

        queries = [
            checking.Query(_assertion(p), reads(lineage.references(lineage.select_of(p), str(p))))
            for p in self._files
        ]
        queries += [
            checking.Query(_count_group(rows, group), reads(r for t, _ in group for r in t.reads))
            for rows, group in self._groups
        ]
        queries += [checking.Query(_count_alone(t, scoped), reads(t.reads)) for t in self._alone]
        loads = checked_loads(con)

        def prepare(mirror: duckdb.DuckDBPyConnection) -> None:
            scope(mirror, loads)
            use_scope(mirror, scoped)

        self._queries = checking.Queries(con, queries, prepare)
        self.building, self.built, self.stop = (
            self._queries.building, self._queries.built, self._queries.stop,
        )  # fmt: skip

    def failure_counts(self) -> tuple[dict[str, int], list[AssertionResult]]:
        """How many rows fail each data test, and the assertion files' results."""
        con, scoped, files = self._con, self._scoped, self._files
        found = self._queries.results()  # in the order of __init__: files, groups, alone
        grouped = found[len(files) : len(files) + len(self._groups)]
        counts: dict[str, int] = {}
        for (_, group), row in zip(self._groups, grouped, strict=True):
            for (test, _), n in zip(group, row, strict=True):
                counts[test.name] = _recounted(con, test, int(n), scoped)
        for test, n in zip(self._alone, found[len(files) + len(self._groups) :], strict=True):
            counts[test.name] = n
        return counts, found[: len(files)]

    def results(self) -> list[AssertionResult]:
        """The assertion files' results, then the data tests'."""
        import polars as pl

        counts, results = self.failure_counts()
        for test in self._tests:
            # a sample of the failing rows only where there are some
            sample = (
                query(self._con, f"SELECT * FROM ({test.query(self._scoped)}) LIMIT 5")
                if counts[test.name]
                else pl.DataFrame()
            )
            results.append(AssertionResult(test.name, counts[test.name], sample))
        return results


def run_assertions(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, scoped: bool = False
) -> list[AssertionResult]:
    """The `sql/tests/assert_*.sql` files, then the schema files' data tests; `scoped`:
    the appended relations on the loads `scope` named only (see the module's docstring)."""
    return Checking(con, sql_dir, scoped=scoped).results()


def assert_healthy(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR, *, scoped: bool = False,
    checks: Checking | None = None,
) -> list[AssertionResult]:  # fmt: skip
    """`run_assertions` (or the results of `checks`, started beside a build); any failure
    raises AssertionsFailed."""
    results = (checks or Checking(con, sql_dir, scoped=scoped)).results()
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
