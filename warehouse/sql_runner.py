"""The SQL runner: seeds, views in dependency order, table macros, and assertions.

- `sql/seeds/<table>.csv` -> table `<table>` (declared in warehouse.schemas.SEED_DDL),
  reloaded on every build so an edited seed takes effect.
- `sql/intermediate/*.sql`, `sql/marts/*.sql`, `sql/alerts/*.sql`: one SELECT per file; the
  view is named after the file. Dependencies are read from the SQL text (names of other
  views), and views are created in topological order.
- `sql/macros/*.sql`: complete `CREATE OR REPLACE MACRO ... AS TABLE ...` statements, run
  after the views.
- `sql/tests/assert_*.sql`: each returns zero rows when healthy.
Plain SQL, no templating, so a move to dbt-duckdb stays mechanical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from graphlib import TopologicalSorter
from pathlib import Path

import duckdb
import polars as pl

from warehouse.db import query, run
from warehouse.errors import AssertionsFailed, WarehouseError
from warehouse.schemas import SEED_DDL

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
VIEW_LAYERS = ("intermediate", "marts", "alerts")


def view_files(sql_dir: Path = SQL_DIR) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for layer in VIEW_LAYERS:
        for path in sorted((sql_dir / layer).glob("*.sql")):
            if path.stem in files:
                raise WarehouseError(
                    f"view {path.stem} is defined twice: {files[path.stem]} and {path}"
                )
            files[path.stem] = path
    return files


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)


def build_order(files: dict[str, Path]) -> list[str]:
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        text = _strip_comments(path.read_text())
        graph[name] = {
            other
            for other in files
            if other != name and re.search(rf"\b{re.escape(other)}\b", text)
        }
    return list(TopologicalSorter(graph).static_order())


def load_seeds(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> None:
    for table, ddl in SEED_DDL.items():
        run(con, ddl)
        run(con, f"DELETE FROM {table}")
        path = sql_dir / "seeds" / f"{table}.csv"
        if path.exists():
            run(
                con,
                f"INSERT INTO {table} BY NAME SELECT * FROM read_csv($path, header = true, all_varchar = true)",
                {"path": str(path)},
            )


def build_views(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> list[str]:
    files = view_files(sql_dir)
    order = build_order(files)
    for name in order:
        body = files[name].read_text().strip().rstrip(";")
        try:
            run(con, f"CREATE OR REPLACE VIEW {name} AS\n{body}")
        except duckdb.Error as exc:
            raise WarehouseError(f"view {name} ({files[name]}) failed to build: {exc}") from exc
    for path in sorted((sql_dir / "macros").glob("*.sql")):
        try:
            run(con, path.read_text())
        except duckdb.Error as exc:
            raise WarehouseError(f"macro file {path} failed: {exc}") from exc
    return order


@dataclass(frozen=True)
class AssertionResult:
    name: str
    failures: int
    sample: pl.DataFrame


def run_assertions(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR
) -> list[AssertionResult]:
    results = []
    for path in sorted((sql_dir / "tests").glob("assert_*.sql")):
        body = path.read_text().strip().rstrip(";")
        try:
            # one evaluation: the failing rows (5 kept) and their total count
            sample = query(con, f"SELECT *, count(*) OVER () AS _failures FROM ({body}) LIMIT 5")
        except duckdb.Error as exc:
            raise WarehouseError(f"assertion {path.stem} could not run: {exc}") from exc
        count = int(sample["_failures"][0]) if sample.height else 0
        failures = sample.drop("_failures")
        results.append(AssertionResult(path.stem, count, failures))
    return results


def assert_healthy(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR
) -> list[AssertionResult]:
    results = run_assertions(con, sql_dir)
    bad = [r for r in results if r.failures]
    if bad:
        detail = "; ".join(
            f"{r.name}: {r.failures} row(s), e.g. {r.sample.head(1).to_dicts()}" for r in bad
        )
        raise AssertionsFailed(f"warehouse assertions failed, nothing published: {detail}")
    return results
