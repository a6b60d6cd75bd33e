"""What the spot statistics keep of old spot history: each series' last point before a cutoff.

`mart_spot_price_stats` reads the points of its windows (the last 7, 30 and 90 days before
the feed's newest point, `int_spot_stats_windows`) and, for each zone, the price it had
when a window opened: its last point before, which may be a year back. Rather than read a
year of history every night for those, the refresh keeps per time-series provider (a feed
of `int_spot_prices_unioned`) a cutoff at or before the longest window's opening (the
provider's newest point less the longest window: `_spot_cutoffs`) and the key of each
series' last point before it (`_spot_openings`); `int_spot_prices_recent` reads the points
from the cutoff on and those, and the statistics find the feed's newest point ("now") at
the cutoff plus the longest window, in the newest row groups (every point is read when it
is not there). The figures are the same as over every point. The key of every series is
kept too (`_spot_series`): `int_spot_offer_points` leaves the offers with a
series to it, and reading the keys from the points read the 90 days of them every night.

A night moves the cutoff by the points between the old cutoff and the new one (a day's),
not by all history, and adds the keys of its own points to the series kept. Everything is
worked out again from all history when what is kept may no longer stand for it: on a full
check (weekly, `--full-check`, a changed SQL project), when no cutoff or no series was kept
yet, and when a point of the loads this refresh parsed is older
than its provider's cutoff (a backfill, or every stored page parsed again after the parsing
code changed). The time series are only ever added to (`meta: {appended_by: load_id}`),
so nothing else changes the points before a cutoff.
"""

from __future__ import annotations

from collections.abc import Collection

import duckdb

from warehouse.db import run, transaction

SERIES = "int_spot_prices_unioned"
WINDOWS = "int_spot_stats_windows"
KEY = "region, zone, instance_type"


def advance(con: duckdb.DuckDBPyConnection, loads: Collection[str] | None) -> str:
    """Bring `_spot_cutoffs` and `_spot_openings` up to the series as staged now; `loads`:
    the loads this refresh parsed (None: a full check, worked out from all history).
    Returns what it did: "advanced", "rebuilt" or "unchanged". Run once the views are
    built and the series staged, before the marts are."""
    old = dict(run(con, "SELECT provider, cutoff FROM _spot_cutoffs"))
    rebuild = loads is None or not old or not _series_kept(con) or _older_points(con, loads)
    if rebuild:
        old = {}  # nothing kept stands: every point before the new cutoffs is read
    (longest,) = run(con, f"SELECT max(days) FROM {WINDOWS}")[0]
    # a provider's newest point is never before its newest when the cutoff was kept (the
    # cutoff plus the longest window): only the points since are read, a night's, not
    # the window's (a withdrawn newest point leaves its provider out: worked out again)
    bound = "WHERE observed_at >= $since + to_days(CAST($days AS INTEGER))" if old else ""
    since = {"since": min(old.values())} if old else {}
    new = dict(run(con, f"""
        SELECT provider, max(observed_at) - to_days(CAST($days AS INTEGER))
        FROM {SERIES} {bound} GROUP BY provider""", {"days": longest, **since}))  # fmt: skip
    if not rebuild and (new.keys() != old.keys() or any(new[p] < old[p] for p in old)):
        # a provider came or went, or a newest point was withdrawn: start again
        return advance(con, None)
    if not rebuild and new == old:
        _add_series(con, loads or ())
        return "unchanged"
    with transaction(con):
        if rebuild:
            run(con, "DELETE FROM _spot_openings")
            run(con, "DELETE FROM _spot_series")
            run(con, f"INSERT INTO _spot_series SELECT DISTINCT provider, {KEY} FROM {SERIES}")
        else:
            _add_series(con, loads or ())
        for provider, cutoff in new.items():
            if old.get(provider) != cutoff:
                _move(con, provider, old.get(provider), cutoff)
        run(con, "DELETE FROM _spot_cutoffs")
        run(
            con,
            "INSERT INTO _spot_cutoffs SELECT unnest($p) AS provider, unnest($c) AS cutoff",
            {"p": list(new), "c": list(new.values())},
        )
    return "rebuilt" if rebuild else "advanced"


def _series_kept(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether any series key is kept (none: a warehouse written before they were)."""
    return bool(run(con, "SELECT 1 FROM _spot_series LIMIT 1"))


def _add_series(con: duckdb.DuckDBPyConnection, loads: Collection[str]) -> None:
    """Keep the keys of the series the points of `loads` are in that are not kept yet
    (DuckDB reads only the row groups whose load ids can hold them)."""
    if loads:
        run(con, f"""
            INSERT INTO _spot_series
            SELECT DISTINCT provider, {KEY} FROM {SERIES}
            WHERE load_id IN (SELECT unnest($loads))
            EXCEPT SELECT provider, {KEY} FROM _spot_series""", {"loads": sorted(loads)})  # fmt: skip


def _older_points(con: duckdb.DuckDBPyConnection, loads: Collection[str]) -> bool:
    """Whether a point of `loads` is older than its provider's kept cutoff."""
    if not loads:
        return False
    (n,) = run(con, f"""
        SELECT count(*) FROM {SERIES} s JOIN _spot_cutoffs c USING (provider)
        WHERE s.load_id IN (SELECT unnest($loads)) AND s.observed_at < c.cutoff""",
        {"loads": sorted(loads)})[0]  # fmt: skip
    return n > 0


def _move(con: duckdb.DuckDBPyConnection, provider: str, old, cutoff) -> None:
    """The provider's openings at `cutoff`: each series' last point before it, of its
    openings at the `old` cutoff and the points from `old` to `cutoff` (of all its points
    before `cutoff` when there is no `old`)."""
    params = {"p": provider, "cutoff": cutoff}
    bound = ""
    if old is not None:
        bound, params["old"] = "AND observed_at >= $old", old
    run(con, f"""
        CREATE OR REPLACE TEMPORARY TABLE _spot_openings_next AS
        SELECT {KEY}, max(observed_at) AS observed_at FROM (
            SELECT {KEY}, observed_at FROM _spot_openings WHERE provider = $p
            UNION ALL
            SELECT {KEY}, observed_at FROM {SERIES}
            WHERE provider = $p AND observed_at < $cutoff {bound}
        ) GROUP BY ALL""", params)  # fmt: skip
    run(con, "DELETE FROM _spot_openings WHERE provider = $p", {"p": provider})
    run(
        con,
        f"INSERT INTO _spot_openings SELECT $p AS provider, {KEY}, observed_at "
        "FROM temp._spot_openings_next",
        {"p": provider},
    )
    run(con, "DROP TABLE temp._spot_openings_next")
