from __future__ import annotations

import duckdb
import pytest


@pytest.fixture(scope="module")
def con_demo(demo_warehouse):
    connection = duckdb.connect(str(demo_warehouse), read_only=True)
    yield connection
    connection.close()
