"""Each sql/tests/assert_*.sql returns zero rows on the demo warehouse and fires on one
planted bad row."""

from __future__ import annotations

import pytest

from warehouse import checks, materialise, sql_runner

# the first open history row, a current offer's load
FIRST_OPEN = "(SELECT min(rowid) FROM snp_offers_history WHERE valid_to IS NULL)"
CURRENT_LOAD = "(SELECT min(load_id) FROM mart_gpu_offers_current)"

BAD_ROWS = {
    "assert_unique_staged_offer": [
        "INSERT INTO stg_azure__offers SELECT * FROM stg_azure__offers LIMIT 1",
    ],
    "assert_no_nonpositive_price": [
        f"UPDATE snp_offers_history SET price_usd_per_hour = 0 WHERE rowid = {FIRST_OPEN}",
    ],
    "assert_history_period_ends_after_start": [
        "UPDATE snp_offers_history SET valid_to = valid_from - INTERVAL 1 DAY "
        "WHERE rowid = (SELECT min(rowid) FROM snp_offers_history)",
    ],
    "assert_spot_points_unique": [
        "INSERT INTO stg_aws__spot_prices SELECT * FROM stg_aws__spot_prices LIMIT 1",
    ],
    "assert_current_offer_traceable": [
        f"DELETE FROM _load_pages WHERE load_id = {CURRENT_LOAD}",
    ],
}

# further ways each assertion must catch
MORE_BAD_ROWS = [
    (
        "assert_no_nonpositive_price",
        f"UPDATE snp_offers_history SET price_usd_per_hour = -1 WHERE rowid = {FIRST_OPEN}",
    ),
    (
        "assert_no_nonpositive_price",
        f"UPDATE snp_offers_history SET price_usd_per_hour = 'nan'::double WHERE rowid = {FIRST_OPEN}",
    ),
    ("assert_current_offer_traceable", f"DELETE FROM _loads WHERE load_id = {CURRENT_LOAD}"),
    (
        "assert_current_offer_traceable",
        f"UPDATE _load_pages SET sha256 = '' WHERE load_id = {CURRENT_LOAD}",
    ),
]


def failures(con) -> dict[str, int]:
    return {r.name: r.failures for r in checks.run_assertions(con)}


def test_every_assertion_file_has_a_bad_row_case():
    files = {p.stem for p in (sql_runner.SQL_DIR / "tests").glob("assert_*.sql")}
    assert files == set(BAD_ROWS)


def test_the_demo_warehouse_passes_every_assertion(warehouse):
    assert {n: f for n, f in failures(warehouse).items() if n.startswith("assert_")} == dict.fromkeys(
        BAD_ROWS, 0
    )


@pytest.mark.parametrize(
    ("assertion", "bad_row"),
    [(name, sql) for name, sqls in BAD_ROWS.items() for sql in sqls] + MORE_BAD_ROWS,
)
def test_an_assertion_fires_on_one_bad_row(warehouse, assertion, bad_row):
    warehouse.execute(bad_row)
    # as in a refresh, the materialised marts are rebuilt from history before the
    # assertions run (they check the tables analysts read)
    materialise.materialise(warehouse)
    assert failures(warehouse)[assertion] > 0


def test_a_second_open_period_is_found_by_the_history_test_alone(warehouse):
    """One open period per offer key has one home, the offer history's declared test
    (sql/snapshots/snp_offers_history.yml): a duplicated open row fails it, and no
    assertion file groups all history again to state it a second time."""
    warehouse.execute(
        f"INSERT INTO snp_offers_history SELECT * FROM snp_offers_history WHERE rowid = {FIRST_OPEN}"
    )
    materialise.materialise(warehouse)
    failed = {name for name, n in failures(warehouse).items() if n}
    key = "provider__region__zone__instance_type__pricing_model__pricing_detail"
    assert f"unique_combination_of_columns_snp_offers_history_{key}" in failed
    assert {name for name in failed if name.startswith("assert_")} == set()


def test_an_untraceable_load_fails_every_current_offer_it_names(warehouse):
    """The traceability assertion checks each load once, then counts the offers of the
    loads that fail: as many failures as current offers name the load, and the sample
    says why (not in the ledger)."""
    (load, offers), = warehouse.execute(
        f"SELECT {CURRENT_LOAD}, count(*) FROM mart_gpu_offers_current "
        f"WHERE load_id = {CURRENT_LOAD}"
    ).fetchall()
    warehouse.execute("DELETE FROM _loads WHERE load_id = ?", [load])
    materialise.materialise(warehouse)
    (result,) = [
        r for r in checks.run_assertions(warehouse) if r.name == "assert_current_offer_traceable"
    ]
    assert result.failures == offers
    assert result.sample["load_id"].unique().to_list() == [load]
    assert result.sample["in_ledger"].to_list() == [False] * min(offers, 5)
