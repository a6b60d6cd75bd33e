"""The SQL runner: seeds, views in dependency order, table macros, and the schema files.

- `sql/seeds/<table>.csv` -> table `<table>` (declared in common.schemas.SEED_DDL; its
  description and data tests in `<table>.yml` beside it, its columns in the README there),
  reloaded on every build so an edited seed takes effect.
- `sql/intermediate/*.sql`, `sql/marts/*.sql`, `sql/alert_inputs/*.sql`: one SELECT per file; the
  view is named after the file. Dependencies are the relations each statement reads, from
  DuckDB's own parse of it (warehouse.lineage), and views are created in topological order.
- `sql/macros/*.sql`: complete `CREATE OR REPLACE MACRO ... AS TABLE ...` statements, one
  per file, the macro named after the file. Macros and views are built in one dependency
  order: a mart that is its table macro at the defaults (`select * from macro()`) is built
  after the macro, and the macro after the views it reads.
- `sql/snapshots/<table>.sql`: the statements that maintain an effective-dated history
  table (dbt's "snapshot"; the table's DDL is in common.schemas), run by `run_snapshot`
  with named parameters (`$as_of`, ...) in one transaction.
- `sql/tests/assert_*.sql`: each returns zero rows when healthy.
- `sql/**/*.yml` (dbt's schema-file format, version 2), one beside each model, macro and
  snapshot, named after it, `sql/sources/*.yml` for the tables the refresh writes, and
  `connectors/<connector>/sources.yml` for the tables a connector stages besides its offers:
  per relation (`models`, `macros`, `snapshots`, `seeds`, `sources[].tables`) a
  description, column descriptions and data tests. A description may be a dbt doc block,
  `"{{ doc('name') }}"`, defined once in `sql/docs/*.md` (`{% docs name %}...{% enddocs %}`)
  for a column several relations share. A table macro's tests run on it at its defaults
  (`select * from m()`). Descriptions are stored in the warehouse as `COMMENT ON` when the
  views are built; the tests (not_null, unique, accepted_values, relationships,
  dbt_utils.unique_combination_of_columns) run with the assertions (warehouse.checks), and
  a failing one publishes nothing. A model whose entry says `config: {materialized:
  table}` (dbt's key) is built as a view like the others, then stored as a table of the
  same name (warehouse.materialise) once history is merged.
Plain SQL, no templating, so a move to dbt-duckdb stays mechanical.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from graphlib import TopologicalSorter
from pathlib import Path
from typing import Any

import duckdb

import connectors
from common.errors import WarehouseError
from common.schemas import SEED_DDL
from warehouse import lineage, sql_cache
from warehouse.db import run, text_literal, transaction

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
VIEW_LAYERS = ("intermediate", "marts", "alert_inputs")
SNAPSHOT_DIR = "snapshots"


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


def macro_files(sql_dir: Path = SQL_DIR) -> dict[str, Path]:
    return {path.stem: path for path in sorted((sql_dir / "macros").glob("*.sql"))}


def lineage_graph(sql_dir: Path = SQL_DIR) -> dict[str, set[str]]:
    """Every view and table macro -> the relations it reads (views, macros, seeds, sources,
    snapshots), from DuckDB's parse of each statement (warehouse.lineage; kept while the
    files stay as they are: warehouse.sql_cache)."""
    graph = sql_cache.kept("lineage", sql_dir, partial(_lineage_graph, sql_dir))
    return {name: set(reads) for name, reads in graph.items()}


def _lineage_graph(sql_dir: Path) -> dict[str, set[str]]:
    return lineage.graph(
        {name: path.read_text() for name, path in view_files(sql_dir).items()},
        {name: path.read_text() for name, path in macro_files(sql_dir).items()},
    )


def build_order(sql_dir: Path = SQL_DIR) -> list[str]:
    """The views and table macros, each after every view and macro it reads."""
    graph = lineage_graph(sql_dir)
    built = view_files(sql_dir).keys() | macro_files(sql_dir).keys()
    order = TopologicalSorter({n: sorted(graph[n] & built) for n in sorted(built)}).static_order()
    return list(order)


def load_seeds(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> None:
    """Every seed table made again from its CSV, in one transaction (the caller's if one
    is open): a commit per statement costs a write of the log each."""
    with transaction(con):
        for table, ddl in SEED_DDL.items():
            # Seeds are rebuilt from their CSV on every build; recreating the table (not
            # only emptying it) lets a column added to a seed reach a warehouse built
            # before it.
            run(con, f"DROP TABLE IF EXISTS {table}")
            run(con, ddl)
            path = sql_dir / "seeds" / f"{table}.csv"
            if path.exists():
                run(
                    con,
                    f"INSERT INTO {table} BY NAME SELECT * FROM read_csv($path, header = true, all_varchar = true)",
                    {"path": str(path)},
                )


# The one view not written as a file: every connector's staged offers in one relation,
# generated from the staging tables present (one `stg_<connector>__offers` per registered
# connector, created by the refresh), so adding a provider needs no SQL edit. `connector`
# says which staging table a row came from (the sheets connector publishes rows for
# several providers).
UNIONED_VIEW = "int_offers_unioned"
_STAGED_OFFERS = re.compile(r"^stg_([a-z0-9_]+?)__offers$")


def build_unioned(
    con: duckdb.DuckDBPyConnection, declared: dict[str, Relation] | None = None
) -> list[str]:
    """Create `int_offers_unioned` over every `stg_<connector>__offers` table; returns the
    connectors in it (none, and no view, in a database without staging tables)."""
    tables = [row[0] for row in run(con, "SELECT table_name FROM duckdb_tables() ORDER BY 1")]
    staged = [(m.group(1), t) for t in tables if (m := _STAGED_OFFERS.match(t))]
    if not staged:
        return []
    body = "\nunion all by name ".join(
        f"select '{connector}' as connector, * from {table}" for connector, table in staged
    )
    run(con, f"CREATE OR REPLACE VIEW {UNIONED_VIEW} AS\n{body}")
    connectors = [connector for connector, _ in staged]
    _describe_unioned(con, staged, relations() if declared is None else declared)
    return connectors


def _describe_unioned(
    con: duckdb.DuckDBPyConnection, staged: list[tuple[str, str]], declared: dict[str, Relation]
) -> None:
    """COMMENT ON the generated union and each staging table, so `duckdb` and DBeaver name
    every connector in it: a new connector is documented by its registry line alone."""
    names = ", ".join(connector for connector, _ in staged)
    statements = [
        f"COMMENT ON VIEW {UNIONED_VIEW} IS "
        + _quote(f"Every connector's staged offers in one relation, generated from the "
                 f"staging tables present; `connector` names the table a row came from: {names}.")
    ]
    statements += [
        f"COMMENT ON TABLE {table} IS "
        + _quote(f"The offers the {connector} connector staged at its last refresh "
                 f"(columns as in {UNIONED_VIEW}).")
        for connector, table in staged
    ]
    documented = declared[UNIONED_VIEW].columns if UNIONED_VIEW in declared else {}
    present = {r[0] for r in run(con, f"DESCRIBE {UNIONED_VIEW}")}
    statements += [
        f"COMMENT ON COLUMN {UNIONED_VIEW}.{column} IS {_quote(text)}"
        for column, text in documented.items()
        if column in present and text
    ]
    for statement in statements:
        run(con, statement)


def build_views(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> list[str]:
    """Create every view and table macro, in dependency order, and their descriptions, in
    one transaction (the caller's if one is open: a commit per view, each writing the
    log, cost ~40% of the stage); returns the views' order."""
    with transaction(con):
        return _build_views(con, sql_dir)


def _build_views(con: duckdb.DuckDBPyConnection, sql_dir: Path) -> list[str]:
    files = view_files(sql_dir)
    macros = macro_files(sql_dir)
    clash = files.keys() & macros.keys()
    if clash:
        raise WarehouseError(f"a view and a macro share a name: {', '.join(sorted(clash))}")
    order = build_order(sql_dir)
    declared = relations(sql_dir)  # the schema files, read once for this build
    build_unioned(con, declared)
    kinds = relation_kinds(con)
    tables = {r.name for r in declared.values() if r.materialized}
    for name in order:
        if name in macros:
            try:
                run(con, macros[name].read_text())
            except duckdb.Error as exc:
                raise WarehouseError(f"macro file {macros[name]} failed: {exc}") from exc
            continue
        body = lineage.select_of(files[name])
        try:
            if name in tables and kinds.get(name) == "TABLE":  # materialised earlier
                run(con, f"DROP TABLE {name}")
            run(con, f"CREATE OR REPLACE VIEW {name} AS\n{body}")
        except duckdb.Error as exc:
            raise WarehouseError(f"view {name} ({files[name]}) failed to build: {exc}") from exc
    apply_comments(con, sql_dir, declared=declared, macros=macros)
    return [name for name in order if name in files]


def snapshot_files(sql_dir: Path = SQL_DIR) -> dict[str, Path]:
    return {path.stem: path for path in sorted((sql_dir / SNAPSHOT_DIR).glob("*.sql"))}


def run_snapshot(
    con: duckdb.DuckDBPyConnection,
    name: str,
    params: dict[str, Any],
    sql_dir: Path = SQL_DIR,
) -> list[dict[str, Any]]:
    """Run `sql/snapshots/<name>.sql` statement by statement, each with the named
    parameters it uses (`$as_of` ...), in one transaction (the caller's if one is open):
    a failing statement leaves the history as it was. Returns the rows of the file's last
    SELECT (what the merge did)."""
    path = snapshot_files(sql_dir).get(name)
    if path is None:
        raise WarehouseError(f"no snapshot {name}: {sql_dir / SNAPSHOT_DIR / name}.sql is missing")
    try:
        statements = con.extract_statements(path.read_text())
    except duckdb.Error as exc:
        raise WarehouseError(f"snapshot {path} does not parse: {exc}") from exc
    used = set().union(*(s.named_parameters for s in statements))
    if used != set(params):
        raise WarehouseError(
            f"snapshot {path} takes parameters {sorted(used)}, was given {sorted(params)}"
        )
    rows: list[dict[str, Any]] = []
    try:
        with transaction(con):
            for statement in statements:
                args = {k: params[k] for k in statement.named_parameters}
                result = con.execute(statement, args) if args else con.execute(statement)
                fetched = result.fetchall()
                if statement.type == duckdb.StatementType.SELECT:
                    names = [d[0] for d in result.description or []]
                    rows = [dict(zip(names, row, strict=True)) for row in fetched]
    except duckdb.Error as exc:
        query_text = " ".join(statement.query.split())[:120]
        raise WarehouseError(f"snapshot {path} failed at `{query_text}`: {exc}") from exc
    return rows


# --- schema files: descriptions and data tests -------------------------------------------


# A relation whose rows are only ever added (a time series), each naming the load that
# staged it, says so in its schema file: `meta: {appended_by: load_id}`. A refresh checks
# such a relation on the rows of the loads it staged (`checked_load(load_id)`, a temporary
# macro over the loads of the check: warehouse.checks), not over all its history.
CHECKED = "checked_load"
# true when every load is checked (a full check): a check may then read the relation whole
# instead of matching its rows to the checked ones (`every_load_checked()`, warehouse.checks)
EVERY_LOAD_CHECKED = "every_load_checked"


@dataclass(frozen=True)
class DataTest:
    name: str  # dbt's naming: <test>_<relation>_<column(s)>
    relation: str
    sql: str  # returns the failing rows
    condition: str | None = None  # a row-level test: the predicate of a failing row
    scope: str | None = None  # the relation's `appended_by` column
    # on an appended relation: the failing rows among (or involving) the checked loads' rows
    scoped_sql: str | None = None
    # a uniqueness test: an aggregate over the relation's rows (`rows(False)`), zero exactly
    # when no key repeats (the rows beyond the first of each key), so the checks compute it
    # in the one scan of the row-level tests and run `sql` only to count a failure
    duplicates: str | None = None
    # the relations its queries read: the relation, and a relationship's target (a
    # `config: where` is a predicate on the relation's own rows)
    reads: frozenset[str] = frozenset()

    def rows(self, scoped: bool) -> str:
        """What a row-level test reads: the relation, or its checked loads' rows."""
        if scoped and self.scope:
            return f"(SELECT * FROM {self.relation} WHERE {CHECKED}({self.scope}))"
        return self.relation

    def query(self, scoped: bool) -> str:
        return self.scoped_sql if scoped and self.scoped_sql else self.sql


@dataclass(frozen=True)
class Relation:
    name: str
    kind: str  # model | snapshot | seed | source
    description: str
    columns: dict[str, str]  # column -> description
    tests: tuple[DataTest, ...]
    path: Path
    materialized: bool = False  # `config: {materialized: table}`
    appended_by: str | None = None  # `meta: {appended_by: <column>}`: a time series
    # `meta: {held: false}`: cheaper to compute again than to hold (warehouse.materialise)
    held: bool = True
    # `config: {cluster_by: [...]}`: a stored table's rows written in this order (for its
    # compression; a reader never relies on it)
    cluster_by: tuple[str, ...] = ()


def _quote(value: object) -> str:
    return text_literal(str(value).lower() if isinstance(value, bool) else str(value))


def _target(spec: str) -> str:
    """`ref('x')`, `source('s', 'x')` or a bare name -> the relation name."""
    match = re.fullmatch(
        r"\s*(?:ref\(\s*'(\w+)'\s*\)|source\(\s*'\w+'\s*,\s*'(\w+)'\s*\)|(\w+))\s*", spec
    )
    if not match:
        raise ValueError(f"relationships target {spec!r} is not ref('x'), source('s', 'x') or a name")
    return next(g for g in match.groups() if g)


def _test(
    relation: str,
    column: str | None,
    spec: object,
    table: str | None = None,
    scope: str | None = None,
    never_null: frozenset[str] = frozenset(),
) -> DataTest:
    """One declared test as SQL returning its failing rows; `table` is what it reads when
    that is not the relation's name (a table macro at its defaults, `m()`). On an appended
    relation (`scope`: its load column) also the scoped form: a row-level test or a
    relationship reads the checked loads' rows; a uniqueness test counts every row that
    shares a key with one of them (a new row repeating a stored one is found)."""
    table = table or relation
    reads = frozenset({relation})
    kind, args = (spec, {}) if isinstance(spec, str) else next(iter(dict(spec).items()))
    args = dict(args or {})
    args = {**args, **dict(args.pop("arguments", None) or {})}  # dbt 1.10 nests them
    where = (args.get("config") or {}).get("where")
    rel = f"(select * from {table} where {where})" if where else table
    checked = f"(select * from {rel} as c where {CHECKED}(c.{scope}))" if scope else rel

    def uniqueness(name: str, names: list[str], extra: str = "") -> DataTest:
        group = "group by all having count(*) > 1"
        full = f"select {', '.join(names)}, count(*) as n from {rel} as t {extra}{group}"
        # the rows beyond the first of each key, counted by the keys' hashes (a third of
        # the cost of counting the keys themselves; two keys sharing a hash, about one in
        # 10^8 at a million keys, only make the test's own query count its failures): a
        # single column's nulls are no key; a combination's key is every value in it,
        # nulls too, as `group by` groups it
        keep = [where] if where else []
        if extra:  # `unique`: a null is no key
            keep.append(f"{names[0]} is not null")
        only = f" filter (where {' and '.join(keep)})" if keep else ""
        duplicates = f"count(*){only} - count(distinct hash({', '.join(names)})){only}"
        if not scope:
            return DataTest(name, table, full, duplicates=duplicates, reads=reads)
        # `=` on a column declared not_null: DuckDB then skips the stored row groups outside
        # the checked rows' range (it does not for a null-safe comparison)
        same = " and ".join(
            f"t.{c} = b.{c}" if c in never_null else f"t.{c} is not distinct from b.{c}"
            for c in names
        )
        mine = f"(select {', '.join(names)} from {checked} as c)"
        return DataTest(name, table, full, scope=scope, scoped_sql=(
            f"select {', '.join('t.' + c for c in names)}, count(*) as n from {rel} as t "
            f"semi join {mine} as b on {same} {extra}{group}"
        ), duplicates=duplicates, reads=reads)

    if kind == "dbt_utils.unique_combination_of_columns":
        names = list(args["combination_of_columns"])
        return uniqueness(f"unique_combination_of_columns_{relation}_{'__'.join(names)}", names)
    if column is None:
        raise ValueError(f"{kind} is a column test: declare it under a column")
    name = f"{kind}_{relation}_{column}"
    if kind == "not_null":
        condition = f"{column} is null"
    elif kind == "accepted_values":
        values = ", ".join(_quote(v) for v in args["values"])
        condition = f"{column} is not null and cast({column} as varchar) not in ({values})"
    elif kind == "unique":
        return uniqueness(name, [column], f"where t.{column} is not null ")
    elif kind == "relationships":
        to, field = _target(args["to"]), args["field"]
        sql = (
            "select t.* from {rel} as t anti join " + f"{to} as p on t.{column} = p.{field} "
            f"where t.{column} is not null"
        )
        return DataTest(
            name, table, sql.format(rel=rel), scope=scope,
            scoped_sql=sql.format(rel=checked) if scope else None, reads=reads | {to},
        )
    else:
        raise ValueError(f"unknown test {kind!r}")
    if where:
        condition = f"({where}) and ({condition})"
    return DataTest(
        name, table, f"select * from {table} where {condition}", condition, scope,
        f"select * from {table} where {CHECKED}({scope}) and ({condition})" if scope else None,
        reads=reads,
    )


# the keys a column entry may have (dbt's); anything else is a typo or a description cut
# by an unquoted comma in a flow mapping (`{description: a, b}` reads as a key `b`)
_COLUMN_KEYS = {"name", "description", "data_tests", "tests", "data_type", "meta", "tags"}
_DOC_REF = re.compile(r"^\{\{\s*doc\(\s*['\"](\w+)['\"]\s*\)\s*\}\}$")
_DOC_BLOCK = re.compile(r"\{%-?\s*docs\s+(\w+)\s*-?%\}(.*?)\{%-?\s*enddocs\s*-?%\}", re.S)


def doc_blocks(sql_dir: Path = SQL_DIR) -> dict[str, str]:
    """dbt doc blocks of `sql/**/*.md`: name -> text (whitespace collapsed)."""
    out: dict[str, str] = {}
    for path in sorted(sql_dir.rglob("*.md")):
        for name, text in _DOC_BLOCK.findall(path.read_text()):
            if name in out:
                raise WarehouseError(f"doc block {name} is defined twice ({path})")
            out[name] = " ".join(text.split())
    return out


def _describe(value: object, docs: dict[str, str]) -> str:
    text = " ".join(str(value or "").split())
    match = _DOC_REF.match(text)
    if match is None:
        return text
    if match.group(1) not in docs:
        raise ValueError(f"no doc block {match.group(1)!r} in sql/**/*.md")
    return docs[match.group(1)]


def _relation(entry: dict, kind: str, path: Path, docs: dict[str, str]) -> Relation:
    name = entry["name"]
    table = f"{name}()" if kind == "macro" else name
    meta = entry.get("meta") or {}
    scope = meta.get("appended_by")
    columns: dict[str, str] = {}
    never_null = frozenset(
        c["name"] for c in entry.get("columns") or [] if "not_null" in (c.get("data_tests") or [])
    )
    tests = [
        _test(name, None, t, table, scope, never_null)
        for t in entry.get("data_tests") or entry.get("tests") or []
    ]
    for col in entry.get("columns") or []:
        unknown = set(col) - _COLUMN_KEYS
        if unknown:
            raise ValueError(
                f"{name}.{col['name']}: unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                "(a comma in an unquoted description?)"
            )
        columns[col["name"]] = _describe(col.get("description"), docs)
        tests += [_test(name, col["name"], t, table, scope, never_null)
                  for t in col.get("data_tests") or col.get("tests") or []]
    description = _describe(entry.get("description"), docs)
    materialized = (entry.get("config") or {}).get("materialized", "view")
    if materialized not in ("view", "table"):
        raise ValueError(f"{name}: materialized must be view or table, not {materialized!r}")
    cluster_by = tuple((entry.get("config") or {}).get("cluster_by") or ())
    if set(cluster_by) - set(columns) or (cluster_by and materialized != "table"):
        raise ValueError(f"{name}: cluster_by {list(cluster_by)} needs a table's own columns")
    if scope is not None and scope not in columns:
        raise ValueError(f"{name}: meta.appended_by names {scope!r}, which is not a column")
    if meta.get("held", True) not in (True, False):
        raise ValueError(f"{name}: meta.held must be true or false, not {meta['held']!r}")
    return Relation(
        name, kind, description, columns, tuple(tests), path, materialized == "table", scope,
        meta.get("held", True), cluster_by,
    )


def connector_sources() -> list[Path]:
    """The `sources.yml` of every connector folder: the tables a connector stages besides
    its offers, declared as sources beside the connector that writes them (its
    `StagedTable`s; a new provider's stay in its folder)."""
    return sorted(p for root in connectors.__path__ for p in Path(root).glob("*/sources.yml"))


def schema_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    """The schema files: every `.yml` of the SQL project, and each connector's sources
    with them in a whole project (one with sql/sources/ and the doc blocks of sql/docs/
    their columns cite; a test's small project of a few files has neither)."""
    own = sorted([*sql_dir.rglob("*.yml"), *sql_dir.rglob("*.yaml")])
    whole = (sql_dir / "sources").is_dir() and (sql_dir / "docs").is_dir()
    return own + connector_sources() if whole else own


def _schema_doc(text: str) -> Any:
    """A schema file's YAML. (PyYAML is loaded here: a refresh that rebuilds nothing, or
    finds the project kept, reads no schema file.)"""
    import yaml

    # libyaml's safe loader when PyYAML has it (30x faster: the schema files are read on
    # every refresh that builds); the pure-Python one otherwise, with the same result
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def relations(sql_dir: Path = SQL_DIR) -> dict[str, Relation]:
    """Every relation the schema files declare, by name (kept while the files stay as they
    are: warehouse.sql_cache)."""
    kept = sql_cache.kept("relations", sql_dir, partial(_relations, sql_dir), connector_sources())
    return dict(kept)


def _relations(sql_dir: Path) -> dict[str, Relation]:
    import yaml

    out: dict[str, Relation] = {}
    built = {"model": view_files(sql_dir), "macro": macro_files(sql_dir),
             "snapshot": snapshot_files(sql_dir)}  # fmt: skip
    docs = doc_blocks(sql_dir)
    for path in schema_files(sql_dir):
        try:
            doc = _schema_doc(path.read_text())
            entries = [(e, "model") for e in doc.get("models") or []]
            entries += [(e, "macro") for e in doc.get("macros") or []]
            entries += [(e, "snapshot") for e in doc.get("snapshots") or []]
            entries += [(e, "seed") for e in doc.get("seeds") or []]
            entries += [(t, "source") for s in doc.get("sources") or [] for t in s.get("tables") or []]
            found = [_relation(e, kind, path, docs) for e, kind in entries]
        except (yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as exc:
            detail = " ".join(str(exc).split())
            raise WarehouseError(f"schema file {path} is not valid: {detail}") from exc
        for rel in found:
            if rel.name in out:
                raise WarehouseError(
                    f"relation {rel.name} is declared twice: {out[rel.name].path} and {path}"
                )
            if rel.kind in built and rel.name not in built[rel.kind]:
                raise WarehouseError(
                    f"{path} declares {rel.kind} {rel.name}, which has no .sql file"
                )
            if rel.kind == "seed" and rel.name not in SEED_DDL:
                raise WarehouseError(f"{path} declares seed {rel.name}, which is not a seed table")
            out[rel.name] = rel
    return out


def relation_kinds(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Relations in the warehouse's main schema -> VIEW or TABLE."""
    rows = run(
        con,
        """SELECT view_name, 'VIEW' FROM duckdb_views()
           WHERE NOT internal AND schema_name = 'main' AND database_name = current_database()
           UNION ALL
           SELECT table_name, 'TABLE' FROM duckdb_tables()
           WHERE schema_name = 'main' AND database_name = current_database()""",
    )
    return dict(rows)


def apply_comments(
    con: duckdb.DuckDBPyConnection,
    sql_dir: Path = SQL_DIR,
    only: set[str] | None = None,
    declared: dict[str, Relation] | None = None,
    macros: Iterable[str] | None = None,
) -> None:
    """The schema files' descriptions as `COMMENT ON` (sources not in this warehouse are
    skipped: some tables only exist once their feature has run), in one transaction: a
    catalog commit per statement would cost ~0.5 s for the ~300 descriptions. A table
    macro gets its description (`COMMENT ON MACRO TABLE`); DuckDB keeps no column comments
    for one. `macros`: the table macros present, when the caller knows them (else they are
    looked up among every function, only when a macro is to be described)."""
    described = [
        rel
        for rel in (declared if declared is not None else relations(sql_dir)).values()
        if only is None or rel.name in only
    ]
    kinds = relation_kinds(con)
    if macros is not None:  # the table macros the caller just made
        kinds |= dict.fromkeys(macros, "MACRO TABLE")
    elif any(rel.kind == "macro" for rel in described):  # a scan of every function
        kinds |= dict(run(con, """SELECT function_name, 'MACRO TABLE' FROM duckdb_functions()
                                   WHERE function_type = 'table_macro' AND NOT internal"""))
    statements: list[tuple[Relation, str]] = []
    for rel in described:
        if rel.name not in kinds:
            if rel.kind == "source":
                continue
            raise WarehouseError(f"{rel.path} describes {rel.name}, which was not built")
        if rel.description:
            statements.append(
                (rel, f"COMMENT ON {kinds[rel.name]} {rel.name} IS {_quote(rel.description)}")
            )
        statements += [
            (rel, f"COMMENT ON COLUMN {rel.name}.{column} IS {_quote(text)}")
            for column, text in rel.columns.items()
            if text and rel.kind != "macro"  # a seed column is described in its README
        ]
    with transaction(con):
        for rel, statement in statements:
            try:
                con.execute(statement)
            except duckdb.Error as exc:
                raise WarehouseError(f"{rel.path}: describing {rel.name} failed: {exc}") from exc
