"""Shared fixtures. No network: every client under test talks to a local server."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
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
    from connectors.kit.page import FetchContext
    from flows import pipeline

    return {name: pipeline.fetch_pages(name, "demo", FetchContext()) for name in registry.PROVIDERS}


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory, demo_pages) -> Path:
    """A warehouse refreshed once from the demo snapshot (read-only use, please)."""
    from flows import pipeline

    path = tmp_path_factory.mktemp("demo") / "gpu_pricing.duckdb"
    pipeline.load_and_publish(path, demo_pages, source="demo")
    return path


# A warehouse built once per test module from the bundled demo snapshot, for the cost
# marts, macros and CLI (read-only use).
@pytest.fixture(scope="module")
def cost_warehouse(tmp_path_factory, demo_pages) -> Path:
    from flows import pipeline

    path = tmp_path_factory.mktemp("costs") / "gpu_pricing.duckdb"
    pipeline.load_and_publish(path, demo_pages, source="demo")
    return path


@pytest.fixture(scope="module")
def con(cost_warehouse):
    connection = duckdb.connect(str(cost_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def sheets_warehouse(tmp_path_factory, demo_pages) -> Path:
    """The price sheets alone (where the illustrative FluidStack row is the cheapest H100
    on offer)."""
    from flows import pipeline

    path = tmp_path_factory.mktemp("sheets") / "gpu_pricing.duckdb"
    pipeline.load_and_publish(path, {"sheets": demo_pages["sheets"]}, source="demo")
    return path


# Edited copies of the demo snapshot (the alert views and alert delivery tests).
H100_SKU = "Standard_ND96isr_H100_v5"


@pytest.fixture
def azure_snapshot(tmp_path) -> Callable[..., Path]:
    """make(name, h100_factor=1.0, fetched_at=None, keep_items=None): a copy of the demo
    snapshot (real shape) with every ND96isr H100 v5 price scaled by `h100_factor`, the
    Azure pages' fetched_at replaced, and only the first `keep_items` items of each page."""
    from connectors.kit.snapshot import DEMO_DIR

    def make(
        name: str,
        h100_factor: float = 1.0,
        fetched_at: str | None = None,
        keep_items: int | None = None,
    ) -> Path:
        root = tmp_path / name
        shutil.copytree(DEMO_DIR, root)
        for page in (root / "azure" / "retail_prices").glob("*.json"):
            doc = json.loads(page.read_text())
            items = doc["body"]["Items"]
            for item in items:
                if item["armSkuName"] == H100_SKU:
                    price = round(item["retailPrice"] * h100_factor, 4)
                    item["retailPrice"] = item["unitPrice"] = price
            if keep_items is not None:
                doc["body"]["Items"] = items[:keep_items]
                doc["body"]["Count"] = len(doc["body"]["Items"])
            if fetched_at:
                doc["fetched_at"] = fetched_at
            page.write_text(json.dumps(doc, indent=1))
        return root

    return make
