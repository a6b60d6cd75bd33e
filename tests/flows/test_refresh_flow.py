"""The Prefect refresh flow end to end on the demo snapshot (one temporary Prefect API
per test session)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpu_pricing.cli import app


def test_refresh_command_runs_the_flow_on_the_demo_snapshot(prefect_harness, tmp_path):
    path = tmp_path / "w.duckdb"
    result = CliRunner().invoke(
        app, ["refresh", "--snapshot", "demo", "--json", "--warehouse", str(path)]
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)  # exactly one JSON document on stdout
    azure = next(p for p in doc["providers"] if p["provider"] == "azure")
    assert azure["status"] == "ok" and azure["fetched"] == 17 and azure["rejected"] == 1
    assert any(
        c["gpu_name"] == "A100" and c["pricing_model"] == "on_demand" for c in doc["cheapest"]
    )
    assert all(v == 0 for v in doc["assertions"].values())
    # a second run over the same snapshot: everything unchanged, no new history
    again = CliRunner().invoke(
        app,
        [
            "refresh",
            "--snapshot",
            "demo",
            "--json",
            "--warehouse",
            str(path),
            "--providers",
            "azure",
        ],
    )
    doc2 = json.loads(again.stdout)
    assert doc2["providers"][0]["unchanged"] == 17 and doc2["history"] == {"opened": 0, "closed": 0}


def test_the_flow_leaves_a_table_and_a_markdown_artifact(prefect_harness, tmp_path):
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from flows.refresh import refresh

    refresh(warehouse=str(tmp_path / "w.duckdb"), snapshot="demo", providers=["azure"])

    async def keys():
        async with get_client() as client:
            arts = await client.read_artifacts(
                artifact_filter=ArtifactFilter(
                    key=ArtifactFilterKey(
                        any_=["gpu-pricing-refresh", "gpu-pricing-refresh-summary"]
                    )
                )
            )
            return {(a.key, a.type) for a in arts}

    assert {
        ("gpu-pricing-refresh", "table"),
        ("gpu-pricing-refresh-summary", "markdown"),
    } <= asyncio.run(keys())
