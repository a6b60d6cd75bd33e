"""The `gpu-pricing` command line: the contract's flags, --json documents and exit codes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_rates_lists_azure_a100_offers_with_per_gpu_hour_prices(demo_warehouse):
    result = cli(
        "rates", "--gpu", "A100", "--json", "--warehouse", str(demo_warehouse), "--limit", "500"
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    nd = [
        r
        for r in doc["rates"]
        if r["instance_type"] == "Standard_ND96asr_v4"
        and r["region"] == "eastus"
        and r["pricing_model"] == "on_demand"
    ]
    assert len(nd) == 1
    assert nd[0]["price_usd_per_hour"] == 27.197
    assert nd[0]["price_usd_per_gpu_hour"] == pytest.approx(3.3996, abs=1e-4)
    assert {r["gpu_name"] for r in doc["rates"]} == {"A100"}
    prices = [r["price_usd_per_gpu_hour"] for r in doc["rates"]]
    assert prices == sorted(prices)  # cheapest first
    assert all(r["load_id"] for r in doc["rates"])


def test_rates_filters_combine(demo_counted_warehouse):
    result = cli(
        "rates",
        "--gpu",
        "h100",
        "--memory",
        "80",
        "--pricing",
        "spot",
        "--provider",
        "azure",
        "--region",
        "eastus",
        "--json",
        "--warehouse",
        str(demo_counted_warehouse),
    )
    rows = json.loads(result.stdout)["rates"]
    assert rows and all(
        (r["gpu_name"], r["gpu_memory_gib"], r["pricing_model"], r["region"])
        == ("H100", 80, "spot", "eastus")
        for r in rows
    )


def test_rates_prints_a_table_without_json(demo_warehouse):
    result = cli("rates", "--gpu", "H100", "--limit", "3", "--warehouse", str(demo_warehouse))
    assert result.exit_code == 0
    table, _, footer = result.stdout.partition("\n\n")
    lines = table.splitlines()
    assert lines[0].startswith("provider") and len(lines) == 5
    # the demo's invented prices are left out, and the footer says how many
    assert footer.startswith("Not ranked: ") and "illustrative" in footer


def test_history_returns_effective_dated_rows(demo_warehouse):
    result = cli(
        "history",
        "--gpu",
        "A100",
        "--memory",
        "40",
        "--pricing",
        "on_demand",
        "--json",
        "--warehouse",
        str(demo_warehouse),
    )
    rows = json.loads(result.stdout)["history"]
    assert rows and all(r["valid_from"] for r in rows)
    # the Azure API's offers are open; the 2023 price survey's Azure rows (sheets) are closed
    api = [
        r for r in rows if r["provider"] == "azure" and r["instance_type"].startswith("Standard_")
    ]
    assert api and all(r["valid_to"] is None for r in api)


def test_an_unknown_pricing_model_is_a_usage_error(demo_warehouse):
    # ("preemptible" is now an alias of spot: common.names)
    result = cli("rates", "--pricing", "hourly", "--warehouse", str(demo_warehouse))
    assert result.exit_code == 2
    assert "--pricing 'hourly'" in result.stderr


def test_a_missing_warehouse_is_exit_2_with_a_hint(tmp_path):
    result = cli("rates", "--warehouse", str(tmp_path / "nope.duckdb"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr and "gpu-pricing refresh" in result.stderr
    assert result.stdout == ""


def test_refresh_rejects_an_unknown_connector_before_doing_anything(tmp_path):
    result = cli(
        "refresh",
        "--snapshot",
        "demo",
        "--providers",
        "azure,nimbus",
        "--warehouse",
        str(tmp_path / "w.duckdb"),
    )
    assert result.exit_code == 2
    assert "unknown connector 'nimbus'" in result.stderr
    assert not (tmp_path / "w.duckdb").exists()


def test_refresh_rejects_a_missing_snapshot_directory(tmp_path):
    result = cli(
        "refresh",
        "--snapshot",
        str(tmp_path / "missing"),
        "--warehouse",
        str(tmp_path / "w.duckdb"),
    )
    assert result.exit_code == 2 and "no such directory" in result.stderr


def test_a_malformed_snapshot_file_names_the_file_and_changes_nothing(tmp_path, demo_warehouse):
    from common.errors import InvalidInput
    from connectors.kit import snapshot as kit_snapshot

    bad = tmp_path / "snap" / "azure" / "retail_prices"
    bad.mkdir(parents=True)
    (bad / "eastus-0001.json").write_text('{"fetched_at": "2026-11-20T02:00:00Z", "request": {}}')
    with pytest.raises(InvalidInput, match=r"eastus-0001.json: missing key\(s\) \['body'\]"):
        list(kit_snapshot.read_provider(tmp_path / "snap", "azure"))


def test_snapshot_export_round_trips_through_refresh(tmp_path, demo_warehouse):
    from flows import pipeline
    from warehouse import db

    out = tmp_path / "exported"
    result = cli("snapshot", "export", str(out), "--json", "--warehouse", str(demo_warehouse))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["pages"]["azure/retail_prices"] == 17
    from connectors.kit import snapshot as kit_snapshot

    replayed = tmp_path / "replayed.duckdb"
    pipeline.load_and_publish(
        replayed, {"azure": list(kit_snapshot.read_provider(out, "azure"))}, source="t"
    )
    query = """SELECT provider, region, instance_type, pricing_model, price_usd_per_hour
               FROM mart_gpu_offers_current WHERE provider = 'azure' ORDER BY ALL"""
    a, b = db.connect_readonly(demo_warehouse), db.connect_readonly(replayed)
    try:
        assert db.query(a, query).equals(db.query(b, query))
    finally:
        a.close()
        b.close()


def test_snapshot_export_of_an_unknown_load_is_exit_2(tmp_path, demo_warehouse):
    result = cli(
        "snapshot",
        "export",
        str(tmp_path / "x"),
        "--load-id",
        "nope",
        "--warehouse",
        str(demo_warehouse),
    )
    assert result.exit_code == 2 and "nope" in result.stderr


def test_a_warehouse_without_marts_is_exit_2_not_a_traceback(tmp_path):
    import duckdb

    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    for args in (["rates", "--json"], ["history", "--gpu", "H100"]):
        result = cli(*args, "--warehouse", str(empty))
        assert result.exit_code == 2
        assert "gpu-pricing refresh" in result.stderr and result.stdout == ""


def test_breakeven_onprem_rejects_an_unknown_gpu_even_with_capex_and_rate(demo_warehouse):
    result = cli(
        "breakeven",
        "onprem",
        "--gpu",
        "FOO",
        "--capex",
        "30000",
        "--rate",
        "4",
        "--json",
        "--warehouse",
        str(demo_warehouse),
    )
    assert result.exit_code == 2 and "unknown GPU" in result.stderr


def test_snapshot_record_writes_what_the_live_api_returns(tmp_path, httpserver, monkeypatch):
    """`snapshot record` through the real Azure fetch (its public API pointed at a local
    server): the files are in the snapshot format and replay like the demo."""
    from connectors.azure import settings
    from connectors.kit import snapshot as kit_snapshot

    demo = [p for p in kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "azure") if p.scope == "eastus"]
    for n, page in enumerate(demo):
        body = dict(page.decoded())
        body["NextPageLink"] = httpserver.url_for(f"/p/{n + 1}") if n + 1 < len(demo) else None
        httpserver.expect_request("/api/retail/prices" if n == 0 else f"/p/{n}").respond_with_json(
            body
        )
    monkeypatch.setattr(settings, "RETAIL_URL", httpserver.url_for("/api/retail/prices"))
    out = tmp_path / "recorded"
    result = cli(
        "snapshot",
        "record",
        str(out),
        "--providers",
        "azure",
        "--regions",
        "eastus",
        "--json",
        "--warehouse",
        str(tmp_path / "none.duckdb"),
    )
    assert result.exit_code == 0, (
        result.stderr
    )  # resource SKUs skipped (no credentials): not a failure
    doc = json.loads(result.stdout)
    assert doc["providers"]["azure"]["pages"] == len(demo)
    replayed = list(kit_snapshot.read_provider(out, "azure"))
    assert [p.decoded()["Items"] for p in replayed] == [p.decoded()["Items"] for p in demo]


def test_snapshot_record_records_the_providers_that_work_when_one_breaks(tmp_path, monkeypatch):
    """A provider whose fetch raises something unexpected (AWS's SDK on a body that is not
    XML) is reported as that provider's failure; the others are still recorded."""
    from connectors import registry
    from connectors.kit import snapshot as kit_snapshot

    def broken(ctx):
        yield from ()
        raise ValueError("invalid XML received: <html>" + "x" * 5000)

    aws = registry.PROVIDERS["aws"]
    monkeypatch.setitem(registry.PROVIDERS, "aws", dataclasses.replace(aws, fetch_live=broken))
    out = tmp_path / "recorded"
    result = cli("snapshot", "record", str(out), "--providers", "aws,sheets", "--json",
                 "--warehouse", str(tmp_path / "none.duckdb"))  # fmt: skip
    assert result.exit_code == 1, result.stderr
    doc = json.loads(result.stdout)["providers"]
    assert doc["sheets"]["pages"] > 0 and list(kit_snapshot.read_provider(out, "sheets"))
    (failure,) = doc["aws"]["failures"]
    assert "ValueError: invalid XML received" in failure
    aws_lines = [line for line in result.stderr.splitlines() if "aws" in line]
    assert len(aws_lines) == 1 and len(aws_lines[0]) < 600, aws_lines
