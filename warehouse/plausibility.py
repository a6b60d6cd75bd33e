"""Plausibility: the one home of the rules that hold back a price the warehouse cannot
trust, after staging and before the history merge, so no such price is published, ranked
or counted in a statistic. Each held-back row goes to `quarantine` with its reason and
leaves the staged tables (the history then closes an offer's open period: it is no longer
current and not ranked).

The rules, over the staged offers of the connectors re-staged by this refresh and over
the spot price points (`int_spot_prices_unioned`, the feeds of `fct_spot_prices`) of the
loads it parsed (every point when no loads are named: a full check):

- **Unknown GPU**: a GPU name with no reference row in `sql/seeds/seed_gpu_specs.csv`
  (every GPU-keyed mart joins it). One new GPU never stops the refresh: its offers are
  held back, the refresh summary names the GPU, and adding its row publishes them.
- **Sanity ceiling**: a point above `MAX_USD_PER_GPU_HOUR` per GPU-hour, or not positive
  (common.schemas states it; the offers meet it in `connectors.kit.normalise`).
- **Floor**: a per-GPU-hour price below `floor_fraction` x the median per-GPU-hour price of
  the verified offers of the same GPU (every provider's current staged offers, where at
  least `floor_min_offers` are priced). The median, not the cheapest price, so one junk
  price cannot lower its own floor. Default 0.05: a real price 95% below the typical
  price of its GPU is a unit or data error (a duplicated item at $0.0001/h), while the
  deepest real discounts (spot, 3-year commitments, marketplace bids) stay well above it.
- **Jump**: an offer whose hourly price is more than `jump_factor` times its open price in
  the history, or less than 1/`jump_factor` of it (default 10). The offer leaves the
  current marts that night; a price that persists is compared with no open price at the
  next refresh that re-stages its provider, so it is then accepted (unless the floor holds
  it back).

`gpu-pricing.toml`'s `[checks]` table sets the figures (0 disables a rule); `Checks` holds
the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from common.schemas import MAX_USD_PER_GPU_HOUR
from warehouse import series_newest
from warehouse.db import query, relation_exists, run

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class Checks:
    floor_fraction: float = 0.05
    floor_min_offers: int = 2
    jump_factor: float = 10.0
    # the offer-count guard (warehouse.staging): a provider whose staged offers fall by more
    # than this share from its last good load keeps them, unless accepted
    max_drop_pct: float = 50.0


@dataclass(frozen=True)
class SeriesTable:
    """A connector's staged spot series (a table whose rows reach int_spot_prices_unioned):
    the columns that identify one point there."""

    connector: str
    table: str
    columns: tuple[str, ...]  # series columns and the time column, as named in both


_GPU_UNKNOWN = (
    "format('GPU {} ({} GiB) has no reference row in sql/seeds/seed_gpu_specs.csv: add one "
    "to publish its prices', o.gpu_name, o.gpu_memory_gib)"
)
_FLOOR = (
    "format('price {} USD per GPU-hour is below the plausibility floor {} for {} ({} x the "
    "median verified price {} over {} offers)', round(o.price_usd_per_gpu_hour, 6), "
    "round($floor * m.median_usd, 6), o.gpu_name, $floor, round(m.median_usd, 4), m.n)"
)

_MEDIANS = """
    medians AS (
        SELECT u.gpu_name, median(u.price_usd_per_gpu_hour) AS median_usd, count(*) AS n
        FROM {flagged} u
        WHERE u.is_verified AND u.gpu_name IS NOT NULL AND u.price_usd_per_gpu_hour > 0
        GROUP BY u.gpu_name
        HAVING count(*) >= $min_offers
    ),
    known AS (SELECT DISTINCT gpu_name FROM seed_gpu_specs)"""

_OFFERS_SQL = f"""
    WITH {_MEDIANS},
    open_prices AS (SELECT * FROM snp_offers_history WHERE valid_to IS NULL)
    SELECT o.connector, o.provider, o.region, o.zone, o.instance_type, o.pricing_model,
           o.pricing_detail, o.load_id, l.endpoint, to_json(o)::VARCHAR AS record,
           CASE
               WHEN o.gpu_name IS NOT NULL AND o.gpu_name NOT IN (SELECT gpu_name FROM known)
                   THEN {_GPU_UNKNOWN}
               WHEN $floor > 0 AND o.price_usd_per_gpu_hour < $floor * m.median_usd
                   THEN {_FLOOR}
               WHEN $jump > 0 AND h.price_usd_per_hour > 0
                    AND (o.price_usd_per_hour > $jump * h.price_usd_per_hour
                         OR o.price_usd_per_hour * $jump < h.price_usd_per_hour)
                   THEN format('price {{}} USD/h is more than {{}} times away from the offer''s '
                               'last price {{}} USD/h (since {{}})', o.price_usd_per_hour,
                               $jump, h.price_usd_per_hour, h.valid_from)
           END AS reason,
           o.gpu_name IS NOT NULL AND o.gpu_name NOT IN (SELECT gpu_name FROM known)
               AS unknown_gpu
    FROM int_offers_unioned o
    LEFT JOIN medians m ON m.gpu_name = o.gpu_name
    LEFT JOIN open_prices h
      ON h.provider IS NOT DISTINCT FROM o.provider AND h.region IS NOT DISTINCT FROM o.region
     AND h.zone IS NOT DISTINCT FROM o.zone
     AND h.instance_type IS NOT DISTINCT FROM o.instance_type
     AND h.pricing_model IS NOT DISTINCT FROM o.pricing_model
     AND h.pricing_detail IS NOT DISTINCT FROM o.pricing_detail
    LEFT JOIN _loads l ON l.load_id = o.load_id
    WHERE o.connector IN (SELECT unnest($connectors)) AND reason IS NOT NULL
"""

# the points are filtered to the judged ones first (provider, loads), before anything is
# computed per row: a year of stored points is otherwise read and judged to be dropped
_POINTS_SQL = f"""
    WITH {_MEDIANS},
    judged AS (
        SELECT * FROM int_spot_prices_unioned
        WHERE provider IN (SELECT unnest($connectors)) {{loads}}
    )
    SELECT o.*, o.provider AS connector, l.endpoint, to_json(o)::VARCHAR AS record,
           CASE
               WHEN o.gpu_name IS NOT NULL AND o.gpu_name NOT IN (SELECT gpu_name FROM known)
                   THEN {_GPU_UNKNOWN}
               WHEN NOT (o.price_usd_per_hour > 0)
                   THEN format('spot price {{}} USD/h is not positive', o.price_usd_per_hour)
               WHEN o.price_usd_per_gpu_hour > $max
                   THEN format('price {{}} USD per GPU-hour is above the {{}} sanity limit',
                               round(o.price_usd_per_gpu_hour, 4), $max)
               WHEN $floor > 0 AND o.price_usd_per_gpu_hour < $floor * m.median_usd
                   THEN {_FLOOR}
           END AS reason,
           o.gpu_name IS NOT NULL AND o.gpu_name NOT IN (SELECT gpu_name FROM known)
               AS unknown_gpu
    FROM judged o
    LEFT JOIN medians m ON m.gpu_name = o.gpu_name
    LEFT JOIN _loads l ON l.load_id = o.load_id
    WHERE reason IS NOT NULL
"""


@dataclass
class Held:
    """What `hold_back` took out, per provider: rows quarantined, and one line per GPU
    without a reference row."""

    quarantined: dict[str, int]  # connector -> rows (offers and points)
    unknown_gpus: dict[str, list[str]]  # connector -> one reason per GPU
    offers: dict[str, int] = field(default_factory=dict)  # connector -> offers taken out


def hold_back(
    con: duckdb.DuckDBPyConnection,
    connectors: list[str],
    series: list[SeriesTable],
    checks: Checks,
    at: datetime,
    loads: Sequence[str] | None = None,
) -> Held:
    """Quarantine the implausible staged offers of `connectors` and the implausible points
    of their spot series (of `loads` when given: the points a refresh added; the stored
    ones were judged when they were added), and delete them from the staged tables. Runs
    after the views are built (int_offers_unioned, int_spot_prices_unioned) and before the
    history merge."""
    import polars as pl

    held = Held({}, {})
    if not connectors or not relation_exists(con, "int_offers_unioned"):
        return held
    params = {
        "connectors": connectors,
        "floor": checks.floor_fraction,
        "min_offers": max(1, checks.floor_min_offers),
    }
    # the medians' verified offers: the incoming offers flagged by the flags' one rule
    from warehouse.usable import flagged_over

    flagged = flagged_over("int_offers_unioned")
    offers = query(
        con, _OFFERS_SQL.replace("{flagged}", flagged), {**params, "jump": checks.jump_factor}
    )
    points = pl.DataFrame()
    mine = [s for s in series if s.connector in connectors]
    if mine and relation_exists(con, "int_spot_prices_unioned"):
        sql, extra = _POINTS_SQL.replace("{loads}", ""), {}
        if loads is not None:
            sql = _POINTS_SQL.replace("{loads}", "AND load_id IN (SELECT unnest($loads))")
            extra = {"loads": list(loads)}
        sql = sql.replace("{flagged}", flagged)
        points = query(con, sql, {**params, **extra, "max": MAX_USD_PER_GPU_HOUR})
    for frame in (offers, points):
        if frame.is_empty():
            continue
        _quarantine(con, frame, at)
        for connector, n in frame.group_by("connector").len().iter_rows():
            held.quarantined[connector] = held.quarantined.get(connector, 0) + n
        unknown = frame.filter("unknown_gpu").select("connector", "reason").unique()
        for connector, reason in unknown.sort("reason").iter_rows():
            lines = held.unknown_gpus.setdefault(connector, [])
            if reason not in lines:
                lines.append(reason)
    held.offers = dict(offers.group_by("connector").len().iter_rows()) if offers.height else {}
    if not offers.is_empty():
        _delete_offers(con, offers)
    if not points.is_empty():
        for s in mine:
            _delete_points(con, points.filter(pl.col("provider") == s.connector), s)
    return held


def _quarantine(con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, at: datetime) -> None:
    con.register("_held", rows.select("load_id", "provider", "endpoint", "reason", "record"))
    try:
        run(
            con,
            """INSERT INTO quarantine BY NAME
               SELECT load_id, provider, coalesce(endpoint, '*') AS endpoint, reason, record,
                      $at::TIMESTAMP AS quarantined_at
               FROM _held h
               WHERE NOT EXISTS (
                   SELECT 1 FROM quarantine q WHERE q.load_id = h.load_id
                     AND q.reason = h.reason AND q.record IS NOT DISTINCT FROM h.record)""",
            {"at": at},
        )
        run(
            con,
            """UPDATE _loads SET rejected = coalesce(rejected, 0) + c.n
               FROM (SELECT load_id, count(*)::INTEGER AS n FROM _held GROUP BY ALL) c
               WHERE _loads.load_id = c.load_id""",
        )
    finally:
        con.unregister("_held")


def _delete_offers(con: duckdb.DuckDBPyConnection, offers: pl.DataFrame) -> None:
    key = ("provider", "region", "zone", "instance_type", "pricing_model", "pricing_detail")
    same = " AND ".join(f"s.{c} IS NOT DISTINCT FROM h.{c}" for c in key)
    for (connector,), part in offers.group_by("connector"):
        con.register("_held", part.select(key))
        try:
            run(con, f"DELETE FROM stg_{connector}__offers s USING _held h WHERE {same}")
        finally:
            con.unregister("_held")


def _delete_points(con: duckdb.DuckDBPyConnection, points: pl.DataFrame, s: SeriesTable) -> None:
    if points.is_empty():
        return
    time = s.columns[-1]
    same = " AND ".join(f"t.{c} IS NOT DISTINCT FROM h.{c}" for c in s.columns)
    # the rows deleted are at or after the oldest held point's time: DuckDB skips the row
    # groups of older history by it (a year of points scanned otherwise, every night)
    since = None if points[time].null_count() else points[time].min()
    bound = "" if since is None else f" AND t.{time} >= $since"
    ((before,),) = run(con, f"SELECT count(*) FROM {s.table}")
    con.register("_held", points.select(s.columns))
    try:
        run(con, f"DELETE FROM {s.table} t USING _held h WHERE {same}{bound}",
            None if since is None else {"since": since})  # fmt: skip
        # a series' newest point kept for the next parse may be among them
        series_newest.removed(con, s.table, "_held", s.columns, before)
    finally:
        con.unregister("_held")
