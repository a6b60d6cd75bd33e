"""The offer history's schema file (sql/snapshots/snp_offers_history.yml): its data tests fire on a bad
row of the demo warehouse, and its descriptions reach the warehouse as comments."""

from __future__ import annotations

from warehouse import checks, sql_runner

KEY = "provider__region__zone__instance_type__pricing_model__pricing_detail"
ONE_OPEN = f"unique_combination_of_columns_snp_offers_history_{KEY}"
ONE_PERIOD = f"unique_combination_of_columns_snp_offers_history_{KEY}__valid_from"


def failing(con) -> dict[str, int]:
    return {
        r.name: r.failures
        for r in checks.run_assertions(con)
        if r.failures and "snp_offers_history" in r.name
    }


def test_the_demo_history_passes_its_declared_tests(warehouse):
    declared = {t.name for t in sql_runner.relations()["snp_offers_history"].tests}
    assert {ONE_OPEN, ONE_PERIOD} <= declared
    assert failing(warehouse) == {}


def test_a_second_open_period_of_one_offer_fires_the_one_open_row_test(warehouse):
    warehouse.execute(
        """INSERT INTO snp_offers_history BY NAME
           SELECT * REPLACE (valid_from + INTERVAL 1 DAY AS valid_from)
           FROM snp_offers_history WHERE valid_to IS NULL LIMIT 1"""
    )
    assert failing(warehouse) == {ONE_OPEN: 1}


def test_a_period_stored_twice_fires_the_one_period_test(warehouse):
    warehouse.execute(
        """INSERT INTO snp_offers_history BY NAME
           SELECT * FROM snp_offers_history WHERE valid_to IS NOT NULL LIMIT 1"""
    )
    assert failing(warehouse) == {ONE_PERIOD: 1}


def test_every_history_column_is_described_in_the_warehouse(warehouse):
    declared = sql_runner.relations()["snp_offers_history"]
    comments = dict(
        warehouse.execute(
            """SELECT column_name, comment FROM duckdb_columns()
               WHERE table_name = 'snp_offers_history'"""
        ).fetchall()
    )
    assert len(comments) > 20
    assert {c: text for c, text in comments.items() if not text} == {}
    assert comments == declared.columns
    (table_comment,) = warehouse.execute(
        "SELECT comment FROM duckdb_tables() WHERE table_name = 'snp_offers_history'"
    ).fetchone()
    assert table_comment == declared.description and "SCD type 2" in table_comment
