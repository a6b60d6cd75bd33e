"""Unit tests of the SQL models and table macros: small given tables in, expected rows out.

Declared in the schema file beside a model, in dbt's format (`unit_tests:`):

    unit_tests:
      - name: cheapest_offer_wins
        model: mart_vastai_gpu_prices        # a view, or a table macro
        arguments: {params_b: 7}             # a table macro's named arguments (optional)
        given:
          - input: ref('mart_gpu_offers_current')
            rows:
              - {provider: vastai, gpu_name: H100, price_usd_per_gpu_hour: 2.0}
        expect:
          rows:
            - {gpu_name: H100, min_usd_per_gpu_hour: 2.0}

Each test runs in its own in-memory DuckDB: the given rows become tables named after their
inputs, the model under test is created over them from its own SQL (a table macro it calls
is created from its file, and its inputs are given too), and the expected rows are compared
with the model's rows over the columns the expectation names, as a multiset (floats to
1e-9 relative). No refresh, no other model: milliseconds.

Every relation the model reads (DuckDB's parse, warehouse.lineage) must be given, except a
seed, which is loaded from its CSV when not given. An input whose table the warehouse
declares (the seeds, the ledger, the offer history) is created with its real column types
and a column not given is null; any other input (a view) takes the columns and types of
its rows, so give every column the model reads (YAML's `2026-11-20 10:00:00` is a
timestamp, `2026-11-20` a date).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import yaml
from polars.testing import assert_frame_equal

from common.errors import WarehouseError
from common.schemas import BOOKKEEPING_DDL, SEED_DDL
from warehouse import lineage, sql_runner
from warehouse.db import query, text_literal


@dataclass(frozen=True)
class UnitTest:
    name: str
    model: str
    given: dict[str, list[dict[str, Any]]]  # input relation -> rows
    expect: list[dict[str, Any]]
    path: Path
    arguments: dict[str, Any] = field(default_factory=dict)
    description: str = ""


class UnitTestFailed(AssertionError):
    """The model's rows are not the expected ones (the message shows both)."""


def unit_tests(sql_dir: Path = sql_runner.SQL_DIR) -> list[UnitTest]:
    """Every `unit_tests:` entry of the schema files."""
    out: list[UnitTest] = []
    for path in sql_runner.schema_files(sql_dir):
        doc = yaml.safe_load(path.read_text()) or {}
        for entry in doc.get("unit_tests") or []:
            try:
                given = {
                    sql_runner._target(g["input"]): list(g.get("rows") or [])
                    for g in entry.get("given") or []
                }
                out.append(
                    UnitTest(
                        name=entry["name"],
                        model=entry["model"],
                        given=given,
                        expect=list((entry.get("expect") or {}).get("rows") or []),
                        path=path,
                        arguments=dict(entry.get("arguments") or {}),
                        description=" ".join(str(entry.get("description") or "").split()),
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise WarehouseError(f"unit test in {path} is not valid: {exc}") from exc
    names = [t.name for t in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise WarehouseError(f"unit test names used twice: {', '.join(twice)}")
    return out


@cache
def _declared_types() -> dict[str, dict[str, str]]:
    """The tables the warehouse declares (seeds, ledger, history) -> column -> type."""
    con = duckdb.connect(":memory:")
    for ddl in [*SEED_DDL.values(), *BOOKKEEPING_DDL]:
        con.execute(ddl)
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() ORDER BY column_index"
    ).fetchall()
    out: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        out.setdefault(table, {})[column] = kind
    return out


def _literal(value: Any) -> str:
    """A given value as a typed SQL literal (YAML reads timestamps and dates as such)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return f"{value!r}::DOUBLE"
    if isinstance(value, datetime):
        return f"TIMESTAMP '{value.replace(tzinfo=None).isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    return text_literal(str(value))


def _create_input(con: duckdb.DuckDBPyConnection, name: str, rows: list[dict]) -> None:
    declared = _declared_types().get(name)
    if declared is not None:
        columns = ", ".join(f'"{c}" {t}' for c, t in declared.items())
        con.execute(f'CREATE TABLE "{name}" ({columns})')
        if rows:
            con.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM _given', {})
        return
    if not rows:
        raise WarehouseError(f"given {name} has no rows: give one, or its columns cannot be known")
    con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _given')


def _load(con: duckdb.DuckDBPyConnection, name: str, rows: list[dict]) -> None:
    """One given input as a table: the rows as a Polars frame (types from the values),
    registered as `_given` while the table is made from it."""
    if rows:
        frame = pl.DataFrame(rows, infer_schema_length=None)
        con.register("_given", frame.to_arrow())
    try:
        _create_input(con, name, rows)
    finally:
        if rows:
            con.unregister("_given")


def run(test: UnitTest, sql_dir: Path = sql_runner.SQL_DIR) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The model's rows over the given inputs, and the expected rows, over the expected
    columns, both sorted."""
    views = sql_runner.view_files(sql_dir)
    macros = sql_runner.macro_files(sql_dir)
    if test.model not in views and test.model not in macros:
        raise WarehouseError(f"{test.path}: unit test {test.name}: no model {test.model}")
    # the model, and the table macros it calls (with theirs), are built from their SQL;
    # only their statements are parsed
    graph: dict[str, set[str]] = {}
    build, todo = [], [test.model]
    while todo:
        name = todo.pop()
        build.append(name)
        if name in macros:
            body = lineage.macro_body(macros[name].read_text(), f"macro {name}")
        else:
            body = views[name].read_text()
        graph[name] = lineage.references(body, f"{name} ({test.path})") - {name}
        todo += sorted(d for d in graph[name] if d in macros and d not in build)
    needed = {d for n in build for d in graph[n] if d not in build}
    missing = sorted(needed - test.given.keys() - SEED_DDL.keys())
    if missing:
        raise WarehouseError(
            f"{test.path}: unit test {test.name}: give the rows of {', '.join(missing)}"
        )
    con = duckdb.connect(":memory:")
    try:
        for name in sorted(needed & SEED_DDL.keys() - test.given.keys()):
            con.execute(SEED_DDL[name])
            con.execute(
                f"INSERT INTO {name} BY NAME SELECT * FROM read_csv($path, header = true, "
                "all_varchar = true)",
                {"path": str(sql_dir / "seeds" / f"{name}.csv")},
            )
        for name, rows in test.given.items():
            _load(con, name, rows)
        for name in reversed(build):
            if name in macros:
                con.execute(macros[name].read_text())
            else:
                body = lineage.select_of(views[name])
                con.execute(f"CREATE VIEW {name} AS\n{body}")
        if test.model in macros:
            args = ", ".join(f"{k} := {_literal(v)}" for k, v in test.arguments.items())
            actual = query(con, f"SELECT * FROM {test.model}({args})")
        else:
            actual = query(con, f"SELECT * FROM {test.model}")
    except duckdb.Error as exc:
        detail = " ".join(str(exc).split())
        raise WarehouseError(f"{test.path}: unit test {test.name} failed to run: {detail}") from exc
    finally:
        con.close()
    columns = list(dict.fromkeys(c for row in test.expect for c in row))
    unknown = [c for c in columns if c not in actual.columns]
    if unknown:
        raise WarehouseError(
            f"{test.path}: unit test {test.name}: {test.model} has no column {', '.join(unknown)}"
        )
    actual = actual.select(columns) if columns else actual.select([])
    expected = pl.DataFrame(
        [{c: row.get(c) for c in columns} for row in test.expect],
        schema={c: actual.schema[c] for c in columns},
        strict=False,
    )
    if columns:
        actual = actual.sort(columns, nulls_last=True)
        expected = expected.sort(columns, nulls_last=True)
    return actual, expected


def check(test: UnitTest, sql_dir: Path = sql_runner.SQL_DIR) -> None:
    """Raise UnitTestFailed, showing both sides, unless the model gives the expected rows."""
    actual, expected = run(test, sql_dir)
    try:
        assert_frame_equal(actual, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)
    except AssertionError:
        raise UnitTestFailed(
            f"{test.path}: unit test {test.name} ({test.model}): expected\n{expected}\n"
            f"got\n{actual}"
        ) from None
