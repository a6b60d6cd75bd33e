"""Helpers for the connectors' tests: pages frames as raw landing hands them to
parse(), recorded-shape fixtures, and a fast retry policy."""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl
import pytest

from connectors._http import RetryPolicy
from tests.conftest import FIXTURES

FETCHED_AT = datetime(2026, 11, 20, 2)


@pytest.fixture
def fast_retry() -> RetryPolicy:
    return RetryPolicy(attempts=3, backoff_s=0.01, max_retry_after_s=0.05)


@pytest.fixture
def recorded():
    """A fixture body without its `_source` note (which the real API does not send)."""

    def load(provider: str, name: str) -> dict:
        body = json.loads((FIXTURES / provider / name).read_text())
        body.pop("_source", None)
        return body

    return load


@pytest.fixture
def pages_frame():
    """The frame parse() receives: one row per page, payload = the stored body text."""

    def build(endpoint: str, *payloads, scopes=None, fetched_at=FETCHED_AT) -> pl.DataFrame:
        texts = [p if isinstance(p, str) else json.dumps(p) for p in payloads]
        n = len(texts)
        return pl.DataFrame(
            {
                "endpoint": [endpoint] * n,
                "load_id": [f"load-{i}" for i in range(n)],
                "fetched_at": [fetched_at] * n,
                "scope": list(scopes) if scopes else [""] * n,
                "source_url": [None] * n,
                "request": ["{}"] * n,
                "payload": texts,
            },
            schema_overrides={"source_url": pl.String, "fetched_at": pl.Datetime("us")},
        )

    return build
