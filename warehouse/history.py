"""Effective-dated offer history (SCD type 2) in `int_offers_historized`.

After staging, the current offers of the refreshed connectors are merged in:
- a key whose price is unchanged: nothing is added (descriptive columns such as
  gpu_name are refreshed in place, so a parser fix reaches the open row);
- a key whose price changed: the open row is closed (`valid_to`) and a new one opened;
- a key that is new: a row is opened at the fetch that first saw it (`valid_from` =
  `fetched_at`), not at the publisher's effective date: a source that appears today with a
  price its publisher dates 2024 did not change price today, it was first seen today (the
  publisher's date stays in `effective_at`). Rows carrying `expires_at` (historical price
  sheets) are inserted closed over the period their source states (`effective_at` ..
  `expires_at`);
- a key whose price changed: the new period starts at the source's effective date when
  that is after the open period's start, else at the fetch time;
- an open key that a refreshed connector no longer lists: closed at the refresh time.
Re-merging the same offers is a no-op, so a repeated refresh adds no history rows.
"""

from __future__ import annotations

from datetime import datetime

import duckdb

from warehouse.db import run
from warehouse.schemas import OFFER_KEY

_DESCRIPTIVE = (
    "gpu_name",
    "gpu_memory_gib",
    "gpu_count",
    "vcpus",
    "memory_gib",
    "price_usd_per_gpu_hour",
    "price_flag",
    "host_included",
)


def _match(a: str, b: str) -> str:
    return " AND ".join(f"{a}.{k} IS NOT DISTINCT FROM {b}.{k}" for k in OFFER_KEY)


def merge(con: duckdb.DuckDBPyConnection, connectors: list[str], as_of: datetime) -> dict[str, int]:
    if not connectors:
        return {"opened": 0, "closed": 0}
    params = {"connectors": connectors, "as_of": as_of}
    # staging holds one row per offer key (flows.pipeline.unique_offers): no de-duplication
    run(
        con,
        f"""
        CREATE OR REPLACE TEMP TABLE _plan AS
        SELECT c.*, h.price_usd_per_hour AS _old_price, h.valid_from IS NOT NULL AS _has_open,
               CASE WHEN h.valid_from IS NULL AND c.expires_at IS NOT NULL
                        THEN coalesce(c.effective_at, c.fetched_at)
                    WHEN h.valid_from IS NULL THEN c.fetched_at
                    WHEN coalesce(c.effective_at, c.fetched_at) > h.valid_from
                        THEN coalesce(c.effective_at, c.fetched_at)
                    WHEN c.fetched_at > h.valid_from THEN c.fetched_at
                    ELSE h.valid_from + INTERVAL 1 MICROSECOND END AS _new_from
        FROM int_offers_unioned c
        LEFT JOIN int_offers_historized h ON h.valid_to IS NULL AND {_match("h", "c")}
        WHERE c.connector IN (SELECT unnest($connectors))
        """,
        {"connectors": connectors},
    )
    closed = run(
        con,
        f"""
        UPDATE int_offers_historized h SET valid_to = p._new_from FROM _plan p
        WHERE h.valid_to IS NULL AND {_match("h", "p")} AND p._has_open
          AND p.price_usd_per_hour <> p._old_price
        """,
    )[0][0]
    run(
        con,
        f"""
        UPDATE int_offers_historized h SET
            gpu_name = p.gpu_name, gpu_memory_gib = p.gpu_memory_gib, gpu_count = p.gpu_count,
            vcpus = p.vcpus, memory_gib = p.memory_gib,
            price_usd_per_gpu_hour = p.price_usd_per_gpu_hour, price_flag = p.price_flag,
            host_included = p.host_included, provenance = p.provenance
        FROM _plan p
        WHERE h.valid_to IS NULL AND {_match("h", "p")} AND p._has_open
          AND p.price_usd_per_hour = p._old_price
          -- only rows whose description changed: rewriting every open row each night
          -- cost seconds and grew with the table
          AND ({" OR ".join(f"h.{c} IS DISTINCT FROM p.{c}" for c in _DESCRIPTIVE)})
        """,
    )
    closed += run(
        con,
        f"""
        UPDATE int_offers_historized h
        -- never before it opened (a delisted price whose effective date is still ahead)
        SET valid_to = greatest($as_of, h.valid_from + INTERVAL 1 MICROSECOND)
        WHERE h.valid_to IS NULL AND h.connector IN (SELECT unnest($connectors))
          AND NOT EXISTS (SELECT 1 FROM _plan c WHERE {_match("h", "c")})
        """,
        params,
    )[0][0]
    opened = run(
        con,
        f"""
        INSERT INTO int_offers_historized BY NAME
        SELECT * EXCLUDE (_old_price, _has_open, _new_from),
               _new_from AS valid_from, expires_at AS valid_to
        FROM _plan p
        WHERE (NOT p._has_open OR p.price_usd_per_hour <> p._old_price)
          AND NOT EXISTS (
              SELECT 1 FROM int_offers_historized h
              WHERE {_match("h", "p")} AND h.valid_from = p._new_from)
        """,
    )[0][0]
    run(con, "DROP TABLE _plan")
    return {"opened": opened, "closed": closed}
