"""The lineage of the SQL project, read from DuckDB's own parse of each statement.

Each view file's SELECT and each table macro's body (`CREATE ... MACRO m(...) AS TABLE
<select>`) goes through `json_serialize_sql`, DuckDB's parser as JSON; the relations a
statement reads are its base tables and table functions, less the names of the CTEs it
defines. A name in a string literal or a comment is no edge; a CTE that shadows a relation
is no edge; `query_table('x')` reads x. The graph is every node (views, macros, seeds, sources, snapshots) -> what it
reads; `select` cuts a subgraph out of it with dbt's selector syntax (`+name`, `name+`,
`+name+`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

import duckdb

from common.errors import WarehouseError

# the header of a table macro, before its body: `CREATE [OR REPLACE] MACRO name(...) AS TABLE`
_MACRO_BODY = re.compile(r"\bAS\s+TABLE\b", re.I)


@cache
def _parser() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(":memory:")


def _walk(node: object, tables: set[str], ctes: set[str]) -> None:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "BASE_TABLE":
            tables.add(node["table_name"].lower())
        elif kind == "TABLE_FUNCTION":
            function = node.get("function") or {}
            name = (function.get("function_name") or "").lower()
            if name == "query_table":
                # query_table('x') reads x; query_table(param) in a macro reads what its
                # caller names, no edge of its own
                for argument in function.get("arguments") or []:
                    literal = (argument.get("expression") or {}).get("literal") or {}
                    if literal.get("kind") == "STRING":
                        tables.add(literal["text"].lower())
            elif name:
                tables.add(name)
        for entry in (node.get("cte_map") or {}).get("map") or []:
            ctes.add(entry["key"].lower())
        for value in node.values():
            _walk(value, tables, ctes)
    elif isinstance(node, list):
        for value in node:
            _walk(value, tables, ctes)


def references(sql: str, where: str = "SQL") -> set[str]:
    """The relations (tables, views, table functions) one SELECT reads, lower case, as
    DuckDB parses it; `where` names the statement in the error when it does not parse."""
    return set(_references(sql, where))


@cache
def _references(sql: str, where: str) -> frozenset[str]:
    """`references`, once per statement text in a process: a refresh asks for the build
    order several times (views, warehouse.materialise), each a parse of every file."""
    con = _parser()
    text = con.execute("SELECT json_serialize_sql($sql)", {"sql": sql}).fetchone()[0]
    doc = json.loads(text)
    if doc.get("error"):
        detail = " ".join(str(doc.get("error_message", "")).split())
        raise WarehouseError(f"{where} does not parse: {detail}")
    tables: set[str] = set()
    ctes: set[str] = set()
    _walk(doc["statements"], tables, ctes)
    return frozenset(tables - ctes)


def select_of(path: Path) -> str:
    """A model file's statement as CREATE VIEW / CREATE TABLE ... AS take it (a SELECT, no
    trailing semicolon)."""
    return path.read_text().strip().rstrip(";")


def macro_body(sql: str, where: str = "macro") -> str:
    """The SELECT a `CREATE MACRO ... AS TABLE` statement returns."""
    parts = _MACRO_BODY.split(sql, maxsplit=1)
    if len(parts) != 2:
        raise WarehouseError(f"{where} is not a `CREATE MACRO ... AS TABLE` statement")
    return parts[1].strip().rstrip(";")


def graph(
    views: Mapping[str, str], macros: Mapping[str, str], known: Iterable[str] = ()
) -> dict[str, set[str]]:
    """name -> the relations it reads, for view bodies and macro statements (name -> SQL
    text). Edges go to the views and macros given and to the `known` relations (seeds,
    sources, snapshots); a read of anything else is kept as a node of its own, so a caller
    can check that every relation read is declared."""
    out: dict[str, set[str]] = {}
    for name, sql in views.items():
        out[name] = references(sql, f"view {name}") - {name}
    for name, sql in macros.items():
        out[name] = references(macro_body(sql, f"macro {name}"), f"macro {name}") - {name}
    for name in {*known, *(d for deps in out.values() for d in deps)}:
        out.setdefault(name, set())
    return out


def select(edges: Mapping[str, set[str]], selector: str) -> set[str]:
    """dbt's node selection: `name` alone, `+name` with everything it reads (upstream),
    `name+` with everything that reads it (downstream), `+name+` both; `n+name` / `name+n`
    limit the depth. Several selectors separated by spaces are a union."""
    chosen: set[str] = set()
    for part in selector.split():
        match = re.fullmatch(r"(?:(\d*)(\+))?([A-Za-z_][A-Za-z0-9_]*)(?:(\+)(\d*))?", part)
        if not match:
            raise WarehouseError(f"{part!r} is not a selector (name, +name, name+, 2+name)")
        if match.group(3) not in edges:
            raise WarehouseError(f"no relation {match.group(3)!r} in the lineage ({part!r})")
        up_depth, upstream, name, downstream, down_depth = match.groups()
        chosen.add(name)
        if upstream:
            chosen |= _reach(edges, name, int(up_depth) if up_depth else None)
        if downstream:
            readers: dict[str, set[str]] = {}
            for node, deps in edges.items():
                for dep in deps:
                    readers.setdefault(dep, set()).add(node)
            chosen |= _reach(readers, name, int(down_depth) if down_depth else None)
    return chosen


def _reach(edges: Mapping[str, set[str]], start: str, depth: int | None) -> set[str]:
    seen: set[str] = set()
    frontier, level = {start}, 0
    while frontier and (depth is None or level < depth):
        frontier = {d for n in frontier for d in edges.get(n, ())} - seen - {start}
        seen |= frontier
        level += 1
    return seen
