"""warehouse.db.transaction: its own transaction, or the caller's when one is open."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.db import in_transaction, transaction


@pytest.fixture()
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x INTEGER)")
    yield con
    con.close()


def rows(con) -> list[int]:
    return [x for (x,) in con.execute("SELECT x FROM t ORDER BY x").fetchall()]


def test_a_block_commits_on_its_own_and_rolls_back_on_an_error(con):
    with transaction(con):
        con.execute("INSERT INTO t VALUES (1)")
    assert rows(con) == [1]
    with pytest.raises(ZeroDivisionError), transaction(con):
        con.execute("INSERT INTO t VALUES (2)")
        raise ZeroDivisionError
    assert rows(con) == [1]
    assert not in_transaction(con)


def test_a_block_inside_an_open_transaction_is_the_callers(con):
    # DuckDB aborts an open transaction when asked to BEGIN inside it: the inner block must
    # not ask, or the outer one's rows are lost and its commit fails
    with transaction(con):
        con.execute("INSERT INTO t VALUES (1)")
        assert in_transaction(con)
        with transaction(con):
            con.execute("INSERT INTO t VALUES (2)")
        con.execute("INSERT INTO t VALUES (3)")
    assert rows(con) == [1, 2, 3]
    with pytest.raises(ZeroDivisionError), transaction(con):
        con.execute("INSERT INTO t VALUES (4)")
        with transaction(con):
            con.execute("INSERT INTO t VALUES (5)")
            raise ZeroDivisionError
    assert rows(con) == [1, 2, 3]  # the caller decided: all of it rolled back


def test_a_transaction_begun_by_the_caller_is_seen(con):
    assert not in_transaction(con)
    con.begin()
    assert in_transaction(con)
    with transaction(con):
        con.execute("INSERT INTO t VALUES (7)")
    con.commit()
    assert rows(con) == [7]
