"""Alerts end to end: refreshes of edited copies of the demo snapshot, the refresh flow's
alert check at the end, and a local HTTP server as the Apprise JSON webhook target.

The H100 80 GiB on-demand level is 13.00 USD/GPU-hour on Azure. The demo's cheapest is
ND96isr H100 v5 in eastus at 98.32 / 8 = 12.29; the raised snapshot multiplies every
ND96isr H100 v5 price by 1.2, so the cheapest becomes 117.984 / 8 = 14.748.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import duckdb
import pytest
from werkzeug import Response

from services import alerts, config, notify
from warehouse import db

H100_SKU = "Standard_ND96isr_H100_v5"  # the Azure size the azure_snapshot fixture edits
RULE = "rate:h100-above-13"
CONFIG = """
[providers.azure]  # only Azure is refreshed: the other demo providers play no part here

[[notify]]
name = "ops-webhook"
url_env = "GPU_PRICING_TEST_WEBHOOK"

[[rules]]
name = "h100-above-13"
kind = "price_above"
gpu = "H100"
memory_gib = 80
pricing_model = "on_demand"
usd_per_gpu_hour = 13.0
providers = ["azure"]  # the snapshot edits touch Azure; other providers may be cheaper
"""
TOKEN = "s3cr3t-hook-t0ken"  # stands in for the secret part of a webhook URL


@pytest.fixture
def webhook(httpserver, monkeypatch):
    """A JSON webhook target on a local server; its URL (with a token) only in the env."""
    monkeypatch.setenv(
        "GPU_PRICING_TEST_WEBHOOK", f"json://127.0.0.1:{httpserver.port}/hook/{TOKEN}"
    )
    httpserver.expect_request(f"/hook/{TOKEN}", method="POST").respond_with_data("ok")
    return httpserver


def posted(server) -> list[dict]:
    return [json.loads(req.get_data()) for req, _ in server.log]


def events(path: Path) -> list[dict]:
    con = db.connect_readonly(path)
    try:
        return db.query(con, "SELECT * FROM alert_events ORDER BY fired_at, rule").to_dicts()
    finally:
        con.close()


def test_a_price_crossing_fires_once_and_the_way_back_fires_one_recovery(
    prefect_harness, tmp_path, webhook, azure_snapshot
):
    from flows.refresh import refresh

    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(CONFIG)
    wh = str(tmp_path / "w.duckdb")
    raised = azure_snapshot("raised", 1.2, "2026-11-21T02:00:00Z")
    back = azure_snapshot("back", 1.0, "2026-11-22T02:00:00Z")

    refresh(warehouse=wh, snapshot="demo", config=str(cfg))
    assert posted(webhook) == []  # 12.29 is below the level: OK, nothing to say

    refresh(warehouse=wh, snapshot=str(raised), config=str(cfg))
    refresh(warehouse=wh, snapshot=str(raised), config=str(cfg))  # the repeat: no change
    assert posted(webhook) == [
        {
            "version": "1.0",
            "title": f"[gpu-pricing] ALARM {RULE}",
            "message": f"{RULE}: cheapest H100 80 GiB on_demand rate 14.7480 USD/GPU-hour "
            f"is above 13.0000 (azure eastus {H100_SKU})",
            "attachments": [],
            "type": "failure",
        }
    ]

    refresh(warehouse=wh, snapshot=str(back), config=str(cfg))
    assert len(webhook.log) == 2
    assert posted(webhook)[1] == {
        "version": "1.0",
        "title": f"[gpu-pricing] OK {RULE}",
        "message": f"Back to OK: {RULE}: cheapest H100 80 GiB on_demand rate 12.2900 "
        f"USD/GPU-hour is not above 13.0000 (azure eastus {H100_SKU})",
        "attachments": [],
        "type": "success",
    }
    recorded = [
        (e["rule"], e["state"], e["value"], e["threshold"], e["delivered"])
        for e in events(Path(wh))
    ]
    assert recorded == [(RULE, "ALARM", 14.748, 13.0, True), (RULE, "OK", 12.29, 13.0, True)]


@pytest.fixture
def demo_copy(tmp_path, demo_counted_warehouse) -> Path:
    """The demo with every price counted (the Azure H100 price the rule watches is an
    illustrative value of the demo, which a rate rule never reads)."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_counted_warehouse, path)
    return path


# The demo's price sheets are dated 2026-09-20, stale by the wall clock: these tests are
# about one rate rule and its deliveries, so the sheet staleness rule is off.
NO_SHEET_STALENESS = {"sheet_stale_after_days": 0}


def level_rule(level: float, targets: str = "") -> config.Config:
    return config.parse(
        {
            "alerts": NO_SHEET_STALENESS,
            **({"notify": json.loads(targets)} if targets else {}),
            "rules": [
                {
                    "name": "h100",
                    "kind": "price_above",
                    "gpu": "H100",
                    "memory_gib": 80,
                    "usd_per_gpu_hour": level,
                    "providers": ["azure"],
                }
            ],
        }
    )


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_failed_delivery_is_recorded_and_retried_next_run_without_the_secret(
    demo_copy, httpserver, monkeypatch, capsys, caplog
):
    caplog.set_level(logging.DEBUG)  # even at DEBUG, nothing logs the URL
    monkeypatch.setenv("HOOK_URL", f"json://127.0.0.1:{httpserver.port}/hook/{TOKEN}")
    cfg = level_rule(12.0, '[{"name": "hook", "url_env": "HOOK_URL"}]')  # 12.29 > 12: ALARM
    httpserver.expect_ordered_request(f"/hook/{TOKEN}").respond_with_response(Response("down", 503))
    httpserver.expect_ordered_request(f"/hook/{TOKEN}").respond_with_data("ok")

    first = alerts.check(demo_copy, cfg)
    assert [(t.rule, t.state) for t in first.fired] == [("rate:h100", "ALARM")]
    [failure] = first.failed_deliveries
    assert failure.target == "hook" and "503" in failure.error
    [event] = events(demo_copy)
    assert event["delivered"] is False and "503" in json.loads(event["pending_targets"])["hook"]

    second = alerts.check(demo_copy, cfg)  # nothing new fires; the old event goes out
    assert second.fired == [] and [d.delivered for d in second.deliveries] == [True]
    assert len(httpserver.log) == 2
    assert posted(httpserver)[1]["title"] == "[gpu-pricing] ALARM rate:h100"
    assert "state changed at" in posted(httpserver)[1]["message"]  # says it is late
    [event] = events(demo_copy)
    assert event["delivered"] is True and event["pending_targets"] is None

    assert alerts.check(demo_copy, cfg).deliveries == []  # delivered: never sent again
    assert len(httpserver.log) == 2
    # the token is nowhere: not in the warehouse file, not in logs or output
    assert TOKEN.encode() not in demo_copy.read_bytes()
    out = capsys.readouterr()
    ours = [r.getMessage() for r in caplog.records if r.name != "werkzeug"]  # the test server's own
    assert ours and TOKEN not in out.out + "\n".join(ours)


def test_only_the_target_that_failed_is_retried(demo_copy, httpserver, monkeypatch):
    monkeypatch.setenv("GOOD_URL", f"json://127.0.0.1:{httpserver.port}/good")
    monkeypatch.setenv("BAD_URL", f"json://127.0.0.1:{httpserver.port}/bad")
    targets = '[{"name": "good", "url_env": "GOOD_URL"}, {"name": "bad", "url_env": "BAD_URL"}]'
    cfg = level_rule(12.0, targets)
    httpserver.expect_request("/good").respond_with_data("ok")
    httpserver.expect_oneshot_request("/bad").respond_with_response(Response("no", 500))
    httpserver.expect_oneshot_request("/bad").respond_with_data("ok")

    alerts.check(demo_copy, cfg)
    alerts.check(demo_copy, cfg)

    paths = [req.path for req, _ in httpserver.log]
    assert sorted(paths[:2]) == ["/bad", "/good"] and paths[2:] == ["/bad"]
    [event] = events(demo_copy)
    assert event["delivered"] is True


def test_a_target_whose_variable_is_unset_is_a_recorded_failure_not_a_crash(demo_copy, monkeypatch):
    monkeypatch.delenv("NOT_SET_URL", raising=False)
    cfg = level_rule(12.0, '[{"name": "hook", "url_env": "NOT_SET_URL"}]')
    result = alerts.check(demo_copy, cfg)
    assert [d.error for d in result.deliveries] == ["environment variable NOT_SET_URL is not set"]
    assert events(demo_copy)[0]["delivered"] is False


def test_rechecking_unchanged_figures_fires_nothing_and_a_removed_rule_is_closed_silently(
    demo_copy,
):
    cfg = level_rule(12.0)
    assert [t.state for t in alerts.check(demo_copy, cfg).fired] == ["ALARM"]
    assert alerts.check(demo_copy, cfg).fired == []
    closed = alerts.check(demo_copy, config.Config(alerts={"sheet_stale_after_days": 0}))
    assert [(t.rule, t.state, t.notify) for t in closed.fired] == [("rate:h100", "OK", False)]
    assert [e["state"] for e in events(demo_copy)] == ["ALARM", "OK"]


def test_the_check_publishes_through_a_build_and_never_writes_the_published_file_in_place(
    demo_copy, monkeypatch
):
    def boom(*args, **kwargs):
        raise RuntimeError("delivery layer exploded")

    before = demo_copy.read_bytes()
    monkeypatch.setattr(notify, "deliver_pending", boom)
    with pytest.raises(RuntimeError):
        alerts.check(demo_copy, level_rule(12.0))
    assert demo_copy.read_bytes() == before  # the half-done build was discarded
    con = duckdb.connect(str(demo_copy), read_only=True)
    assert con.execute("SELECT count(*) FROM alert_events").fetchall() == [(0,)]
    con.close()


def test_the_alerts_check_command_prints_one_json_document_and_exits_1_on_a_failed_delivery(
    demo_copy, httpserver, monkeypatch, tmp_path
):
    from typer.testing import CliRunner

    from gpu_pricing.cli import app

    monkeypatch.setenv("HOOK_URL", f"json://127.0.0.1:{httpserver.port}/hook")
    httpserver.expect_oneshot_request("/hook").respond_with_response(Response("down", 500))
    httpserver.expect_oneshot_request("/hook").respond_with_data("ok")
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(
        '[alerts]\nsheet_stale_after_days = 0\n\n'
        '[[notify]]\nname = "hook"\nurl_env = "HOOK_URL"\n\n[[rules]]\nname = "h100"\n'
        'kind = "price_above"\ngpu = "H100"\nmemory_gib = 80\nusd_per_gpu_hour = 12.0\n'
        'providers = ["azure"]\n'
    )
    args = ["alerts", "check", "--config", str(cfg), "--warehouse", str(demo_copy), "--json"]

    first = CliRunner().invoke(app, args)
    assert first.exit_code == 1
    doc = json.loads(first.stdout)
    assert [(f["rule"], f["state"]) for f in doc["fired"]] == [("rate:h100", "ALARM")]
    assert {r["rule"]: r["state"] for r in doc["rules"]}["rate:h100"] == "ALARM"
    assert "delivery to hook failed" in first.stderr and "retried next run" in first.stderr

    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0
    assert json.loads(second.stdout)["deliveries"][0]["delivered"] is True


def test_a_failed_delivery_is_said_once(demo_copy, httpserver, monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from gpu_pricing.cli import app

    monkeypatch.setenv("HOOK_URL", f"json://127.0.0.1:{httpserver.port}/hook")
    httpserver.expect_request("/hook").respond_with_response(Response("down", 500))
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(  # one alarm only: the demo's dated sheets would add stale-source alarms
        '[alerts]\nsheet_stale_after_days = 0\n\n[[notify]]\nname = "hook"\nurl_env = "HOOK_URL"\n\n[[rules]]\nname = "h100"\n'
        'kind = "price_above"\ngpu = "H100"\nmemory_gib = 80\nusd_per_gpu_hour = 12.0\n'
        'providers = ["azure"]\n'
    )
    logging.getLogger().addHandler(handler := logging.StreamHandler())  # as the CLI's main()
    try:
        result = CliRunner().invoke(
            app, ["alerts", "check", "--config", str(cfg), "--warehouse", str(demo_copy)]
        )
    finally:
        logging.getLogger().removeHandler(handler)
    assert result.exit_code == 1
    said = (result.stdout + result.stderr).lower()
    assert said.count("internal server error") == 1, said  # the error, said once
    assert "alert rate:h100: delivery to hook failed" in result.stderr
