"""A warehouse built once per test module from the bundled demo snapshot, for the cost
marts, macros and CLI (read-only use)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest


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
