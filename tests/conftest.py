"""Shared fixtures. No network: every client under test talks to a local server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Prefect's temporary server takes 10-25 s to start on a 2-core machine: start it at most
# once per session (fixture below), and never phone home.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# Make sure no real credentials on a developer machine leak into a test run.
for var in ("AZURE_SUBSCRIPTION_ID", "AWS_PROFILE", "GOOGLE_API_KEY", "LAMBDA_API_KEY", "RUNPOD_API_KEY"):
    os.environ.pop(var, None)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect API for the whole session (use it only where a flow runs)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


@pytest.fixture(scope="session")
def demo_pages():
    """Every registered provider's pages from the bundled demo snapshot."""
    from connectors import registry
    from connectors._page import FetchContext
    from flows import pipeline

    return {name: pipeline.fetch_pages(name, "demo", FetchContext()) for name in registry.PROVIDERS}


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory, demo_pages) -> Path:
    """A warehouse refreshed once from the demo snapshot (read-only use, please)."""
    from flows import pipeline

    path = tmp_path_factory.mktemp("demo") / "gpu_pricing.duckdb"
    pipeline.load_and_publish(path, demo_pages, source="demo")
    return path
