"""Checks that cost what changed (warehouse.checks): a time series (`meta: {appended_by:
load_id}`) is checked on the rows of the loads a refresh parsed, the rest whole; the full
check (`gpu-pricing check --all`, the weekly refresh, a change of SQL) reads every row."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from common.errors import AssertionsFailed, WarehouseError
from services.config import Schedule
from warehouse import checks, db, materialise, sql_runner

SCHEMA = """
version: 2
sources:
  - name: warehouse
    tables:
      - name: gpus
        columns:
          - {name: gpu_name, description: The GPU.}
      - name: points
        description: A time series.
        meta: {appended_by: load_id}
        data_tests:
          - dbt_utils.unique_combination_of_columns:
              combination_of_columns: [series, t_at]
        columns:
          - {name: series, description: The series.}
          - {name: t_at, description: The time.}
          - {name: price, description: The price., data_tests: [not_null]}
          - name: gpu_name
            description: The GPU.
            data_tests:
              - relationships: {to: "source('warehouse', 'gpus')", field: gpu_name}
          - {name: load_id, description: The load.}
"""


@pytest.fixture
def tiny(tmp_path) -> tuple[duckdb.DuckDBPyConnection, Path]:
    sql = tmp_path / "sql"
    for folder in ("intermediate", "marts", "alert_inputs", "macros", "tests", "sources"):
        (sql / folder).mkdir(parents=True)
    (sql / "sources" / "schema.yml").write_text(SCHEMA)
    con = duckdb.connect()
    con.execute("CREATE TABLE gpus AS SELECT 'H100' AS gpu_name")
    con.execute(
        """CREATE TABLE points AS SELECT * FROM (VALUES
             ('a', 1, 2.0, 'H100', 'l1'), ('a', 2, 2.1, 'H100', 'l1'), ('b', 1, 3.0, 'H100', 'l1')
           ) t(series, t_at, price, gpu_name, load_id)"""
    )
    yield con, sql
    con.close()


def failing(con, sql: Path, scoped: bool) -> dict[str, int]:
    return {
        r.name: r.failures
        for r in checks.run_assertions(con, sql, scoped=scoped)
        if r.failures
    }


UNIQUE = "unique_combination_of_columns_points_series__t_at"
NOT_NULL = "not_null_points_price"
RELATIONSHIP = "relationships_points_gpu_name"


def test_a_refresh_checks_its_own_loads_and_the_full_check_every_row(tiny):
    con, sql = tiny
    # bad rows stored by an earlier load: a duplicate, a missing price, an unknown GPU
    con.execute("INSERT INTO points VALUES ('a', 1, 2.0, 'H100', 'l1'), ('c', 1, NULL, 'X1', 'l1')")
    checks.scope(con, ["l2"])  # tonight's load added nothing bad
    con.execute("INSERT INTO points VALUES ('c', 2, 1.0, 'H100', 'l2')")
    assert failing(con, sql, scoped=True) == {}
    assert failing(con, sql, scoped=False) == {UNIQUE: 1, NOT_NULL: 1, RELATIONSHIP: 1}


@pytest.mark.parametrize(
    ("row", "fires"),
    [
        ("('d', 1, NULL, 'H100', 'l2')", {NOT_NULL: 1}),
        ("('d', 1, 1.0, 'X9', 'l2')", {RELATIONSHIP: 1}),
        # a new point repeating a stored one: both rows counted, the stored one unchecked
        ("('a', 2, 9.9, 'H100', 'l2')", {UNIQUE: 1}),
    ],
)
def test_a_bad_row_of_the_checked_loads_fires_its_test(tiny, row, fires):
    con, sql = tiny
    checks.scope(con, ["l2"])
    con.execute(f"INSERT INTO points VALUES {row}")
    assert failing(con, sql, scoped=True) == fires
    assert failing(con, sql, scoped=False) == fires


def test_the_scoped_uniqueness_counts_the_stored_row_too(tiny):
    con, sql = tiny
    checks.scope(con, ["l2"])
    con.execute("INSERT INTO points VALUES ('a', 2, 9.9, 'H100', 'l2')")
    [test] = [t for t in checks.data_tests(con, sql) if t.name == UNIQUE]
    checks.use_scope(con, scoped=True)
    assert db.run(con, test.query(scoped=True)) == [("a", 2, 2)]


def test_appended_by_names_a_declared_column(tiny):
    _, sql = tiny
    (sql / "sources" / "schema.yml").write_text(
        SCHEMA.replace("appended_by: load_id", "appended_by: loaded")
    )
    with pytest.raises(WarehouseError, match="appended_by names 'loaded'"):
        sql_runner.relations(sql)


def test_the_project_declares_its_spot_series_appended():
    appended = {r.name for r in sql_runner.relations().values() if r.appended_by}
    assert appended == {"stg_aws__spot_prices", "int_spot_prices_unioned", "fct_spot_prices"}


def test_the_weekly_full_check_falls_on_its_day_in_the_schedule_time_zone():
    sunday_night = datetime(2026, 11, 22, 23, 30, tzinfo=UTC)  # Monday in Tokyo
    assert Schedule().full_check_due(sunday_night)
    assert not Schedule(timezone="Asia/Tokyo").full_check_due(sunday_night)
    assert Schedule(timezone="Asia/Tokyo", full_check="mon").full_check_due(sunday_night)
    assert Schedule(full_check="daily").full_check_due(sunday_night + timedelta(days=2))
    assert not Schedule(full_check="never").full_check_due(sunday_night)
    with pytest.raises(ValueError, match="full_check"):
        Schedule(full_check="someday")


# --- through the refresh and the command line ----------------------------------------------

T0 = datetime(2026, 11, 18)


def spot_night(root: Path, night: int) -> Path:
    """One night of AWS spot points (two zones, hourly) in the recorded page shape."""
    from samples.aws import aws_spot_price_item

    folder = root / f"night{night}" / "aws" / "spot_price_history"
    folder.mkdir(parents=True)
    start = T0 + timedelta(days=night)
    items = [
        aws_spot_price_item(zone, "p4d.24xlarge", f"{10 + night + h / 100:.6f}",
                            (start + timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ"))
        for zone in ("us-east-1a", "us-east-1b")
        for h in range(24)
    ]  # fmt: skip
    page = {
        "fetched_at": (start + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "request": {"region": "us-east-1", "page": 1},
        "body": {"SpotPriceHistory": items, "NextToken": ""},
    }
    (folder / "us-east-1-0001.json").write_text(json.dumps(page))
    return folder.parents[1]


@pytest.mark.slow  # three refreshes and two commands
def test_a_stored_duplicate_is_the_full_checks_and_the_nights_pass(tmp_path):
    from connectors.kit import snapshot as kit_snapshot
    from flows import pipeline
    from gpu_pricing.cli import app

    path = tmp_path / "w.duckdb"

    def night(n: int, full: bool = False) -> pipeline.RunSummary:
        pages = kit_snapshot.read_provider(spot_night(tmp_path, n), "aws")
        return pipeline.load_and_publish(path, {"aws": pages}, source=f"n{n}", full_check=full)

    assert night(1).full_check  # a new warehouse: nothing was checked before
    second = night(2)
    assert not second.full_check and second.exit_code == 0
    con = duckdb.connect(str(path))
    con.execute(
        """INSERT INTO stg_aws__spot_prices SELECT * FROM stg_aws__spot_prices
           WHERE observed_at = (SELECT min(observed_at) FROM stg_aws__spot_prices) LIMIT 1"""
    )
    con.close()
    assert night(3).exit_code == 0  # tonight's points are sound: the old duplicate is not tonight's
    runner = CliRunner()
    nightly = runner.invoke(app, ["check", "--warehouse", str(path)])
    assert nightly.exit_code == 0, nightly.output
    assert "0 failed" in nightly.output
    full = runner.invoke(app, ["check", "--all", "--warehouse", str(path), "--json"])
    assert full.exit_code == 3, full.output
    doc = json.loads(full.stdout)
    assert doc["failed"] == {"assert_spot_points_unique": 1}
    assert "check assert_spot_points_unique failed: 1 row(s)" in full.stderr
    published = path.read_bytes()
    with pytest.raises(AssertionsFailed, match="assert_spot_points_unique"):
        night(4, full=True)  # the weekly full check finds it and publishes nothing
    assert path.read_bytes() == published


def test_computed_once_holds_no_time_series(demo_warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:
        sql_runner.build_views(con)
        with materialise.computed_once(con) as held:
            assert "int_offers_current" in held
            assert not {"int_spot_prices_unioned", "fct_spot_prices"} & set(held)


@pytest.mark.slow  # a refresh of the demo warehouse
def test_an_unchanged_refresh_rebuilds_no_relation_and_checks_nothing(
    demo_warehouse, demo_pages, tmp_path, monkeypatch
):
    """The same snapshot again: no view, held relation, mart or check is built or run
    (counted on the real functions), and every published relation stays as it was."""
    from flows import pipeline

    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    calls: dict[str, int] = {}

    def counted(module, name):
        real = getattr(module, name)

        def spy(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)

    counted(sql_runner, "build_views")
    for name in ("materialise", "computed_once"):
        counted(materialise, name)
    counted(pipeline, "assert_healthy")
    before = _published(path)
    summary = pipeline.load_and_publish(path, dict(demo_pages), source="again")
    assert summary.exit_code == 0 and all(p.reused for p in summary.providers)
    assert calls == {} and summary.assertions == {}
    assert _published(path) == before


def _published(path: Path) -> dict[str, list]:
    con = db.connect_readonly(path)
    try:
        names = [r[0] for r in db.run(con, "SELECT table_name FROM duckdb_tables() "
                                           "WHERE table_name LIKE 'mart_%' ORDER BY 1")]  # fmt: skip
        return {n: db.run(con, f"SELECT * FROM {n} ORDER BY ALL") for n in names}
    finally:
        con.close()



@pytest.mark.slow  # two refreshes and three commands
def test_a_duplicate_among_the_nights_points_fails_the_nightly_check(tmp_path):
    """The real project's checks of the spot series on the last refresh's loads: a point
    of tonight's load repeating a stored one fails the nightly check (as it fails the full
    one); the stored duplicate of the test above passes it."""
    from connectors.kit import snapshot as kit_snapshot
    from flows import pipeline
    from gpu_pricing.cli import app

    path = tmp_path / "w.duckdb"
    for n in (1, 2):
        pages = kit_snapshot.read_provider(spot_night(tmp_path, n), "aws")
        assert pipeline.load_and_publish(path, {"aws": pages}, source=f"n{n}").exit_code == 0
    con = duckdb.connect(str(path))
    con.execute(
        """INSERT INTO stg_aws__spot_prices SELECT * FROM stg_aws__spot_prices
           WHERE observed_at = (SELECT max(observed_at) FROM stg_aws__spot_prices) LIMIT 1"""
    )
    con.close()
    duplicates = {"assert_spot_points_unique": 1}
    for args in ([], ["--all"]):
        out = CliRunner().invoke(app, ["check", *args, "--warehouse", str(path), "--json"])
        assert out.exit_code == 3, out.output
        assert json.loads(out.stdout)["failed"] == duplicates
