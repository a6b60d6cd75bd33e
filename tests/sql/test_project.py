"""The SQL project describes itself: one schema file beside each model, macro and snapshot,
every relation documented and tested, every relation a statement reads declared; the
lineage is DuckDB's parse of each statement, not a text search."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from common.errors import WarehouseError
from common.schemas import SEED_DDL
from warehouse import checks, lineage, sql_runner

SQL = sql_runner.SQL_DIR


def built() -> dict[str, Path]:
    return sql_runner.view_files() | sql_runner.macro_files() | sql_runner.snapshot_files()


@pytest.mark.parametrize("name", sorted(built()))
def test_each_relation_has_its_own_schema_file_with_docs_and_a_data_test(name):
    path = built()[name]
    schema = path.with_suffix(".yml")
    assert schema.is_file(), f"{path} has no {schema.name} beside it"
    doc = yaml.safe_load(schema.read_text())
    declared = [e["name"] for key in ("models", "macros", "snapshots") for e in doc.get(key) or []]
    assert declared == [name]
    rel = sql_runner.relations()[name]
    assert rel.description and rel.columns, f"{schema}: no description or columns"
    # a table macro over a relation its caller names has no defaults to run data tests at:
    # its columns are checked on its stated example call instead; a view whose rows are
    # another relation's (`meta.tested_as`) is checked by that relation's tests
    assert rel.tests or _example_call(rel) or _tested_as(rel), f"{schema}: no data test"


def _tested_as(rel) -> str | None:
    """A view of another relation's rows (a filter of them, some of its columns) may say
    so as `meta.tested_as` in its schema file instead of testing the same rows again: that
    relation must be one it reads, be tested, and have every column it has."""
    doc = yaml.safe_load(rel.path.read_text())
    entry = next((e for e in doc.get("models") or [] if e["name"] == rel.name), None)
    other = ((entry or {}).get("meta") or {}).get("tested_as")
    if other is None:
        return None
    target = sql_runner.relations()[other]
    assert other in sql_runner.lineage_graph()[rel.name], f"{rel.name} does not read {other}"
    assert target.tests, f"{rel.name} is tested as {other}, which has no data test"
    assert set(rel.columns) <= set(target.columns), f"{rel.name} has columns {other} has not"
    return other


def test_no_schema_file_declares_several_models():
    for path in sql_runner.schema_files():
        if path.parent.name != "sources" and path.name != "sources.yml":
            doc = yaml.safe_load(path.read_text())
            keys = ("models", "macros", "snapshots", "seeds")
            assert sum(len(doc.get(k) or []) for k in keys) == 1, path


def test_every_relation_a_statement_reads_is_declared():
    graph = sql_runner.lineage_graph()
    declared = sql_runner.relations()
    read = {dep for deps in graph.values() for dep in deps}
    undeclared = sorted(read - declared.keys() - SEED_DDL.keys())
    assert undeclared == [], (
        f"read but not declared as a model, macro, seed or source: {undeclared}"
    )
    sources = {n for n, r in declared.items() if r.kind == "source"}
    assert {"stg_aws__spot_prices", "stg_aws__spot_advisor", "_loads"} <= sources


def test_each_staged_table_is_a_source_declared_beside_its_connector():
    """Staging declared as sources: every table a connector stages besides its offers is a
    source in its own folder's sources.yml, with exactly the columns its StagedTable
    declares (the one home of those columns), and a connector's sources.yml declares
    no table but its own."""
    from connectors import registry

    declared = sql_runner.relations()
    for name, connector in registry.PROVIDERS.items():
        for table in connector.staged:
            rel = declared.get(table.name)
            assert rel is not None and rel.kind == "source", f"{table.name} is not a source"
            assert rel.path.parent.name == name and rel.path.name == "sources.yml", rel.path
            assert list(rel.columns) == list(table.columns), table.name
    for path in sql_runner.connector_sources():
        doc = yaml.safe_load(path.read_text())
        tables = [t["name"] for s in doc["sources"] for t in s["tables"]]
        staged = {t.name for t in registry.PROVIDERS[path.parent.name].staged}
        assert set(tables) == staged, path


def test_the_lineage_holds_the_known_edges():
    graph = sql_runner.lineage_graph()
    assert graph["mart_cost_per_token"] == {"cost_per_token"}
    assert graph["cost_per_token"] == {
        "dim_gpu_variants", "int_offers_usable", "seed_conventions", "serving_roofline"
    }
    # the roofline reads the relation its caller names (query_table of its argument)
    assert graph["serving_roofline"] == {"seed_conventions"}
    assert graph["int_spot_prices_unioned"] == {
        "int_provenances", "stg_aws__instance_types", "stg_aws__spot_prices"
    }
    assert graph["alert_rule_states"] == {"alert_events"}
    order = sql_runner.build_order()
    for name, deps in graph.items():
        for dep in deps & set(order):
            assert order.index(dep) < order.index(name), (dep, name)


def test_a_name_in_a_string_a_comment_or_a_cte_is_no_edge():
    sql = """
        -- reads int_offers_current? no: this is a comment
        with int_offers_ranked as (select 'int_offers_usable' as label from dim_gpus)
        select * from int_offers_ranked, cost_per_token(params_b := 1)
        where exists (select 1 from seed_conventions)
    """
    assert lineage.references(sql) == {"dim_gpus", "cost_per_token", "seed_conventions"}


def test_query_table_of_a_name_reads_it_and_of_a_parameter_reads_nothing():
    assert lineage.references("select * from query_table('dim_gpus')") == {"dim_gpus"}
    assert lineage.references("with c as (select 1) select * from query_table('c')") == set()
    assert lineage.references("select * from query_table(inputs)") == set()


def test_a_statement_that_does_not_parse_is_one_error_naming_it():
    with pytest.raises(WarehouseError, match="view mart_x does not parse"):
        lineage.graph({"mart_x": "select * form t"}, {})


def test_a_subgraph_is_selected_as_dbt_does():
    graph = sql_runner.lineage_graph()
    assert lineage.select(graph, "mart_cost_per_token") == {"mart_cost_per_token"}
    upstream = lineage.select(graph, "+mart_cost_per_token")
    assert {"cost_per_token", "int_offers_usable", "snp_offers_history"} <= upstream
    assert "mart_spot_breakeven" not in upstream
    downstream = lineage.select(graph, "dim_spot_interruption_buckets+")
    assert downstream == {
        "dim_spot_interruption_buckets",
        "mart_spot_on_demand_pairs",
        "spot_breakeven",
        "mart_spot_breakeven",
    }
    assert lineage.select(graph, "1+mart_spot_breakeven") == {
        "mart_spot_breakeven",
        "spot_breakeven",
    }
    with pytest.raises(WarehouseError, match="no relation 'mart_nope'"):
        lineage.select(graph, "mart_nope+")


def test_a_shared_column_description_is_a_doc_block_defined_once():
    docs = sql_runner.doc_blocks()
    rels = sql_runner.relations()
    assert rels["fct_gpu_prices"].columns["provider"] == docs["provider"]
    assert rels["mart_gpu_offers_current"].columns["provider"] == docs["provider"]


@pytest.mark.parametrize(
    ("column", "error"),
    [
        ("{name: total, description: \"{{ doc('nope') }}\"}", "no doc block 'nope'"),
        # an unquoted comma cuts a flow-style description in two: a key of its own
        ("{name: total, description: The total, USD.}", r"unknown key\(s\) USD\."),
    ],
)
def test_a_broken_description_is_one_clear_error(tmp_path, column, error):
    sql = tmp_path / "sql"
    (sql / "marts").mkdir(parents=True)
    (sql / "marts" / "mart_x.sql").write_text("select 1 as total\n")
    (sql / "marts" / "mart_x.yml").write_text(
        f"version: 2\nmodels:\n  - name: mart_x\n    columns:\n      - {column}\n"
    )
    with pytest.raises(WarehouseError, match=error):
        sql_runner.relations(sql)


def test_a_macro_is_described_in_the_warehouse_and_tested_at_its_defaults(tmp_path):
    sql = tmp_path / "sql"
    (sql / "macros").mkdir(parents=True)
    (sql / "macros" / "m.sql").write_text(
        "CREATE OR REPLACE MACRO m(k := 1) AS TABLE select k as v union all select null\n"
    )
    (sql / "macros" / "m.yml").write_text(
        "version: 2\nmacros:\n  - name: m\n    description: Two rows.\n"
        "    columns:\n      - {name: v, description: A value., data_tests: [not_null]}\n"
    )
    con = duckdb.connect()
    sql_runner.build_views(con, sql)
    comment = con.execute(
        "SELECT comment FROM duckdb_functions() WHERE function_name = 'm'"
    ).fetchone()
    assert comment == ("Two rows.",)
    results = {r.name: r.failures for r in checks.run_assertions(con, sql)}
    assert results == {"not_null_m_v": 1}


def test_a_column_description_shared_by_relations_has_one_home():
    """A column described alike in two relations is a doc block (sql/docs/columns.md), so a
    change of its meaning is made once; a second literal copy fails here."""
    literal: dict[tuple[str, str], set[str]] = {}
    for path in sql_runner.schema_files():
        doc = yaml.safe_load(path.read_text()) or {}
        entries = [e for k in ("models", "macros", "snapshots", "seeds") for e in doc.get(k) or []]
        entries += [t for s in doc.get("sources") or [] for t in s.get("tables") or []]
        for entry in entries:
            for column in entry.get("columns") or []:
                text = " ".join(str(column.get("description") or "").split())
                if text and not text.startswith("{{"):
                    literal.setdefault((column["name"], text), set()).add(entry["name"])
    copies = {key: sorted(rels) for key, rels in literal.items() if len(rels) > 1}
    assert copies == {}


@pytest.mark.parametrize("seed", sorted(SEED_DDL))
def test_each_seed_has_its_schema_file_with_a_description_and_a_data_test(seed):
    schema = SQL / "seeds" / f"{seed}.yml"
    assert schema.is_file(), f"no {schema.name} beside {seed}.csv"
    rel = sql_runner.relations()[seed]
    assert rel.kind == "seed" and rel.description and rel.tests


def _example_call(rel) -> str | None:
    """A table macro without defaults (one over a relation the caller names) states an
    example call as `meta.example` in its schema file."""
    if rel.kind != "macro":
        return None
    doc = yaml.safe_load(rel.path.read_text())
    entry = next(e for e in doc.get("macros") or [] if e["name"] == rel.name)
    return (entry.get("meta") or {}).get("example")


def test_every_column_of_every_model_macro_and_source_is_described(demo_warehouse):
    """Built from the demo: a column a model, a table macro (at its defaults) or a staging
    table has, and its schema file does not describe, fails here with its file named."""
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        missing = []
        for name, rel in sorted(sql_runner.relations().items()):
            if rel.kind == "seed":  # the seeds' columns are described in their README
                continue
            table = f"(select * from {name}())" if rel.kind == "macro" else name
            example = _example_call(rel)
            table = f"({example})" if example else table
            exists = rel.kind == "macro" or con.execute(
                "SELECT count(*) FROM duckdb_columns() WHERE table_name = $t", {"t": name}
            ).fetchone()[0]
            if not exists:
                continue
            columns = [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
            missing += [f"{rel.path.name}: {name}.{c}" for c in columns if not rel.columns.get(c)]
    finally:
        con.close()
    assert missing == []
