"""Warehouses for the trust tests: the whole demo snapshot, and the price sheets alone
(where the illustrative FluidStack row is the cheapest H100 on offer)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def sheets_warehouse(tmp_path_factory, demo_pages) -> Path:
    from flows import pipeline

    path = tmp_path_factory.mktemp("sheets") / "gpu_pricing.duckdb"
    pipeline.load_and_publish(path, {"sheets": demo_pages["sheets"]}, source="demo")
    return path
