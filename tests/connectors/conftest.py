"""Helpers for the connectors' tests: pages frames as raw landing hands them to
parse(), recorded-shape fixtures, and a fast retry policy."""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl
import pytest

from connectors.kit import page as kit_page
from connectors.kit.http import RetryPolicy
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
    """Pages of one endpoint as parse() receives them (`pages_frame`): payload = the
    stored body text (a dict is written as JSON text, a str kept as it is)."""

    def build(endpoint: str, *payloads, scopes=None, fetched_at=FETCHED_AT) -> pl.DataFrame:
        texts = [p if isinstance(p, str) else json.dumps(p) for p in payloads]
        return kit_page.pages_frame(
            kit_page.Page("test", endpoint, fetched_at, {"scope": scope} if scope else {}, text=text)
            for text, scope in zip(texts, scopes or [""] * len(texts), strict=True)
        )

    return build
