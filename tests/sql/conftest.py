"""A writable copy of the demo warehouse per test: each test plants one bad row in it."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest


@pytest.fixture
def warehouse(tmp_path, demo_warehouse: Path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    con = duckdb.connect(str(path))
    yield con
    con.close()
