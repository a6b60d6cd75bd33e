"""Columns renamed since a warehouse may have been written are renamed when it is next
opened for writing, values kept: `alert_events.delivery_error` -> `pending_targets`."""

from __future__ import annotations

import duckdb

from warehouse import db

OLD_ALERT_EVENTS = """CREATE TABLE alert_events (
  rule VARCHAR NOT NULL,
  state VARCHAR NOT NULL,
  value DOUBLE,
  threshold DOUBLE,
  message VARCHAR,
  fired_at TIMESTAMP NOT NULL,
  delivered BOOLEAN NOT NULL DEFAULT false,
  delivery_error VARCHAR
)"""


def columns(con, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]


def test_an_old_alert_events_table_gets_pending_targets_with_its_values(tmp_path):
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(OLD_ALERT_EVENTS)
    con.execute(
        """INSERT INTO alert_events VALUES
           ('rate:h100', 'ALARM', 14.7, 13.0, 'm', TIMESTAMP '2026-11-20 02:00:00', false,
            '{"hook": "HTTP 503"}')"""
    )
    con.close()

    with db.building(path) as con:
        assert "delivery_error" not in columns(con, "alert_events")
        assert con.execute("SELECT pending_targets FROM alert_events").fetchall() == [
            ('{"hook": "HTTP 503"}',)
        ]
    with db.building(path) as con:  # a second open changes nothing
        assert columns(con, "alert_events")[-1] == "pending_targets"
        assert con.execute("SELECT count(*) FROM alert_events").fetchall() == [(1,)]


def test_a_new_warehouse_has_pending_targets_only(tmp_path):
    with db.building(tmp_path / "new.duckdb") as con:
        cols = columns(con, "alert_events")
    assert "pending_targets" in cols and "delivery_error" not in cols
