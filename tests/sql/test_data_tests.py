"""The schema files' data tests (not_null, unique, accepted_values, relationships,
unique_combination_of_columns): each kind passes on healthy rows and fires on one bad row;
a broken schema file is one clear error; a failing data test publishes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from common.errors import AssertionsFailed, WarehouseError
from common.schemas import PRICING_MODELS
from warehouse import checks, materialise, sql_runner

SCHEMA = """
version: 2
sources:
  - name: warehouse
    tables:
      - name: gpus
        columns:
          - {name: gpu_name, description: The GPU., data_tests: [unique]}
      - name: offers
        description: Raw offers.
models:
  - name: int_offers
    description: One row per offer.
    data_tests:
      - dbt_utils.unique_combination_of_columns:
          combination_of_columns: [provider, region]
    columns:
      - name: provider
        description: The provider.
        data_tests: [not_null]
      - name: region
        description: The region.
      - name: pricing_model
        description: How the price is billed.
        data_tests:
          - accepted_values: {values: [on_demand, spot]}
      - name: gpu_name
        description: The GPU.
        data_tests:
          - relationships: {to: "source('warehouse', 'gpus')", field: gpu_name}
      - name: price
        description: USD per hour.
        data_tests:
          - not_null:
              config: {where: "pricing_model = 'on_demand'"}
"""

HEALTHY = [
    "CREATE TABLE gpus AS SELECT * FROM (VALUES ('H100'), ('A100')) t(gpu_name)",
    """CREATE TABLE offers AS SELECT * FROM (VALUES
         ('aws', 'us-east-1', 'on_demand', 'H100', 98.3),
         ('gcp', 'us-central1', 'spot', 'A100', NULL),
         ('azure', 'eastus', 'on_demand', NULL, 27.2)
       ) t(provider, region, pricing_model, gpu_name, price)""",
]

BAD_ROWS = {
    "not_null_int_offers_provider":
        "INSERT INTO offers VALUES (NULL, 'x', 'spot', 'H100', 1)",
    "unique_gpus_gpu_name": "INSERT INTO gpus VALUES ('H100')",
    "accepted_values_int_offers_pricing_model":
        "INSERT INTO offers VALUES ('aws', 'x', 'ondemand', 'H100', 1)",
    "relationships_int_offers_gpu_name":
        "INSERT INTO offers VALUES ('aws', 'x', 'spot', 'H999', 1)",
    "unique_combination_of_columns_int_offers_provider__region":
        "INSERT INTO offers VALUES ('aws', 'us-east-1', 'spot', 'H100', 40.1)",
    "not_null_int_offers_price":
        "INSERT INTO offers VALUES ('aws', 'x', 'on_demand', 'H100', NULL)",
}


@pytest.fixture
def tiny(tmp_path) -> tuple[duckdb.DuckDBPyConnection, Path]:
    sql = tmp_path / "sql"
    for folder in ("intermediate", "marts", "alert_inputs", "macros", "tests", "seeds"):
        (sql / folder).mkdir(parents=True)
    (sql / "intermediate" / "int_offers.sql").write_text("select * from offers\n")
    (sql / "intermediate" / "schema.yml").write_text(SCHEMA)
    con = duckdb.connect()
    for statement in HEALTHY:
        con.execute(statement)
    sql_runner.build_views(con, sql)
    yield con, sql
    con.close()


def failing(con, sql: Path) -> dict[str, int]:
    return {r.name: r.failures for r in checks.run_assertions(con, sql) if r.failures}


def test_healthy_rows_pass_every_declared_test(tiny):
    con, sql = tiny
    names = {r.name for r in checks.run_assertions(con, sql)}
    assert names == set(BAD_ROWS)
    assert failing(con, sql) == {}


@pytest.mark.parametrize("test", sorted(BAD_ROWS))
def test_one_bad_row_fires_exactly_its_test(tiny, test):
    con, sql = tiny
    con.execute(BAD_ROWS[test])
    assert failing(con, sql) == {test: 1}


def test_a_failure_names_the_test_and_shows_the_bad_row(tiny):
    con, sql = tiny
    con.execute(BAD_ROWS["accepted_values_int_offers_pricing_model"])
    with pytest.raises(AssertionsFailed) as err:
        checks.assert_healthy(con, sql)
    message = str(err.value)
    assert "accepted_values_int_offers_pricing_model: 1 row(s)" in message
    assert "ondemand" in message and "\n" not in message


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (("not_null]", "not_nul]"), "unknown test 'not_nul'"),
        (("name: int_offers\n", "name: int_offer\n"), "declares model int_offer, which has no .sql file"),
        (("name: price\n", "name: prize\n"), "describing int_offers failed"),
        (("[provider, region]", "[provider, region"), "is not valid"),
    ],
)
def test_a_broken_schema_file_is_one_clear_error(tiny, change, error):
    con, sql = tiny
    path = sql / "intermediate" / "schema.yml"
    path.write_text(SCHEMA.replace(*change, 1))
    with pytest.raises(WarehouseError, match=error) as err:
        sql_runner.build_views(con, sql)
        checks.run_assertions(con, sql)
    assert str(path) in str(err.value) or "unknown test" in str(err.value)


def test_the_project_declares_the_pricing_models_of_the_staging_schema():
    declared = [
        test
        for rel in sql_runner.relations().values()
        for test in rel.tests
        if test.name.startswith("accepted_values_") and test.name.endswith("_pricing_model")
    ]
    assert declared
    for test in declared:
        assert all(f"'{m}'" in test.condition for m in PRICING_MODELS)
        assert test.condition.count("'") == 2 * len(PRICING_MODELS)


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_the_demo_warehouse_passes_every_declared_test(warehouse):
    results = checks.run_assertions(warehouse)
    declared = [r for r in results if not r.name.startswith("assert_")]
    assert len(declared) > 50
    assert {r.name: r.failures for r in declared if r.failures} == {}


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_bad_row_in_the_real_warehouse_fires_the_declared_test(warehouse):
    warehouse.execute(
        """UPDATE snp_offers_history SET pricing_model = 'reserved_5y'
           WHERE rowid = (SELECT min(rowid) FROM snp_offers_history WHERE valid_to IS NULL)"""
    )
    materialise.materialise(warehouse)  # as a refresh does before its assertions
    failures = {r.name for r in checks.run_assertions(warehouse) if r.failures}
    assert {
        "accepted_values_mart_gpu_offers_current_pricing_model",
        "accepted_values_fct_gpu_prices_pricing_model",
    } <= failures


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_failing_data_test_fails_the_refresh_and_publishes_nothing(tmp_path, monkeypatch):
    from connectors.kit import snapshot as kit_snapshot
    from flows import pipeline

    path = tmp_path / "w.duckdb"
    pages = list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "azure"))
    pipeline.load_and_publish(path, {"azure": pages}, source="test")
    published = path.read_bytes()
    sql = tmp_path / "sql"
    shutil.copytree(sql_runner.SQL_DIR, sql)
    sources = sql / "sources" / "warehouse.yml"
    # every load of the demo is ok: declaring only 'failed' acceptable makes the test fire
    sources.write_text(sources.read_text().replace("values: [ok, failed, skipped]", "values: [failed]"))
    monkeypatch.setattr(sql_runner, "SQL_DIR", sql)
    monkeypatch.setattr(checks.Checking.__init__, "__defaults__", (sql,))
    with pytest.raises(AssertionsFailed, match="accepted_values__loads_status"):
        pipeline.load_and_publish(path, {"azure": pages}, source="test2")
    assert path.read_bytes() == published


def test_the_tests_of_a_relation_run_in_one_scan_and_a_relationship_alone(tiny, monkeypatch):
    """Healthy rows: the row-level and uniqueness tests of int_offers are one query (the
    view computed once), the relationship its own, gpus's unique test one."""
    con, sql = tiny
    statements: list[str] = []
    real = checks.run

    def spy(con, text, *args):
        statements.append(text)
        return real(con, text, *args)

    monkeypatch.setattr(checks, "run", spy)
    assert failing(con, sql) == {}
    reads = [s for s in statements if "int_offers" in s]
    assert len(reads) == 2, reads
    assert sum("anti join" in s for s in reads) == 1
    assert sum("from gpus" in s.lower() for s in statements) == 1


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # two keys repeated (one of them three times): the failures are the keys
        ("INSERT INTO gpus VALUES ('H100'), ('A100'), ('A100')", 2),
        # a single column's nulls are no key: never repeated
        ("INSERT INTO gpus VALUES (NULL), (NULL)", 0),
    ],
)
def test_a_unique_column_counts_the_keys_repeated(tiny, rows, expected):
    con, sql = tiny
    con.execute(rows)
    got = failing(con, sql)
    assert got == ({"unique_gpus_gpu_name": expected} if expected else {})


def test_a_combination_repeated_with_nulls_is_a_repeated_key(tiny):
    """`group by` groups nulls: (gcp, NULL) twice is one repeated key, as before the
    uniqueness tests ran in the one scan."""
    con, sql = tiny
    con.execute("INSERT INTO offers VALUES ('gcp', NULL, 'spot', 'A100', 1), "
                "('gcp', NULL, 'spot', 'A100', 2)")  # fmt: skip
    assert failing(con, sql) == {"unique_combination_of_columns_int_offers_provider__region": 1}


def test_a_uniqueness_test_with_a_where_reads_only_those_rows(tiny):
    con, sql = tiny
    schema = sql / "intermediate" / "schema.yml"
    schema.write_text(schema.read_text().replace(
        "          - {name: gpu_name, description: The GPU., data_tests: [unique]}",
        "          - {name: gpu_name, description: The GPU., data_tests: "
        "[{unique: {config: {where: \"gpu_name <> 'A100'\"}}}]}",
    ))  # fmt: skip
    con.execute("INSERT INTO gpus VALUES ('A100')")  # repeated, outside the where
    assert failing(con, sql) == {}
    con.execute("INSERT INTO gpus VALUES ('H100')")
    assert failing(con, sql) == {"unique_gpus_gpu_name": 1}


def test_a_key_count_that_is_not_zero_only_makes_the_test_count_exactly(tiny):
    """Two keys sharing a hash look like a repeat in the one scan: the test's own query
    then counts its failures, and finds none."""
    con, _ = tiny
    test = sql_runner.DataTest(
        "unique_gpus_gpu_name", "gpus",
        "select gpu_name, count(*) as n from gpus as t group by all having count(*) > 1",
        duplicates="count(*)",  # as if every row repeated a key
    )  # fmt: skip
    assert checks._recounted(con, test, 1, scoped=False) == 0
