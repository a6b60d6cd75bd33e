"""Shared helpers for the AWS tests: recorded fixtures and a pages frame like the one
`raw.current_pages` hands to parse."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

import polars as pl
import pytest

from connectors._page import Page
from tests.conftest import FIXTURES

AWS_FIXTURES = FIXTURES / "aws"
FETCHED_AT = datetime(2026, 11, 20, 2)


@pytest.fixture
def aws_fixture() -> Callable[[str], dict]:
    def load(name: str) -> dict:
        return json.loads((AWS_FIXTURES / name).read_text())

    return load


def frame_of(pages: list[Page], load_ids: list[str] | None = None) -> pl.DataFrame:
    ids = load_ids or [f"run-1:aws:{p.endpoint}:{p.scope or '-'}" for p in pages]
    return pl.DataFrame(
        {
            "endpoint": [p.endpoint for p in pages],
            "load_id": ids,
            "fetched_at": [p.fetched_at for p in pages],
            "scope": [p.scope for p in pages],
            "source_url": [p.source_url for p in pages],
            "request": [json.dumps(p.request) for p in pages],
            "payload": [p.payload for p in pages],
        },
        schema={
            "endpoint": pl.String,
            "load_id": pl.String,
            "fetched_at": pl.Datetime("us"),
            "scope": pl.String,
            "source_url": pl.String,
            "request": pl.String,
            "payload": pl.String,
        },
    )


@pytest.fixture
def pages_frame() -> Callable[..., pl.DataFrame]:
    return frame_of


def page(endpoint: str, body: dict, region: str = "us-east-1", at: datetime = FETCHED_AT) -> Page:
    return Page("aws", endpoint, at, {"region": region} if region else {}, body=body)


@pytest.fixture
def make_page() -> Callable[..., Page]:
    return page
