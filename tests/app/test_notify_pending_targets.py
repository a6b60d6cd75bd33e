"""`alerts check` on a warehouse written before `alert_events.delivery_error` was named
`pending_targets`: the pending delivery recorded there is still retried, to the one target
that had not taken it, and the column is renamed in the published file."""

from __future__ import annotations

import json
import shutil

import duckdb
from typer.testing import CliRunner

from gpu_pricing.cli import app

CONFIG = """[alerts]
sheet_stale_after_days = 0

[[notify]]
name = "hook"
url_env = "HOOK_URL"

[[notify]]
name = "took-it"
url_env = "OTHER_URL"

[[rules]]
name = "h100"
kind = "price_above"
gpu = "H100"
memory_gib = 80
usd_per_gpu_hour = 12.0
providers = ["azure"]
"""


def test_a_pending_target_recorded_under_the_old_column_is_retried(
    tmp_path, demo_warehouse, httpserver, monkeypatch
):
    # the demo's cheapest Azure H100 80 GiB on demand is 12.29 > 12: the rule is in ALARM,
    # as the event an older version recorded says, so nothing new fires
    wh = tmp_path / "old.duckdb"
    shutil.copyfile(demo_warehouse, wh)
    con = duckdb.connect(str(wh))
    con.execute("ALTER TABLE alert_events RENAME COLUMN pending_targets TO delivery_error")
    con.execute(  # the view as an older version built it
        """CREATE OR REPLACE VIEW alert_rule_states AS
           SELECT rule, state, value, threshold, message, fired_at AS since, delivered,
                  delivery_error
           FROM alert_events QUALIFY row_number() OVER (PARTITION BY rule ORDER BY fired_at DESC) = 1"""
    )
    con.execute(
        """INSERT INTO alert_events VALUES
           ('rate:h100', 'ALARM', 12.29, 12.0, 'rate:h100: old news',
            TIMESTAMP '2026-11-20 02:00:00', false, '{"hook": "HTTP 503 Service Unavailable"}')"""
    )
    con.close()
    monkeypatch.setenv("HOOK_URL", f"json://127.0.0.1:{httpserver.port}/hook")
    monkeypatch.setenv("OTHER_URL", f"json://127.0.0.1:{httpserver.port}/other")
    httpserver.expect_request("/hook").respond_with_data("ok")
    httpserver.expect_request("/other").respond_with_data("ok")
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(CONFIG)

    result = CliRunner().invoke(
        app, ["alerts", "check", "--config", str(cfg), "--warehouse", str(wh), "--json"]
    )

    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["fired"] == []
    assert [(d["rule"], d["target"], d["delivered"]) for d in doc["deliveries"]] == [
        ("rate:h100", "hook", True)
    ]
    assert [req.path for req, _ in httpserver.log] == ["/hook"]  # not "/other": it took it
    assert "old news" in json.loads(httpserver.log[0][0].get_data())["message"]
    con = duckdb.connect(str(wh), read_only=True)
    try:
        cols = [r[0] for r in con.execute("DESCRIBE alert_events").fetchall()]
        assert "delivery_error" not in cols and "pending_targets" in cols
        assert con.execute(
            "SELECT delivered, pending_targets FROM alert_events"
        ).fetchall() == [(True, None)]
        assert con.execute(  # the former name stays on the view for one release
            "SELECT state, pending_targets, delivery_error FROM alert_rule_states"
        ).fetchall() == [("ALARM", None, None)]
    finally:
        con.close()
