"""The queries the command line, the API, the report, the alerts and the publish read, one
`.sql` file each, read by name.

The command line, the Python API and the report read the warehouse through these files
only; each reads marts, intermediate views or table macros (`sql/`) and never re-derives a
rule those define. Each file starts with a comment saying what it returns and what it reads.
Parameters are DuckDB named parameters (`$gpu`), bound at execution; an optional filter is a
parameter that may be null (`$gpu IS NULL OR gpu_name = $gpu`), never SQL pasted together:
`read(con, "rates", {"gpu": "H100", ...})`. A query may read another's rows as a subquery,
written `{{ rates }}` where a relation goes (left_out.sql counts what rates.sql leaves out):
the other file's text is put there, in parentheses, so a rule both need is stated once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from common.errors import WarehouseError
from common.rows import Rows
from warehouse import db

if TYPE_CHECKING:
    import polars as pl

QUERIES_DIR = Path(__file__).resolve().parent

# `{{ name }}`: the rows of query `name`, as a subquery
INCLUDE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
# DuckDB's words for a column a relation lacks
MISSING_COLUMN = re.compile(r"does not have a column named|not found in FROM clause")


@cache
def sql(name: str) -> str:
    """The text of `warehouse/queries/<name>.sql`, each `{{ other }}` in it replaced by
    query `other`'s text in parentheses."""
    path = QUERIES_DIR / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no query named {name!r} in {QUERIES_DIR}")
    text = path.read_text(encoding="utf-8")
    return INCLUDE.sub(lambda m: f"(\n{sql(m.group(1))}\n)", text)


def read(
    con: duckdb.DuckDBPyConnection,
    name: str,
    params: dict[str, Any] | None = None,
    *,
    exclude: Sequence[str] = (),
) -> pl.DataFrame:
    """The rows of query `name`, without the columns in `exclude`. A relation the warehouse
    lacks (one built before that mart existed, or never refreshed) is a one-line
    WarehouseError asking for a refresh."""
    with _explained():
        return db.query(con, _text(name, exclude), params)


def read_rows(
    con: duckdb.DuckDBPyConnection,
    name: str,
    params: dict[str, Any] | None = None,
    *,
    exclude: Sequence[str] = (),
) -> Rows:
    """`read`'s rows as Python values (`warehouse.db.Rows`), without loading Polars: for a
    small result a command prints."""
    with _explained():
        return db.rows(con, _text(name, exclude), params)


def _text(name: str, exclude: Sequence[str]) -> str:
    if not exclude:
        return sql(name)
    return f"SELECT * EXCLUDE ({', '.join(exclude)}) FROM (\n{sql(name)}\n)"


@contextmanager
def _explained() -> Iterator[None]:
    try:
        yield
    except duckdb.CatalogException as exc:
        raise WarehouseError(
            f"the warehouse lacks a relation ({str(exc).splitlines()[0]}): "
            "run `gpu-pricing refresh` first"
        ) from None
    except duckdb.BinderException as exc:
        # a stored mart built before one of its columns existed (an older version's refresh)
        if not MISSING_COLUMN.search(str(exc)):
            raise
        raise WarehouseError(
            f"the warehouse lacks a column ({str(exc).splitlines()[0]}), built by an older "
            "version: run `gpu-pricing refresh` first"
        ) from None
