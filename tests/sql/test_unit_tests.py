"""The SQL unit tests (`unit_tests:` in the schema files): each model or table macro over
its given rows in an in-memory DuckDB, compared with the expected rows. Milliseconds each:
no refresh, no other model."""

from __future__ import annotations

import dataclasses
import time

import pytest

from common.errors import WarehouseError
from warehouse import sql_unit

TESTS = {t.name: t for t in sql_unit.unit_tests()}


@pytest.mark.parametrize("name", sorted(TESTS))
def test_sql_unit(name):
    sql_unit.check(TESTS[name])


def test_a_wrong_expectation_fails_showing_both_sides():
    test = TESTS["vastai_cheapest_and_median_per_gpu_and_pricing_model"]
    rows = [{**test.expect[0], "median_usd_per_gpu_hour": 3.5}, *test.expect[1:]]
    with pytest.raises(sql_unit.UnitTestFailed, match="expected") as err:
        sql_unit.check(dataclasses.replace(test, expect=rows))
    assert "3.5" in str(err.value) and "mart_vastai_gpu_prices" in str(err.value)
    # a missing or an extra row fails too
    with pytest.raises(sql_unit.UnitTestFailed):
        sql_unit.check(dataclasses.replace(test, expect=test.expect[:1]))


def test_every_input_the_model_reads_must_be_given_but_a_seed():
    test = TESTS["row_drops_count_offers_closed_by_the_last_refresh"]
    given = {k: v for k, v in test.given.items() if k != "fct_gpu_prices"}
    with pytest.raises(WarehouseError, match="give the rows of fct_gpu_prices"):
        sql_unit.run(dataclasses.replace(test, given=given))
    # seed_conventions not given: the seed's CSV (720 hours a month) is used
    buckets = TESTS["buckets_become_hourly_rates_at_their_upper_bound"]
    sql_unit.check(dataclasses.replace(buckets, given={}))


def test_an_expected_column_the_model_lacks_is_one_clear_error():
    test = TESTS["cheapest_offer_and_the_median_of_provider_minimums"]
    rows = [{**test.expect[0], "cheapest_ever": 1.0}]
    with pytest.raises(WarehouseError, match="has no column cheapest_ever"):
        sql_unit.run(dataclasses.replace(test, expect=rows))


def test_unit_tests_take_milliseconds_not_a_refresh():
    started = time.perf_counter()
    for test in TESTS.values():
        sql_unit.check(test)
    per_test = (time.perf_counter() - started) / len(TESTS)
    assert per_test < 1.0, f"{per_test:.2f} s per unit test"  # about 0.1 s here


def test_the_macros_and_the_marts_have_unit_tests():
    tested = {t.model for t in TESTS.values()}
    assert {"cost_per_token", "breakeven_onprem", "spot_breakeven"} <= tested
    assert len({m for m in tested if m.startswith(("mart_", "dim_", "alert_"))}) >= 4
