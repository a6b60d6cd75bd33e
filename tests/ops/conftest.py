"""Fixtures for the operations tests: edited copies of the demo snapshot."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from connectors._snapshot import DEMO_DIR

H100_SKU = "Standard_ND96isr_H100_v5"


@pytest.fixture
def azure_snapshot(tmp_path) -> Callable[..., Path]:
    """make(name, h100_factor=1.0, fetched_at=None, keep_items=None): a copy of the demo
    snapshot (real shape) with every ND96isr H100 v5 price scaled by `h100_factor`, the
    Azure pages' fetched_at replaced, and only the first `keep_items` items of each page."""

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
