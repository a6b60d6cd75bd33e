"""The API providers added after the first eight, end to end: demo snapshot -> raw ->
parse -> staging -> marts -> `rates`, on a temporary DuckDB file; and a live refresh
without credentials skips a keyed provider cleanly (exit 0, said once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connectors import registry
from connectors.kit.page import FetchContext
from flows import pipeline
from flows.direct import summary_markdown
from gpu_pricing.cli import app
from tests._warehouse import query

# provider -> (the env var(s) its prices need, or () when public; H100 in the demo?)
NEW = {
    "hyperstack": (("HYPERSTACK_API_KEY",), True),
    "verda": (
        (
            "VERDA_CLIENT_ID",
            "VERDA_CLIENT_SECRET",
            "DATACRUNCH_CLIENT_ID",
            "DATACRUNCH_CLIENT_SECRET",
        ),
        True,
    ),
    "digitalocean": (
        ("DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN", "DIGITAL_OCEAN_API_KEY"),
        True,
    ),
    "vultr": ((), True),
    "cloudrift": ((), False),
    "jarvislabs": (("JL_API_KEY", "JARVISLABS_API_KEY"), True),
    "hotaisle": (("HOTAISLE_API_KEY", "HOTAISLE_TEAM_HANDLE"), False),
    "crusoe": (("CRUSOE_ACCESS_KEY", "CRUSOE_SECRET_KEY", "CRUSOE_PROJECT_ID"), True),
    "fluidstack": (("FLUIDSTACK_API_KEY",), True),
    "seeweb": (("SEEWEB_API_TOKEN", "SEEWEB_API_KEY"), True),
    "nebius": (("NEBIUS_IAM_TOKEN",), True),
}


@pytest.fixture(scope="module")
def warehouse(demo_warehouse) -> Path:
    """The demo refresh (every provider, these among them), as its loads recorded it: each
    of these providers landed and staged without a failed or skipped load."""
    loads = query(
        demo_warehouse,
        "SELECT provider, list(DISTINCT status ORDER BY status) AS statuses FROM _loads "
        "WHERE provider IN $providers GROUP BY provider",
        {"providers": sorted(NEW)},
    )
    assert dict(loads.iter_rows()) == {p: ["ok"] for p in NEW}
    return demo_warehouse


def rates(warehouse: Path, *args: str) -> list[dict]:
    """`rates --json`, the demo's illustrative prices included (most of these providers'
    demo prices are invented: connectors/demo_snapshot/README.md), marked as such."""
    result = CliRunner().invoke(
        app,
        ["rates", *args, "--json", "--limit", "1000", "--include-illustrative",
         "--warehouse", str(warehouse)],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["rates"]


@pytest.mark.parametrize("provider", sorted(NEW))
def test_each_new_provider_refreshes_from_the_demo_and_shows_in_rates(warehouse, provider):
    rows = [r for r in rates(warehouse, "--provider", provider)]
    assert rows, provider
    assert all(r["price_usd_per_gpu_hour"] > 0 for r in rows)
    for r in rows:  # whole instance = per GPU x GPUs, to the cent
        assert r["price_usd_per_hour"] == pytest.approx(
            r["price_usd_per_gpu_hour"] * r["gpu_count"], abs=0.005
        )


def test_h100_rates_include_every_new_provider_with_h100_in_the_demo(warehouse):
    providers = {r["provider"] for r in rates(warehouse, "--gpu", "H100")}
    assert providers >= {p for p, (_, h100) in NEW.items() if h100}


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_keyed_provider_without_credentials_is_skipped_not_failed(tmp_path, monkeypatch):
    """Every keyed provider at once, in one refresh (each is reported on its own)."""
    keyed = sorted(p for p, (env, _) in NEW.items() if env)
    for provider in keyed:
        for var in NEW[provider][0]:
            monkeypatch.delenv(var, raising=False)
    fetched = {p: pipeline.fetch_pages(p, None, FetchContext()) for p in keyed}
    summary = pipeline.load_and_publish(tmp_path / "w.duckdb", fetched, source="live")
    assert summary.exit_code == 0
    assert sorted(p.provider for p in summary.providers) == keyed
    text = summary_markdown(summary)
    for only in summary.providers:
        provider = only.provider
        assert only.status == "skipped", provider
        (line,) = only.skipped  # naming a variable it reads
        assert any(var in line for var in NEW[provider][0]), (provider, line)
        assert f"- {provider} skipped: " in text, provider
    assert text.count("no credentials") >= len(keyed)


def test_the_new_providers_are_registered():
    assert set(NEW) <= set(registry.PROVIDERS)


def test_h100_rates_on_the_whole_demo_compare_at_least_15_providers(demo_warehouse):
    providers = {r["provider"] for r in rates(demo_warehouse, "--gpu", "H100")}
    assert len(providers) >= 15, sorted(providers)


def test_the_refresh_command_without_credentials_exits_0_with_a_skipped_line(
    prefect_harness, tmp_path, monkeypatch
):
    keyed = sorted(p for p, (env, _) in NEW.items() if env)
    for provider in keyed:
        for var in NEW[provider][0]:
            monkeypatch.delenv(var, raising=False)
    result = CliRunner().invoke(
        app,
        ["refresh", "--providers", ",".join(keyed), "--warehouse", str(tmp_path / "w.duckdb")],
    )
    assert result.exit_code == 0, result.output
    for provider in keyed:
        line = next(
            x for x in result.stdout.splitlines() if x.startswith(f"- {provider} skipped: ")
        )
        assert "no credentials" in line
