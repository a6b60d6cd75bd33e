"""The checks run two at a time and beside a build (warehouse.checking.Queries): a query
that reads nothing the build still makes starts at once on the second connection; one that
reads a relation still to be made, directly or through a view, waits until it is made and
reads it as made (a held view through its temporary view); an error is raised when the
results are collected, and never interrupts the build. Beside a real build of the demo
warehouse, the checks give what they give after it."""

from __future__ import annotations

import shutil
import threading

import duckdb
import pytest

from warehouse import checking, checks, db, materialise, sql_runner

WAIT = 30  # seconds: a query that should start at once, on a loaded machine


def count(relation: str, seen: list[str] | None = None, started: threading.Event | None = None):
    def run(con: duckdb.DuckDBPyConnection) -> int:
        if started is not None:
            started.set()
        if seen is not None:
            seen.append(relation)
        return con.execute(f"SELECT count(*) FROM {relation}").fetchone()[0]

    return run


def test_upstream_follows_views_and_macros():
    graph = {"v": {"w", "m"}, "w": {"t"}, "m": {"u"}, "t": set(), "u": set()}
    assert checking.upstream(["V"], graph) == {"v", "w", "m", "t", "u"}
    assert checking.upstream(["t"], graph) == {"t"}
    assert checking.upstream(["unknown"], graph) == {"unknown"}


def test_a_query_of_what_is_made_waits_and_the_others_run_beside_the_build():
    con = duckdb.connect()
    con.execute("CREATE TABLE ledger AS SELECT range AS i FROM range(3)")
    ledger_ran = threading.Event()
    seen: list[str] = []
    queries = checking.Queries(
        con,
        [
            checking.Query(count("made", seen), frozenset({"made"})),
            checking.Query(count("ledger", seen, ledger_ran), frozenset({"ledger"})),
        ],
        prepare=lambda mirror: None,
    )
    queries.building(["made"])
    # the ledger's check runs while the build has not made `made` yet
    assert ledger_ran.wait(WAIT)
    assert "made" not in seen
    con.execute("CREATE TABLE made AS SELECT range AS i FROM range(5)")
    queries.built("made")
    assert queries.results() == [5, 3]


def test_the_second_connection_reads_the_held_rows_through_their_temporary_view():
    con = duckdb.connect()
    con.execute("CREATE TABLE base AS SELECT range AS i FROM range(4)")
    con.execute("CREATE VIEW v AS SELECT * FROM base")
    con.execute("CREATE VIEW reader AS SELECT * FROM v")
    mirrored = threading.Event()

    def read(c: duckdb.DuckDBPyConnection) -> int:
        n = c.execute("SELECT count(*) FROM reader").fetchone()[0]
        if c is not con:
            mirrored.set()
        return n

    queries = checking.Queries(
        con,
        [checking.Query(read, frozenset({"reader", "v", "base"}))] * 2,
        prepare=lambda mirror: None,
    )
    queries.building(["v"])
    # the build holds v: its rows stored in an attached scratch database (here one row
    # fewer than the view gives) and read through a temporary view of its name
    con.execute("ATTACH ':memory:' AS scratch")
    con.execute("CREATE TABLE scratch.v AS SELECT * FROM v WHERE i > 0")
    view = "CREATE TEMPORARY VIEW v AS SELECT * FROM scratch.v"
    con.execute(view)
    queries.built("v", view)
    assert mirrored.wait(WAIT)  # the second connection read them once v was made
    assert queries.results() == [3, 3]


def test_an_error_is_raised_with_the_results_and_the_build_goes_on():
    con = duckdb.connect()
    con.execute("CREATE TABLE ok AS SELECT 1 AS i")
    failed = threading.Event()

    def broken(c: duckdb.DuckDBPyConnection) -> int:
        failed.set()
        raise ValueError("a check that cannot run")

    queries = checking.Queries(
        con,
        [checking.Query(broken, frozenset()), checking.Query(count("ok"), frozenset({"made"}))],
        prepare=lambda mirror: None,
    )
    queries.building(["made"])
    assert failed.wait(WAIT)
    # the build's own statements still run on its connection
    con.execute("CREATE TABLE made AS SELECT range AS i FROM range(2)")
    queries.built("made")
    with pytest.raises(ValueError, match="cannot run"):
        queries.results()


@pytest.mark.slow  # two builds of the demo warehouse
def test_beside_a_build_the_checks_give_what_they_give_after_it(demo_warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:
        sql_runner.build_views(con)
        beside = checks.Checking(con, scoped=False)
        with materialise.computed_once(con, materialise_marts=True, checks=beside) as held:
            assert held
            during = [(r.name, r.failures) for r in checks.assert_healthy(con, checks=beside)]
            after = [(r.name, r.failures) for r in checks.run_assertions(con)]
        assert during == after
        assert len(during) > 100 and not any(n for _, n in during)
        # a check that fails beside the build fails the refresh as after it
        con.execute(
            "INSERT INTO snp_offers_history SELECT * FROM snp_offers_history "
            "WHERE valid_to IS NULL LIMIT 1"
        )
        failing = checks.Checking(con, scoped=False)
        with materialise.computed_once(con, materialise_marts=True, checks=failing):
            found = {r.name: r.failures for r in failing.results() if r.failures}
        assert any(name.startswith("unique_combination_of_columns_snp_offers_history") for name in found)
