"""The spot statistics over a kept cutoff (warehouse.spot_openings, int_spot_prices_recent)
are the statistics over every point: a year and more of nights added one by one, each
moving the cutoff by its own points, gives exactly the rows of the same mart read over the
whole history, and the same kept openings as working them out again from all history."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta

import duckdb
import pytest

from warehouse import db, lineage, materialise, spot_openings, sql_runner

START = datetime(2025, 10, 1)
# (zone, instance type, first night, last night): a zone that falls silent for good (its
# price when a window opens is its last point, a year back), one that starts late, and
# ones that run throughout
SERIES = [
    ("eu-west-1a", "g5.xlarge", 0, 999),
    ("eu-west-1b", "g5.xlarge", 0, 999),
    ("eu-west-1a", "p4d.24xlarge", 0, 999),
    ("eu-west-1c", "g6.xlarge", 0, 60),
    ("eu-west-1b", "g6.xlarge", 200, 999),
]

NIGHT = """
INSERT INTO stg_aws__spot_prices BY NAME
SELECT 'aws' AS provider, 'eu-west-1' AS region, s.zone, s.instance_type,
       'Linux/UNIX' AS product_description,
       -- cents, so prices repeat (ties in the quantiles) and stay exact
       round(0.5 + hash(s.zone, s.instance_type, $n, k) % 400 / 100.0, 2) AS price_usd_per_hour,
       $day + to_seconds(CAST(k * 28800 + hash(s.zone, s.instance_type, $n, k, 't') % 28800
                              AS BIGINT)) AS observed_at,
       'spot_price_history' AS endpoint, $load AS load_id, $day AS fetched_at,
       'api' AS provenance
FROM (SELECT unnest($zones) AS zone, unnest($types) AS instance_type,
             unnest($firsts) AS first, unnest($lasts) AS last) s, range(3) AS r(k)
WHERE $n BETWEEN s.first AND s.last
"""

RELATIONS = ("mart_spot_price_stats", "mart_spot_on_demand_pairs", "fct_spot_prices")
STATE = ("_spot_cutoffs", "_spot_openings", "_spot_series")


def rows(con, relation: str) -> list[tuple]:
    """The relation's rows as a refresh would publish them now: a mart stored as a table
    (`materialized: table`) read from its SQL, as the refresh builds it."""
    if relation in materialise.materialized():
        body = lineage.select_of(sql_runner.view_files()[relation])
        return sorted(con.execute(f"SELECT * FROM ({body})").fetchall(), key=repr)
    return sorted(con.execute(f"SELECT * FROM {relation}").fetchall(), key=repr)


def whole_history(con) -> dict[str, list[tuple]]:
    """Each relation read with nothing kept (every point read), and the openings worked
    out again from all history; what was kept is put back."""
    kept = {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in STATE}
    for table in STATE:
        con.execute(f"DELETE FROM {table}")
    whole = {r: rows(con, r) for r in RELATIONS}
    assert spot_openings.advance(con, None) == "rebuilt"
    whole |= {t: rows(con, t) for t in STATE}
    for table, values in kept.items():
        con.execute(f"DELETE FROM {table}")
        if values:
            marks = ", ".join("?" * len(values[0]))
            con.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
    return whole


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~25 CPU s; 100-300 s of wall on a loaded 2-core machine
def test_a_year_night_by_night_equals_the_whole_history(demo_warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    con = duckdb.connect(str(path))
    con.execute(db.OFF_OPTIMIZERS)  # as every warehouse connection
    con.execute("DELETE FROM stg_aws__spot_prices")
    columns = {
        "zones": [s[0] for s in SERIES], "types": [s[1] for s in SERIES],
        "firsts": [s[2] for s in SERIES], "lasts": [s[3] for s in SERIES],
    }  # fmt: skip
    assert spot_openings.advance(con, None) == "rebuilt"  # no series: nothing kept
    assert con.execute("SELECT count(*) FROM _spot_cutoffs").fetchone() == (0,)
    done = []
    compared = 0
    for n in range(420):
        load = f"night-{n}"
        day = START + timedelta(days=n)
        con.execute(NIGHT, {"n": n, "day": day, "load": load, **columns})
        if n == 300:  # a backfill: a point older than the cutoff, in tonight's load
            con.execute(
                NIGHT.replace("$day + ", "$day - INTERVAL 200 DAY + "),
                {"n": n, "day": day, "load": load, **columns},
            )
        done.append(spot_openings.advance(con, [load]))
        if n % 30 == 0 or 88 <= n <= 92 or n in (299, 300, 301, 419):
            whole = whole_history(con)
            for relation in RELATIONS:
                assert rows(con, relation) == whole[relation], (n, relation)
            for table in STATE:
                assert rows(con, table) == whole[table], (n, table)
            compared += 1
    # the first night keeps a cutoff; then each night moves it (no history read again)
    # but the backfill's, which works it out again
    assert done[0] == "rebuilt"
    assert done[300] == "rebuilt"
    assert set(done[1:300]) == {"advanced"} and set(done[301:]) == {"advanced"}
    # the year is summed up: the silent zone's last point, a year back, stands for it
    (silent,) = con.execute(
        "SELECT observed_at FROM _spot_openings WHERE zone = 'eu-west-1c'"
    ).fetchone()
    assert silent < START + timedelta(days=61)
    (n_recent,) = con.execute("SELECT count(*) FROM int_spot_prices_recent").fetchone()
    (n_all,) = con.execute("SELECT count(*) FROM int_spot_prices_unioned").fetchone()
    assert n_recent < n_all / 3
    assert compared > 20
    con.close()


def test_a_full_check_or_a_changed_series_works_it_out_again(demo_counted_warehouse, tmp_path):
    # the demo's AWS spot points read as a provider's own (in the demo they are
    # illustrative, and so in no statistic)
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_counted_warehouse, path)
    con = duckdb.connect(str(path))
    # the demo refresh kept a cutoff: its newest point less the longest window
    (cutoff,) = con.execute("SELECT cutoff FROM _spot_cutoffs WHERE provider = 'aws'").fetchone()
    (newest,) = con.execute("SELECT max(observed_at) FROM int_spot_prices_unioned").fetchone()
    (longest,) = con.execute("SELECT max(days) FROM int_spot_stats_windows").fetchone()
    assert cutoff == newest - timedelta(days=longest)
    assert spot_openings.advance(con, []) == "unchanged"
    assert spot_openings.advance(con, None) == "rebuilt"
    # every stored point parsed again (a parsing-code change): its loads reach back
    (load,) = con.execute("SELECT any_value(load_id) FROM stg_aws__spot_prices").fetchone()
    con.execute(
        "UPDATE stg_aws__spot_prices SET observed_at = observed_at - INTERVAL 100 DAY "
        "WHERE load_id = $l", {"l": load},
    )  # fmt: skip
    assert spot_openings.advance(con, [load]) == "rebuilt"
    whole = whole_history(con)
    assert rows(con, "mart_spot_price_stats") == whole["mart_spot_price_stats"]
    con.close()


# int_spot_prices_recent by its definition: every point from its provider's cutoff on (from
# the earliest cutoff on for a provider without one), and the kept openings
RECENT = """
select s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib,
       s.gpu_count, s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s left join _spot_cutoffs c using (provider)
where s.observed_at >= (select coalesce(min(cutoff), '-infinity'::timestamp) from _spot_cutoffs)
  and (c.cutoff is null or s.observed_at >= c.cutoff)
union all
select s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib,
       s.gpu_count, s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s semi join _spot_openings o
    on s.provider = o.provider and s.region is not distinct from o.region
   and s.zone is not distinct from o.zone
   and s.instance_type is not distinct from o.instance_type and s.observed_at = o.observed_at
"""


def test_the_recent_points_of_providers_with_other_cutoffs(demo_counted_warehouse, tmp_path):
    # the view reads the providers of a later cutoff than the earliest in a branch of
    # their own: the same points, whichever provider's cutoff is later, and for a
    # provider without one
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_counted_warehouse, path)
    con = duckdb.connect(str(path))
    con.execute(db.OFF_OPTIMIZERS)
    for provider, days in (("other", 10), ("uncut", 20)):
        con.execute(f"""
            INSERT INTO stg_aws__spot_prices SELECT * REPLACE ('{provider}' AS provider,
                observed_at - INTERVAL {days} DAY AS observed_at)
            FROM stg_aws__spot_prices WHERE provider = 'aws'""")  # fmt: skip
    (aws,) = con.execute("SELECT cutoff FROM _spot_cutoffs WHERE provider = 'aws'").fetchone()
    states = {
        "one cutoff": [("aws", aws)],
        "a later cutoff": [("aws", aws), ("other", aws + timedelta(days=5))],
        "an earlier cutoff": [("aws", aws), ("other", aws - timedelta(days=5))],
        "the same cutoff": [("aws", aws), ("other", aws)],
        "none": [],
    }
    providers = set()
    for state, cutoffs in states.items():
        con.execute("BEGIN")
        con.execute("DELETE FROM _spot_cutoffs")
        if cutoffs:
            con.executemany("INSERT INTO _spot_cutoffs VALUES (?, ?)", cutoffs)
        expected = sorted(con.execute(RECENT).fetchall(), key=repr)
        got = sorted(con.execute("SELECT * FROM int_spot_prices_recent").fetchall(), key=repr)
        assert got == expected, state
        providers |= {r[0] for r in expected}
        con.execute("ROLLBACK")
    assert providers == {"aws", "other", "uncut"}
    con.close()


# "now" as the mart's definition says: the newest of the points it reads
NEWEST = """
select provider, max(observed_at) from (
    select provider, observed_at from int_spot_prices_recent
    union all
    select provider, observed_at from int_spot_offer_points
) group by provider
"""


def test_as_of_is_the_feeds_newest_point_whatever_cutoff_is_kept(demo_counted_warehouse, tmp_path):
    # the mart reads a series' newest point at its kept cutoff plus the longest window;
    # where none is there (a cutoff not brought up to the points, or none kept) it reads
    # every point: as_of is the newest point in each case
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_counted_warehouse, path)
    con = duckdb.connect(str(path))
    con.execute(db.OFF_OPTIMIZERS)
    body = lineage.select_of(sql_runner.view_files()["mart_spot_price_stats"])
    mart_as_of = f"SELECT DISTINCT provider, as_of FROM ({body})"
    newest = "SELECT max(observed_at) FROM stg_aws__spot_prices"
    states = {
        "as kept": None,
        "newest point withdrawn": f"DELETE FROM stg_aws__spot_prices WHERE observed_at = ({newest})",
        "points newer than the kept cutoff's": f"""
            INSERT INTO stg_aws__spot_prices SELECT * REPLACE (observed_at + INTERVAL 3 DAY
            AS observed_at) FROM stg_aws__spot_prices WHERE observed_at = ({newest})""",
        "a cutoff later than kept": "UPDATE _spot_cutoffs SET cutoff = cutoff + INTERVAL 1 DAY",
        "no cutoff kept": "DELETE FROM _spot_cutoffs",
    }  # fmt: skip
    seen = set()
    for state, change in states.items():
        con.execute("BEGIN")
        if change:
            con.execute(change)
        expected = sorted(con.execute(NEWEST).fetchall())
        assert "aws" in dict(expected), state
        assert sorted(con.execute(mart_as_of).fetchall()) == expected, state
        seen.add(dict(expected)["aws"])
        con.execute("ROLLBACK")
    assert len(seen) == 3  # the withdrawn and the newer points moved it
    con.close()


# The statistics by their definition, window by window over every point of fct_spot_prices:
# each window's points and each zone's last point before it opened, the figures of each
# (provider, region, instance type, window) group. The mart computes all three windows in
# one pass over the kept points; its figures must be these (exactly, but the standard
# deviation to 1e-12: see the test).
DEFINITION = """
with points as (select * from fct_spot_prices),
feed_now as (select provider, max(observed_at) as as_of from points group by provider),
opens as (
    select f.provider, f.as_of, w.days, f.as_of - to_days(w.days) as opens_at
    from feed_now f cross join int_spot_stats_windows w
),
opening as (
    select p.provider, p.region, p.zone, p.instance_type, o.days,
           arg_max(p.price_usd_per_hour, p.observed_at) as price
    from points p join opens o on p.provider = o.provider and p.observed_at < o.opens_at
    group by all
),
in_window as (
    select p.provider, p.region, p.instance_type, o.days, p.price_usd_per_hour as price
    from points p join opens o on p.provider = o.provider and p.observed_at >= o.opens_at
    union all
    select provider, region, instance_type, days, price from opening
)
select provider, region, instance_type, days, min(price), quantile_cont(price, 0.5),
       quantile_cont(price, 0.95), max(price),
       stddev_samp(price), count(*)
from in_window group by all
"""

MART = """
select provider, region, instance_type, unnest([7, 30, 90]) as days,
       unnest([min_usd_per_hour_7d, min_usd_per_hour_30d, min_usd_per_hour_90d]),
       unnest([p50_usd_per_hour_7d, p50_usd_per_hour_30d, p50_usd_per_hour_90d]),
       unnest([p95_usd_per_hour_7d, p95_usd_per_hour_30d, p95_usd_per_hour_90d]),
       unnest([max_usd_per_hour_7d, max_usd_per_hour_30d, max_usd_per_hour_90d]),
       unnest([stddev_usd_per_hour_7d, stddev_usd_per_hour_30d, stddev_usd_per_hour_90d]),
       unnest([points_7d, points_30d, points_90d])
from mart_spot_price_stats
"""


def test_the_statistics_are_their_definition_over_every_point(demo_counted_warehouse):
    con = duckdb.connect(str(demo_counted_warehouse), read_only=True)
    try:
        mart = sorted(con.execute(MART).fetchall(), key=repr)
        assert len(mart) > 300 * 3  # the demo's AWS series and the other spot offers
        definition = sorted(con.execute(DEFINITION).fetchall(), key=repr)
        # every figure exactly but the standard deviation, which the mart takes from exact
        # sums (the same digits in any order) and DuckDB's stddev_samp adds up in floats
        assert [r[:8] + r[9:] for r in mart] == [r[:8] + r[9:] for r in definition]
        assert [r[8] for r in mart] == [
            None if r[8] is None else pytest.approx(r[8], rel=1e-12, abs=1e-12)
            for r in definition
        ]
    finally:
        con.close()
